//! Which stage the event page shows: a pure function of the server's answers (no signals, no
//! DOM), the same for the server's rendering and the hydrated page, so that a reload shows the
//! stage the page had reached.
//!
//! How the page moves between stages:
//! - it opens at [`Stage::of`] its entry, which is also where every form posted without
//!   JavaScript leads (the server answers 303 back to the page);
//! - before the buyer's turn ([`Stage::follows_the_line`]) each answer of a join, a poll or a
//!   claim moves it ([`Stage::after_line`], [`Stage::at`]): the countdown to the pre-queue, the
//!   pre-queue to the line, the line to sold out; an admission brings the seat map next, and a
//!   refusal may count down again or end the line here ([`Stage::after_refusal`]);
//! - in the turn, what the buyer does decides: a hold made goes from `Choosing` to `Holding`, a
//!   payment to `Confirmed`; a release or a hold that ran out goes back to `Choosing`, and an
//!   admission that ran out back to the line (a join's answer again).

use chrono::{DateTime, Utc};

use crate::{
    presence::POLL_NEAR_MS,
    wire::{Deferred, EventEntry, Hold, Order, Outlook, QueueStatus, SeatRuns},
};

/// Where the buyer is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Stage {
    /// Before the pre-queue opens: countdowns to it and to the sale.
    NotOpen {
        opens_at: DateTime<Utc>,
        prequeue_opens_at: DateTime<Utc>,
    },
    /// In the pre-queue with a ticket: the place comes with the draw at `opens_at`.
    PreQueue {
        ticket: String,
        opens_at: DateTime<Utc>,
    },
    Waiting {
        position: u64,
        /// The band of the wait, `[low, high]` seconds (never shown as one number).
        estimate: Option<[u64; 2]>,
        outlook: Option<Outlook>,
        /// A drawn entrant's ticket and the place the draw gave it.
        drawn: Option<(String, u64)>,
        /// The position is the line's public progress's, within 1%: the page says "about".
        about: bool,
        /// How often the page refreshes, seconds (`crate::presence::Schedule::refresh_ms`).
        refresh: u64,
        /// The place's arrival number, by which the page finds it in the public progress.
        arrival: Option<u64>,
        /// Within how many seconds of the last answer the page asks for its place again.
        poll_within: u64,
    },
    /// Every seat is sold: the line is over.
    SoldOut,
    /// Admitted, the seat map on its way: in a room that binds tokens the server's rendering
    /// has none (the browser asks for it with its device's proof).
    Admitted,
    /// The place moved to another device, at that time: this page has none any more and
    /// follows the line no longer (found by a poll, or by the server's rendering).
    Moved(DateTime<Utc>),
    /// The buyer's turn: the seat map, the hold, the order. Read by the turn's own code
    /// ([`super::turn_stage`]), so the line's code does not carry their JSON readers.
    Choosing(Deferred<SeatRuns>),
    Holding(Deferred<Hold>),
    Confirmed(Deferred<Order>, Deferred<Hold>),
}

impl Stage {
    /// The stage the page opens at: a place that moved away says so; the buyer's hold, paid or
    /// not, comes back; then the seat map; then the place in line; without one, the sale has
    /// not opened (its times from the room, on the server's clock `entry.now`).
    pub(super) fn of(entry: &EventEntry) -> Self {
        if let Some(at) = entry.moved_at {
            return Self::Moved(at);
        }
        match (&entry.hold, &entry.order) {
            (Some(hold), Some(order)) => return Self::Confirmed(order.clone(), hold.clone()),
            (Some(hold), None) => return Self::Holding(hold.clone()),
            _ => {}
        }
        match (&entry.queue, &entry.seats) {
            (_, Some(map)) => Self::Choosing(map.clone()),
            (None, None) => {
                let room = &entry.event.room;
                Self::NotOpen {
                    opens_at: room.opens_at.unwrap_or(entry.now),
                    prequeue_opens_at: room.prequeue_opens_at.unwrap_or(entry.now),
                }
            }
            (Some(status), None) => Self::at(status),
        }
    }

