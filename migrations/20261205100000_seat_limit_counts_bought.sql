-- A buyer's seat limit per event counts seats held and seats bought (review finding 2): the
-- hold transaction sums both under the buyer's lock, through this index.
create index hold_buyer_live on hold (event_id, buyer_id) include (seat_count)
    where status in ('active', 'purchased');
