//! The opening of a sale and its draw (DESIGN.md "The opening and the draw"; API.md "Before
//! the sale opens"). A room with `opens_at` gives no place in line before it: from
//! `prequeue_opens_at` a join gets a random ticket instead (the pre-queue, in the join script
//! of `queue`), and once the sale opens the holder of the event's ticker lock makes the draw:
//! every entrant goes into the line at its place in the order of SHA-256(seed ":" ticket)
//! ([`proof`]), ahead of everyone who joined after the opening. `GET /api/events/{id}/draw`
//! publishes it.
//!
//! Invariants:
//! - The commitment (hex SHA-256 of a random 32-byte secret) is made with the first
//!   `opens_at`, kept in Postgres and never changed; the secret is published with the draw,
//!   never before.
//! - Once the pre-queue opened, the opening may be postponed, never brought forward, and the
//!   pre-queue stays open until the draw (a postponement lengthens it); once the sale opened,
//!   the opening no longer changes ([`settle`]).
//! - The draw is made once, fenced like an admission tick (DESIGN.md 4): one script that
//!   checks the lock's owner and that no draw was made writes its record and puts the head of
//!   its order in line; the rest goes in behind it a chunk at a time, each chunk fenced the
//!   same way and placed only right after the record's last place (`placed`). So the first
//!   admissions of a draw of a million come on the tick that makes it, not after a million
//!   writes. A drawer that dies half-way leaves a prefix of the order in line, and the next
//!   leader (which recomputes the same order: it depends only on the seed and the tickets)
//!   goes on from its end.
//! - The draw reads the entrants as this instance's ticks read them ahead ([`prefetch`]) and
//!   the entries since, only when these account for every entrant; else the entrants' hash
//!   whole. The entrants are final once the sale opened (Redis's clock), and the draw's
//!   script checks their count.
//! - Nobody is admitted before the draw, nor past its last place given (the admit script
//!   reads the record); an entrant not yet placed is told the draw is being made, and those
//!   who joined after the opening count them ahead. The draw is published once its order is
//!   all in line.
//! - Who entered is judged by Redis's clock (the join script); whether the draw is due, the
//!   operator's changes and the beacon by Postgres's: the draw reads the beacon under the draw
//!   row's lock once Postgres's clock passed `opens_at`, and setting a beacon takes that lock
//!   and is refused from then on, so the beacon drawn with is the last one accepted.
//! - A paused room draws at its opening too (its ticks run, admitting nobody): the entrants
//!   learn their places, and admission starts when the operator resumes.
//!
//! The draw itself is made in `drawing` ([`draw`]), the operator's changes to an opening and
//! its beacon are judged in `changes`, a made draw is kept in Postgres in `archive`, and
//! `routes` publishes it.

mod archive;
pub mod beacon;
mod changes;
mod drawing;
pub mod proof;
pub mod published;
mod routes;
pub mod secret;
pub mod state;
pub mod verify;

pub use archive::archive;
pub use changes::{check_round_after, settle, update_draw};
pub use drawing::{Drawn, PLACING_CHUNK, draw, prefetch};
pub use published::Published;
pub use routes::{Api, published, router};
pub use secret::{SecretKey, commit};
pub use state::Opening;
