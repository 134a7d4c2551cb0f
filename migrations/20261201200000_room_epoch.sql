-- Bumped each time an event's room is turned on or off: an admission token carries the epoch it
-- was minted in, and one of another epoch does not pass the gate (a token handed out at once
-- while the room was off is no admission once the room is on again).
alter table event add column room_epoch integer not null default 0 check (room_epoch >= 0);
