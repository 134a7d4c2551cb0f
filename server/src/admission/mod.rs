//! Admission: the ticker that lets buyers out of the line at N a second (see [`ticker`]), at
//! the room settings every instance applies within a second (`events::rooms`; the operator
//! changes them through `crate::admin`), the admission log the night's report reads ([`log`]), the
//! night's series kept in Postgres ([`archive`]), and the retirement of a line after its night
//! ([`retire`]).
//!
//! N is the rate in force (`queue::rates::Board::in_force`): the operator's `admit_rate_per_second`, or with
//! the room's `auto_rate` the rate the ticker's leader steers once a second by the rule of
//! [`rate`] (AIMD with a dead band: cut by a third when the hold path passes its limits, one
//! step up while holds are quick and fewer buyers shop than the target, hold in between; why
//! that rule, there), from the hold path's health measured on every instance ([`signals`])
//! and the buyers shopping. The leader keeps the rate in Redis with its reason (`Keys::rate`);
//! every instance reads it once a second, so the estimates agree with the ticker.
//! Invariant: the rate in force is always within the room's bounds while `auto_rate` is on,
//! and exactly the operator's N while it is off (the automatic proposal is then only shown).
//!
//! The free seats bound the admissions only by what is measured (N a second while seats are
//! free): a tick admits no more buyers than the free seats less those of the buyers really on
//! the seat map (opened it, `seatmap`), each counted for the seats this night's holds took on
//! average (1 before the first hold: `app::estimate::Seats::taken_by_a_shopper_milli`). An
//! admitted buyer who never opens the map holds nobody back. With no seat free, admission
//! waits for the seats that come back.

pub mod archive;
pub mod log;
pub mod probe;
pub mod rate;
pub mod rest;
pub mod retire;
pub mod signals;
pub mod ticker;