    /// Where a line's answer puts a page that has no seat map yet (a claimed place, an entry
    /// without one): an admission shows [`Stage::Admitted`] while the map is on its way.
    pub(super) fn at(status: &QueueStatus) -> Self {
        Self::after_line(status).unwrap_or(Self::Admitted)
    }

    /// The stage a line's answer puts the buyer in; `None` for an admission (the seat map comes
    /// next, which the caller reads).
    pub(super) fn after_line(status: &QueueStatus) -> Option<Self> {
        match status {
            QueueStatus::Waiting {
                position,
                estimated_wait_seconds,
                estimate_range_seconds,
                outlook,
                ticket,
                arrival,
                refresh_seconds,
                poll_within_seconds,
                ..
            } => Some(Self::Waiting {
                position: *position,
                estimate: estimate_range_seconds.or(estimated_wait_seconds.map(|e| [e, e])),
                outlook: *outlook,
                // A drawn entrant's arrival number is their place in the draw.
                drawn: ticket.clone().zip(*arrival),
                about: false,
                refresh: refresh_seconds.unwrap_or(POLL_NEAR_MS / 1000),
                arrival: *arrival,
                poll_within: poll_within_seconds.unwrap_or(POLL_NEAR_MS / 1000),
            }),
            QueueStatus::PreQueue {
                ticket, opens_at, ..
            } => Some(Self::PreQueue {
                ticket: ticket.clone(),
                opens_at: *opens_at,
            }),
            QueueStatus::SoldOut => Some(Self::SoldOut),
            QueueStatus::Admitted { .. } => None,
        }
    }

    /// The stage a refused join or poll leads to, where the refusal decides one: a sale still
    /// closed (the opening was postponed, or the page's clock ran ahead) counts down again; a
    /// place that moved to another device ends the line for this page. `None`: the stage stays.
    /// Only the browser follows the line, so only it (and the tests) has this.
    #[cfg(any(feature = "hydrate", test))]
    pub(super) fn after_refusal(e: &crate::wire::ErrorBody) -> Option<Self> {
        if e.error == "not_open" {
            return e.opening.as_ref().map(|opening| Self::NotOpen {
                opens_at: opening.opens_at,
                prequeue_opens_at: opening.prequeue_opens_at,
            });
        }
        e.moved
            .as_ref()
            .filter(|moved| moved.moved)
            .map(|moved| Self::Moved(moved.moved_at))
    }

    /// Whether the buyer's turn is still to come: the page follows the line (it waits for the
    /// pre-queue to open, or polls), and a place moved here may still be claimed.
    pub(super) fn follows_the_line(&self) -> bool {
        matches!(
            self,
            Self::NotOpen { .. } | Self::PreQueue { .. } | Self::Waiting { .. }
        )
    }

    /// Whether the buyer has a place to move to another device: a ticket or a place in line.
    pub(super) fn in_line(&self) -> bool {
        matches!(self, Self::PreQueue { .. } | Self::Waiting { .. })
    }

