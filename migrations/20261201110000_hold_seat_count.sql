-- How many seats each hold took: the line's average seats per hold so far (queue::inventory,
-- counted every admission tick) is then one index-only read of an event's holds, not a join
-- over the seats of every hold the event ever had.
alter table hold add column seat_count integer check (seat_count > 0);
update hold set seat_count = (select count(*) from hold_seat where hold_id = hold.id);
alter table hold alter column seat_count set not null;
drop index hold_event;
create index hold_event on hold (event_id) include (seat_count);
