-- The ticker counts an event's holds every tick (the line's inventory: seats per hold so far);
-- without this index that count reads the holds of every event.
create index hold_event on hold (event_id);
