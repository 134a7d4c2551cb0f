-- Accounts (API.md "Accounts"): who a room takes in its line, and which accounts it admits.
-- `identity`: 'anonymous' (any session) or 'account' (a signed-in account, one place each).
-- `eligible`: null (anyone), {"claim": ..., "value": ...} or {"list": true}.
alter table event add column identity text not null default 'anonymous'
    check (identity in ('anonymous', 'account'));
alter table event add column eligible jsonb;
-- Like every setting, the default is the code's (app::wire::DEFAULT_ROOM), not the table's.
alter table event alter column identity drop default;

-- The accounts a room with `{"list": true}` admits: the account's id (a keyed hash of its
-- issuer and subject, as the line names it), never the subject itself.
create table eligible_account (
    event_id text not null references event(id) on delete cascade,
    account text not null,
    primary key (event_id, account)
);

-- The operator may upload a room's list of eligible accounts.
alter table operator_action drop constraint operator_action_action_check;
alter table operator_action add constraint operator_action_action_check
    check (action in ('create_event', 'change_room', 'sign_in', 'sign_out', 'set_beacon',
                      'keep_night', 'set_eligible'));
