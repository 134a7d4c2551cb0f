//! The buyer's turn: a hold request and what it chooses, the hold, and the order
//! its checkout makes. A hold request is checked here ([`HoldRequest::choice`]) so that the
//! server locks seats only for a well-formed one.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ErrorBody, rfc3339, unprocessable};

/// `POST /api/events/{id}/holds` body: either `seat_ids` (chosen seats) or `section` and
/// `quantity` (the best available). [`HoldRequest::choice`] tells which, or why neither.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct HoldRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<u32>,
}

/// What a well-formed hold request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HoldChoice {
    /// Seat ids, distinct, in ascending order (the order rows are locked in).
    Seats(Vec<i64>),
    BestAvailable {
        section: String,
        quantity: u32,
    },
}

impl HoldRequest {
    /// The request's choice; a malformed one (both forms, neither, no seats, a seat named
    /// twice, an id that cannot name a seat, a zero quantity) is `unprocessable`.
    pub fn choice(&self) -> Result<HoldChoice, ErrorBody> {
        match (&self.seat_ids, &self.section, self.quantity) {
            (Some(ids), None, None) => {
                if ids.is_empty() {
                    return Err(unprocessable("seat_ids must name at least one seat"));
                }
                let mut parsed = ids
                    .iter()
                    .map(|id| id.parse::<i64>().ok().filter(|n| *n > 0))
                    .collect::<Option<Vec<i64>>>()
                    .ok_or_else(|| unprocessable("seat_ids contains an id that is not a seat"))?;
                parsed.sort_unstable();
                let before = parsed.len();
                parsed.dedup();
                if parsed.len() != before {
                    return Err(unprocessable("seat_ids names a seat twice"));
                }
                Ok(HoldChoice::Seats(parsed))
            }
            (None, Some(section), Some(quantity)) => {
                if quantity == 0 {
                    return Err(unprocessable("quantity must be at least 1"));
                }
                Ok(HoldChoice::BestAvailable {
                    section: section.trim().to_owned(),
                    quantity,
                })
            }
            _ => Err(unprocessable(
                "send either {\"seat_ids\": [...]} or {\"section\": ..., \"quantity\": n}",
            )),
        }
    }

    /// How many seats the request asks for.
    pub fn seat_count(choice: &HoldChoice) -> usize {
        match choice {
            HoldChoice::Seats(ids) => ids.len(),
            HoldChoice::BestAvailable { quantity, .. } => *quantity as usize,
        }
    }
}

/// The state of a hold: the JSON of API.md and, through the server's `sql::Text`, the `status`
/// column of the `hold` table (the same four words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum HoldStatus {
    Active,
    Expired,
    Released,
    Purchased,
}

/// A held seat, with where it is, for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct HeldSeat {
    pub id: String,
    pub section: String,
    pub row: String,
    pub number: u32,
    pub price_cents: i64,
}

/// A hold, as `POST /api/events/{id}/holds` and `GET /api/holds/{id}` answer it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Hold {
    pub hold_id: String,
    pub event_id: String,
    pub seat_ids: Vec<String>,
    #[serde(deserialize_with = "rfc3339::at")]
    pub expires_at: DateTime<Utc>,
    pub total_cents: i64,
    pub status: HoldStatus,
    pub seats: Vec<HeldSeat>,
}

/// `POST /api/holds/{id}/checkout` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Order {
    pub order_id: String,
    pub hold_id: String,
    pub status: OrderStatus,
    pub total_cents: i64,
}

/// `POST /api/holds/{id}/checkout` answer with a provider whose buyer confirms the payment on
/// the page (Stripe): the page confirms the card with the provider's script using
/// `client_secret`, then asks again and gets the [`Order`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentAction {
    pub status: ActionStatus,
    pub client_secret: String,
    pub payment_id: String,
}

/// What a [`PaymentAction`] asks of the page: always `requires_action`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum ActionStatus {
    RequiresAction,
}

/// What `POST /api/holds/{id}/checkout` answers: the order, or (Stripe) what the page must do
/// before it. The two are told apart by `status` (`confirmed`, `requires_action`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum CheckoutAnswer {
    Order(Order),
    Action(PaymentAction),
}

/// The state of an order. An order exists only once its sale is recorded, so it is always
/// `confirmed`; the type says so instead of a free string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum OrderStatus {
    Confirmed,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_request_is_either_chosen_seats_or_best_available() {
        let seats = HoldRequest {
            seat_ids: Some(vec!["9".into(), "3".into()]),
            ..HoldRequest::default()
        };
        assert_eq!(seats.choice().unwrap(), HoldChoice::Seats(vec![3, 9]));
        let best = HoldRequest {
            section: Some("A".into()),
            quantity: Some(2),
            ..HoldRequest::default()
        };
        assert!(matches!(
            best.choice().unwrap(),
            HoldChoice::BestAvailable { quantity: 2, .. }
        ));
        for bad in [
            HoldRequest::default(),
            HoldRequest {
                seat_ids: Some(vec![]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["1".into(), "1".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["x".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["-4".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                section: Some("A".into()),
                quantity: Some(0),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["1".into()]),
                section: Some("A".into()),
                quantity: Some(1),
            },
        ] {
            assert!(bad.choice().is_err(), "{bad:?}");
        }
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            /// Any list of strings: accepted exactly when every one is a positive integer and
            /// none repeats, and then as the sorted ids.
            #[test]
            fn seat_ids_parse_exactly_when_positive_and_distinct(
                ids in proptest::collection::vec(
                    prop_oneof!["[0-9]{1,20}", "-?[0-9]{1,5}", "\\PC{0,8}"], 0..12)
            ) {
                let request = HoldRequest { seat_ids: Some(ids.clone()), ..HoldRequest::default() };
                let parsed: Option<Vec<i64>> =
                    ids.iter().map(|i| i.parse::<i64>().ok().filter(|n| *n > 0)).collect();
                let expected = parsed.filter(|p| {
                    !p.is_empty() && p.iter().collect::<std::collections::HashSet<_>>().len() == p.len()
                });
                match (request.choice(), expected) {
                    (Ok(HoldChoice::Seats(got)), Some(mut want)) => {
                        want.sort_unstable();
                        prop_assert_eq!(got, want);
                    }
                    (Err(e), None) => prop_assert_eq!(e.error, "unprocessable"),
                    (got, want) => prop_assert!(false, "{:?} but expected {:?}", got, want),
                }
            }
        }
    }
}
