//! The seat map, in two forms: [`SeatMap`], `GET /api/events/{id}/seats` as API.md writes it
//! (a JSON object a seat), and [`SeatRuns`], the same map in runs (`?form=runs`), which the
//! buyer's page reads: an arena of 20,000 seats is 1.3 MB in the first form and about 45 KB in
//! the second, which a phone reads in a moment.
//!
//! Invariants: a run holds seats of one row with consecutive ids and numbers and one price,
//! one letter a seat for its state (`a`vailable, `h`eld, `s`old; no other letter is read);
//! [`SeatRuns::push`] is the one way a map is built (the server's, from its rows), and
//! [`SeatRuns::map`] gives back every seat pushed, in order, with its id, number, price and
//! state. The overview's figures ([`SectionView::summary`]) count the seats the map shows.

use serde::{Deserialize, Serialize};

/// A seat's state on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum SeatStatus {
    Available,
    Held,
    Sold,
}

impl SeatStatus {
    /// The word the page and the API use.
    pub fn word(self) -> &'static str {
        match self {
            Self::Available => "available",
            Self::Held => "held",
            Self::Sold => "sold",
        }
    }

    fn letter(self) -> char {
        match self {
            Self::Available => 'a',
            Self::Held => 'h',
            Self::Sold => 's',
        }
    }

    fn of_letter(letter: char) -> Option<Self> {
        match letter {
            'a' => Some(Self::Available),
            'h' => Some(Self::Held),
            's' => Some(Self::Sold),
            _ => None,
        }
    }
}

/// One seat of `GET /api/events/{id}/seats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatView {
    pub id: String,
    pub number: u32,
    pub price_cents: i64,
    pub status: SeatStatus,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RowView {
    pub label: String,
    pub seats: Vec<SeatView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SectionView {
    pub name: String,
    pub rows: Vec<RowView>,
}

/// `GET /api/events/{id}/seats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatMap {
    pub event_id: String,
    pub sections: Vec<SectionView>,
}

/// What the overview of sections says of one: its shape, its prices and the seats left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectionSummary {
    pub rows: u32,
    /// Seats in its longest row.
    pub widest: u32,
    pub seats: u32,
    pub available: u32,
    /// The lowest and highest price of its seats (0 and 0 for a section without seats).
    pub min_price_cents: i64,
    pub max_price_cents: i64,
}

impl SectionView {
    pub fn summary(&self) -> SectionSummary {
        let seats = || self.rows.iter().flat_map(|r| &r.seats);
        let prices = || seats().map(|s| s.price_cents);
        SectionSummary {
            rows: self.rows.len() as u32,
            widest: self
                .rows
                .iter()
                .map(|r| r.seats.len() as u32)
                .max()
                .unwrap_or(0),
            seats: seats().count() as u32,
            available: seats()
                .filter(|s| s.status == SeatStatus::Available)
                .count() as u32,
            min_price_cents: prices().min().unwrap_or(0),
            max_price_cents: prices().max().unwrap_or(0),
        }
    }
}

/// A seat as the server reads it, pushed onto a map with [`SeatRuns::push`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seat {
    pub id: i64,
    pub number: u32,
    pub price_cents: i64,
    pub status: SeatStatus,
}

/// `GET /api/events/{id}/seats?form=runs`: the seat map in runs (see the module's doc).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatRuns {
    pub event_id: String,
    pub sections: Vec<SectionRuns>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SectionRuns {
    pub name: String,
    pub rows: Vec<RowRuns>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RowRuns {
    pub label: String,
    pub runs: Vec<Run>,
}

/// Seats of one row with consecutive ids and numbers and one price, written
/// `[first_id, first_number, price_cents, "aahs"]`: a letter a seat, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Run(pub i64, pub u32, pub i64, pub Letters);

/// The states of a run's seats, a letter each; only `a`, `h` and `s` are read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Letters(String);

impl TryFrom<String> for Letters {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        match text.chars().find(|c| SeatStatus::of_letter(*c).is_none()) {
            None => Ok(Self(text)),
            Some(c) => Err(format!("{c:?} is not a seat's state")),
        }
    }
}

impl Run {
    fn seats(&self) -> impl Iterator<Item = Seat> + '_ {
        let Run(first_id, first_number, price_cents, Letters(letters)) = self;
        letters.chars().enumerate().map(move |(i, letter)| Seat {
            id: first_id + i as i64,
            number: first_number + i as u32,
            price_cents: *price_cents,
            // Only the three letters are ever read (`Letters`).
            status: SeatStatus::of_letter(letter).unwrap_or(SeatStatus::Sold),
        })
    }

    /// Whether `seat` goes on the end of this run.
    fn continues(&self, seat: &Seat) -> bool {
        let Run(first_id, first_number, price_cents, Letters(letters)) = self;
        let n = letters.len() as i64;
        *price_cents == seat.price_cents
            && first_id.checked_add(n) == Some(seat.id)
            && i64::from(*first_number) + n == i64::from(seat.number)
    }
}

impl SeatRuns {
    pub fn new(event_id: &str) -> Self {
        Self {
            event_id: event_id.to_owned(),
            sections: Vec::new(),
        }
    }

    /// Adds `seat` after the last one pushed: seats come section by section and row by row,
    /// a section or a row named unlike the last one starts a new one.
    pub fn push(&mut self, section: &str, row: &str, seat: Seat) {
        if self.sections.last().is_none_or(|s| s.name != section) {
            self.sections.push(SectionRuns {
                name: section.to_owned(),
                rows: Vec::new(),
            });
        }
        let rows = &mut self.sections.last_mut().expect("pushed above").rows;
        if rows.last().is_none_or(|r| r.label != row) {
            rows.push(RowRuns {
                label: row.to_owned(),
                runs: Vec::new(),
            });
        }
        let runs = &mut rows.last_mut().expect("pushed above").runs;
        match runs.last_mut() {
            Some(run) if run.continues(&seat) => run.3.0.push(seat.status.letter()),
            _ => runs.push(Run(
                seat.id,
                seat.number,
                seat.price_cents,
                Letters(seat.status.letter().to_string()),
            )),
        }
    }