    /// The buyer's own place, which claiming one moved here gives up: a position in line,
    /// `Some(None)` for a pre-queue ticket, `None` without a place.
    pub(super) fn own_place(&self) -> Option<Option<u64>> {
        match self {
            Self::Waiting { position, .. } => Some(Some(*position)),
            Self::PreQueue { .. } => Some(None),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ErrorBody, Event, HoldStatus, Moved, Opening, OrderStatus, Room, Zone};

    fn t(at: &str) -> DateTime<Utc> {
        at.parse().unwrap()
    }

    /// A room whose sale opens at 19:00 after a ten-minute pre-queue.
    fn room() -> Room {
        serde_json::from_value(serde_json::json!({
            "enabled": true, "paused": false, "admit_rate_per_second": 10, "tick_ms": 200,
            "hold_ttl_seconds": 300, "seats_per_buyer": 4, "hold_sweep_seconds": 5,
            "prequeue_seconds": 600, "opens_at": "2026-12-01T19:00:00Z",
            "prequeue_opens_at": "2026-12-01T18:50:00Z",
        }))
        .unwrap()
    }

    /// The page's data at 18:00 before anything was answered: no place, no seats, no hold.
    fn entry() -> EventEntry {
        EventEntry {
            event: Event {
                id: "e1".into(),
                name: "Night".into(),
                starts_at: t("2026-12-01T20:00:00Z"),
                room: room(),
                zone: Zone::default(),
                currency: "EUR".into(),
                language: Default::default(),
            },
            queue: None,
            seats: None,
            now: t("2026-12-01T18:00:00Z"),
            arriving: false,
            hold: None,
            order: None,
            forms: None,
            moved_at: None,
        }
    }

    /// A place in line at `position`, with the estimate and its band given, and a drawn
    /// entrant's ticket and arrival.
    fn place(
        position: u64,
        estimate: Option<u64>,
        band: Option<[u64; 2]>,
        (ticket, arrival): (Option<&str>, Option<u64>),
    ) -> QueueStatus {
        QueueStatus::Waiting {
            position,
            estimated_wait_seconds: estimate,
            estimate_range_seconds: band,
            paused: false,
            recovered: false,
            arrival,
            outlook: Some(Outlook::Likely),
            ticket: ticket.map(str::to_owned),
            poll_within_seconds: None,
            refresh_seconds: None,
        }
    }

    /// The page's data once admitted, with the seat map.
    fn choosing() -> EventEntry {
        EventEntry {
            queue: Some(admitted()),
            seats: Some(map()),
            ..entry()
        }
    }

    fn waiting(position: u64) -> QueueStatus {
        place(
            position,
            Some(position / 10),
            Some([position / 20, position / 5]),
            (None, None),
        )
    }

    /// The band and the draw the waiting room shows for a line's answer.
    fn shown(status: &QueueStatus) -> (Option<[u64; 2]>, Option<(String, u64)>) {
        match Stage::after_line(status) {
            Some(Stage::Waiting {
                estimate, drawn, ..
            }) => (estimate, drawn),
            other => panic!("not waiting: {other:?}"),
        }
    }

    fn admitted() -> QueueStatus {
        QueueStatus::Admitted {
            admitted: true,
            admission_token: "token".into(),
            expires_at: t("2026-12-01T19:10:00Z"),
            recovered: false,
            handoff_url: None,
        }
    }

    fn pre_queue() -> QueueStatus {
        QueueStatus::PreQueue {
            opens_at: t("2026-12-01T19:00:00Z"),
            ticket: "5f0c".into(),
            position: None,
            estimated_wait_seconds: None,
        }
    }

    fn map() -> Deferred<SeatRuns> {
        Deferred::Ready(SeatRuns::new("e1"))
    }

    fn hold() -> Deferred<Hold> {
        Deferred::Ready(Hold {
            hold_id: "h1".into(),
            event_id: "e1".into(),
            seat_ids: vec!["3".into()],
            expires_at: t("2026-12-01T19:05:00Z"),
            total_cents: 4500,
            status: HoldStatus::Active,
            seats: Vec::new(),
        })
    }

    fn order() -> Deferred<Order> {
        Deferred::Ready(Order {
            order_id: "o1".into(),
            hold_id: "h1".into(),
            status: OrderStatus::Confirmed,
            total_cents: 4500,
        })
    }

    /// One of every stage, in the order a night goes through them.
    fn every_stage() -> [Stage; 9] {
        [
            Stage::NotOpen {
                opens_at: t("2026-12-01T19:00:00Z"),
                prequeue_opens_at: t("2026-12-01T18:50:00Z"),
            },
            Stage::after_line(&pre_queue()).unwrap(),
            Stage::after_line(&waiting(7)).unwrap(),
            Stage::SoldOut,
            Stage::Admitted,
            Stage::Moved(t("2026-12-01T19:02:00Z")),
            Stage::Choosing(map()),
            Stage::Holding(hold()),
            Stage::Confirmed(order(), hold()),
        ]
    }

    #[test]
    fn no_place_before_the_pre_queue_counts_down_to_the_rooms_opening() {
        assert_eq!(
            Stage::of(&entry()),
            Stage::NotOpen {
                opens_at: t("2026-12-01T19:00:00Z"),
                prequeue_opens_at: t("2026-12-01T18:50:00Z"),
            }
        );
        // A room without an opening time counts to the server's now (the next poll joins).
        let mut open_now = entry();
        open_now.event.room.opens_at = None;
        open_now.event.room.prequeue_opens_at = None;
        assert_eq!(
            Stage::of(&open_now),
            Stage::NotOpen {
                opens_at: open_now.now,
                prequeue_opens_at: open_now.now,
            }
        );
    }

    #[test]
    fn a_pre_queue_answer_shows_the_ticket_until_the_draw() {
        let stage = Stage::PreQueue {
            ticket: "5f0c".into(),
            opens_at: t("2026-12-01T19:00:00Z"),
        };
        assert_eq!(Stage::after_line(&pre_queue()), Some(stage.clone()));
        let queue = Some(pre_queue());
        assert_eq!(Stage::of(&EventEntry { queue, ..entry() }), stage);
    }

    #[test]
    fn a_waiting_answer_shows_the_place_and_the_band_of_the_wait() {
        let stage = Stage::Waiting {
            position: 200,
            estimate: Some([10, 40]),
            outlook: Some(Outlook::Likely),
            drawn: None,
            about: false,
            refresh: 3,
            arrival: None,
            poll_within: 3,
        };
        assert_eq!(Stage::after_line(&waiting(200)), Some(stage.clone()));
        let queue = Some(waiting(200));
        assert_eq!(Stage::of(&EventEntry { queue, ..entry() }), stage);
    }

    #[test]
    fn a_wait_without_its_band_is_the_estimate_alone_and_a_paused_one_has_none() {
        let band = |estimate, band| shown(&place(200, estimate, band, (None, None))).0;
        assert_eq!(band(Some(20), Some([10, 40])), Some([10, 40]));
        assert_eq!(band(Some(20), None), Some([20, 20]));
        assert_eq!(band(None, None), None, "paused");
    }

    #[test]
    fn a_drawn_entrant_sees_the_ticket_and_the_place_the_draw_gave_it() {
        let drawn = |drawn| shown(&place(3, Some(1), Some([1, 1]), drawn)).1;
        assert_eq!(drawn((Some("5f0c"), Some(3))), Some(("5f0c".into(), 3)));
        assert_eq!(drawn((None, Some(3))), None, "an arrival without a draw");
        assert_eq!(drawn((Some("5f0c"), None)), None);
    }

    #[test]
    fn a_sold_out_answer_ends_the_line() {
        let sold_out = QueueStatus::SoldOut;
        assert_eq!(Stage::after_line(&sold_out), Some(Stage::SoldOut));
        let queue = Some(sold_out);
        assert_eq!(Stage::of(&EventEntry { queue, ..entry() }), Stage::SoldOut);
    }

    #[test]
    fn an_admitted_answer_leaves_the_next_stage_to_the_seat_map() {
        // Following the line, the page asks for the map and shows it (`Choosing`).
        assert_eq!(Stage::after_line(&admitted()), None);
        // A claimed place, or a page rendered without the map, shows that it is coming.
        assert_eq!(Stage::at(&admitted()), Stage::Admitted);
        let queue = Some(admitted());
        assert_eq!(Stage::of(&EventEntry { queue, ..entry() }), Stage::Admitted);
    }

    #[test]
    fn a_line_answer_after_a_claim_is_shown_as_any_line_answer() {
        for status in [waiting(7), pre_queue(), QueueStatus::SoldOut] {
            assert_eq!(Some(Stage::at(&status)), Stage::after_line(&status));
        }
    }

    #[test]
    fn an_admitted_answer_opens_the_seat_map_once_it_came() {
        assert_eq!(Stage::of(&choosing()), Stage::Choosing(map()));
        // A room that lets everyone in sends the map without a place in line.
        let everyone = EventEntry {
            queue: None,
            ..choosing()
        };
        assert_eq!(Stage::of(&everyone), Stage::Choosing(map()));
    }

    #[test]
    fn a_hold_made_shows_the_held_seats_over_the_seat_map() {
        let held = EventEntry {
            hold: Some(hold()),
            ..choosing()
        };
        assert_eq!(Stage::of(&held), Stage::Holding(hold()));
    }

    #[test]
    fn a_paid_hold_is_confirmed_and_an_order_alone_is_no_stage() {
        let paid = EventEntry {
            hold: Some(hold()),
            order: Some(order()),
            ..choosing()
        };
        assert_eq!(Stage::of(&paid), Stage::Confirmed(order(), hold()));
        let without_hold = EventEntry { hold: None, ..paid };
        assert_eq!(Stage::of(&without_hold), Stage::Choosing(map()));
    }

    #[test]
    fn a_released_or_ended_hold_goes_back_to_the_map_and_an_ended_admission_to_the_line() {
        // The hold is gone from the page's data; the seat map is what is left.
        assert_eq!(Stage::of(&choosing()), Stage::Choosing(map()));
        let queue = Some(waiting(40));
        assert_eq!(
            Stage::of(&EventEntry { queue, ..entry() }),
            Stage::after_line(&waiting(40)).unwrap()
        );
    }

    #[test]
    fn a_place_that_moved_away_says_so_whatever_else_the_page_has() {
        let at = t("2026-12-01T19:02:00Z");
        let moved = EventEntry {
            hold: Some(hold()),
            moved_at: Some(at),
            ..choosing()
        };
        assert_eq!(Stage::of(&moved), Stage::Moved(at));
    }

    #[test]
    fn a_sale_still_closed_counts_down_again_to_its_new_opening() {
        let mut e = ErrorBody::new("not_open", "Not yet.");
        e.opening = Some(Box::new(Opening {
            opens_at: t("2026-12-01T20:00:00Z"),
            prequeue_opens_at: t("2026-12-01T19:50:00Z"),
        }));
        assert_eq!(
            Stage::after_refusal(&e),
            Some(Stage::NotOpen {
                opens_at: t("2026-12-01T20:00:00Z"),
                prequeue_opens_at: t("2026-12-01T19:50:00Z"),
            })
        );
        assert_eq!(
            Stage::after_refusal(&ErrorBody::new("not_open", "Not yet.")),
            None,
            "without its times the countdown stays"
        );
    }

    #[test]
    fn a_place_moved_to_another_device_ends_the_line_for_this_page() {
        let at = t("2026-12-01T19:02:00Z");
        let mut e = ErrorBody::new("not_in_queue", "Moved.");
        e.moved = Some(Box::new(Moved {
            moved: true,
            moved_at: at,
        }));
        assert_eq!(Stage::after_refusal(&e), Some(Stage::Moved(at)));
        e.moved = Some(Box::new(Moved {
            moved: false,
            moved_at: at,
        }));
        assert_eq!(Stage::after_refusal(&e), None);
    }

    #[test]
    fn other_refusals_leave_the_stage_as_it_is() {
        for code in ["not_in_queue", "no_device_key", "rate_limited", "network"] {
            assert_eq!(
                Stage::after_refusal(&ErrorBody::new(code, "No.")),
                None,
                "{code}"
            );
        }
    }

    #[test]
    fn only_the_stages_before_the_turn_follow_the_line_and_only_a_place_can_move() {
        let got: Vec<(bool, bool, Option<Option<u64>>)> = every_stage()
            .iter()
            .map(|s| (s.follows_the_line(), s.in_line(), s.own_place()))
            .collect();
        assert_eq!(
            got,
            [
                (true, false, None),
                (true, true, Some(None)),
                (true, true, Some(Some(7))),
                (false, false, None),
                (false, false, None),
                (false, false, None),
                (false, false, None),
                (false, false, None),
                (false, false, None),
            ]
        );
    }
}
