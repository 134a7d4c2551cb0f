-- The language an event's buyer pages speak to a buyer who asked for none of ours (issue 37,
-- API.md "Languages"): one of the languages the pages have, English for every event before.
alter table event add column language text not null default 'en'
    check (language in ('en', 'de', 'fr', 'es', 'ja', 'ar'));