    /// The map of API.md: every seat, in the order pushed.
    pub fn map(&self) -> SeatMap {
        SeatMap {
            event_id: self.event_id.clone(),
            sections: self
                .sections
                .iter()
                .map(|section| SectionView {
                    name: section.name.clone(),
                    rows: section
                        .rows
                        .iter()
                        .map(|row| RowView {
                            label: row.label.clone(),
                            seats: row
                                .runs
                                .iter()
                                .flat_map(Run::seats)
                                .map(|s| SeatView {
                                    id: s.id.to_string(),
                                    number: s.number,
                                    price_cents: s.price_cents,
                                    status: s.status,
                                })
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seat(id: i64, number: u32, price_cents: i64, status: SeatStatus) -> Seat {
        Seat {
            id,
            number,
            price_cents,
            status,
        }
    }

    #[test]
    fn a_row_of_neighbours_is_one_run_and_a_break_starts_another() {
        let mut runs = SeatRuns::new("e");
        for (id, number, price, status) in [
            (10, 1, 4500, SeatStatus::Available),
            (11, 2, 4500, SeatStatus::Held),
            (12, 3, 4500, SeatStatus::Sold),
            // Another event's seat took id 13: a new run.
            (14, 4, 4500, SeatStatus::Available),
            // Another price.
            (15, 5, 6000, SeatStatus::Available),
            // A gap in the numbers (an aisle).
            (16, 7, 6000, SeatStatus::Available),
        ] {
            runs.push("Stalls", "1", seat(id, number, price, status));
        }
        runs.push("Stalls", "2", seat(17, 1, 4500, SeatStatus::Available));
        runs.push("Circle", "1", seat(18, 1, 3000, SeatStatus::Available));
        assert_eq!(
            serde_json::to_string(&runs).unwrap(),
            r#"{"event_id":"e","sections":[{"name":"Stalls","rows":[{"label":"1","runs":[[10,1,4500,"ahs"],[14,4,4500,"a"],[15,5,6000,"a"],[16,7,6000,"a"]]},{"label":"2","runs":[[17,1,4500,"a"]]}]},{"name":"Circle","rows":[{"label":"1","runs":[[18,1,3000,"a"]]}]}]}"#
        );
        let map = runs.map();
        let stalls = &map.sections[0];
        assert_eq!(
            stalls.rows[0]
                .seats
                .iter()
                .map(|s| (s.id.as_str(), s.number, s.price_cents, s.status.word()))
                .collect::<Vec<_>>(),
            [
                ("10", 1, 4500, "available"),
                ("11", 2, 4500, "held"),
                ("12", 3, 4500, "sold"),
                ("14", 4, 4500, "available"),
                ("15", 5, 6000, "available"),
                ("16", 7, 6000, "available"),
            ]
        );
        assert_eq!(
            stalls.summary(),
            SectionSummary {
                rows: 2,
                widest: 6,
                seats: 7,
                available: 5,
                min_price_cents: 4500,
                max_price_cents: 6000,
            }
        );
    }

    #[test]
    fn a_state_that_is_not_a_letter_of_the_three_is_not_read() {
        let bad = r#"{"event_id":"e","sections":[{"name":"S","rows":[{"label":"1","runs":[[1,1,100,"ax"]]}]}]}"#;
        assert!(serde_json::from_str::<SeatRuns>(bad).is_err());
        let good = bad.replace("ax", "as");
        assert_eq!(
            serde_json::from_str::<SeatRuns>(&good)
                .unwrap()
                .map()
                .sections[0]
                .rows[0]
                .seats[1]
                .status,
            SeatStatus::Sold
        );
    }

    fn status() -> impl Strategy<Value = SeatStatus> {
        prop_oneof![
            Just(SeatStatus::Available),
            Just(SeatStatus::Held),
            Just(SeatStatus::Sold)
        ]
    }

    proptest! {
        /// Whatever seats are pushed (ids and numbers with gaps, prices that change), the map
        /// gives back each of them in order, and its JSON reads back to the same runs.
        #[test]
        fn every_seat_pushed_comes_back(
            seats in proptest::collection::vec(
                (0u8..3, 0u8..3, 1i64..3, 1u32..3, 0i64..2, status()), 0..80)
        ) {
            let mut runs = SeatRuns::new("e");
            let (mut id, mut number, mut pushed) = (1000i64, 0u32, Vec::new());
            for (section, row, id_step, number_step, price, status) in seats {
                id += id_step;
                number += number_step;
                let (section, row) = (format!("S{section}"), format!("{row}"));
                let seat = seat(id, number, 4500 + price * 500, status);
                runs.push(&section, &row, seat);
                pushed.push((section, row, seat));
            }
            let map = runs.map();
            let read: Vec<(String, String, Seat)> = map.sections.iter().flat_map(|s| {
                s.rows.iter().flat_map(move |r| r.seats.iter().map(move |v| (
                    s.name.clone(),
                    r.label.clone(),
                    seat(v.id.parse().unwrap(), v.number, v.price_cents, v.status),
                )))
            }).collect();
            prop_assert_eq!(read, pushed);
            let json = serde_json::to_string(&runs).unwrap();
            prop_assert_eq!(serde_json::from_str::<SeatRuns>(&json).unwrap(), runs);
        }
    }
}
