-- Payments through Stripe (issue 67). A payment record becomes one PaymentIntent, whose id is
-- recorded here before its client secret goes to the buyer's page: every later question (the
-- page's return, the webhook, reconciliation) reads the intent by it. Null for the fake, and
-- for a record whose intent was never shown to anyone (so never able to take money).
alter table payment add column provider_ref text;
-- A payment the buyer's page is confirming with the provider: reconciliation asks the provider
-- about it again no sooner than this (the page's return and the webhook come first).
alter table payment add column look_after timestamptz;
create unique index payment_provider_ref on payment (provider_ref) where provider_ref is not null;

-- Stripe's webhook events handled, by Stripe's event id: an event delivered again (Stripe
-- retries, or a replay within the signature's tolerance) is answered and not handled twice.
create table stripe_event (
    id          text primary key,
    type        text not null,
    received_at timestamptz not null default now()
);
