-- The estimate's model as the ticker's leader saw it each second (`app::estimate::Model`'s
-- record), so that the night's report can recompute what a buyer was told a minute before
-- their admission (issue 31). Null for a second with no leader, or kept before this column.
alter table night_second add column model text;
