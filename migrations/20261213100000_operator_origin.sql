-- Issue 63: an operator account the company's sign-in made takes its role from the provider's
-- claim at every sign-in (a person taken out of the group loses the role); an account an admin
-- added keeps the role the admin gave. An API key remembers the person who made it, so that
-- removing the person revokes their keys.
alter table operator add column from_company boolean not null default false;
alter table api_key add column made_by text;
create index api_key_made_by on api_key (made_by) where revoked_at is null;
