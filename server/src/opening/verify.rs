//! `anteroom verify-draw --url URL --event ID [--ticket T]`: checks an event's draw from the
//! public endpoint alone (`GET /api/events/{id}/draw`) with [`proof::verify`], so that a buyer,
//! a journalist or a regulator needs nothing from us but that answer. The on-sale simulator
//! checks its night's draw with the same two functions ([`fetch`], [`check`]).

use app::wire::{Draw, DrawState};

use super::proof::{self, Verified};

/// The draw of `event` as `url` (an Anteroom's base URL) publishes it.
pub async fn fetch(url: &str, event: &str) -> Result<Draw, String> {
    let endpoint = format!("{}/api/events/{event}/draw", url.trim_end_matches('/'));
    let answer = reqwest::get(&endpoint)
        .await
        .map_err(|e| format!("{endpoint}: {e}"))?;
    let status = answer.status();
    let body = answer
        .text()
        .await
        .map_err(|e| format!("{endpoint}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{endpoint} answered {status}: {body}"));
    }
    serde_json::from_str(&body).map_err(|e| format!("{endpoint} is not a draw: {e}"))
}

/// What the check finds, in lines for people: `Ok` when the draw is verified (and `ticket`, if
/// given, is in it, with its place); `Err` with what does not match, or why nothing could be
/// checked yet.
pub fn check(draw: &Draw, ticket: Option<&str>) -> Result<Vec<String>, Vec<String>> {
    if draw.state == DrawState::Pending {
        return Err(vec![format!(
            "the draw is not made yet ({} entrants so far); its commitment {} was published \
             at {}",
            draw.entrants,
            draw.commitment,
            draw.committed_at.to_rfc3339()
        )]);
    }
    let Verified { entrants } = proof::verify(draw)?;
    let beacon = match &draw.beacon_source {
        // `proof::verify` checked the round's signature and that the beacon is its randomness.
        Some(source) => format!(
            "beacon {} (drand round {} of chain {}, its signature verified)",
            draw.beacon, source.round, source.chain_hash
        ),
        None if draw.beacon.is_empty() => "no beacon".to_owned(),
        None => format!("beacon {:?}", draw.beacon),
    };
    let mut lines = vec![
        format!("draw verified: {entrants} entrants"),
        format!("commitment {}, {beacon}", draw.commitment),
    ];
    if let Some(ticket) = ticket {
        match Verified::place_of(draw, ticket) {
            Some(place) => lines.push(format!("ticket {ticket}: place {place} of {entrants}")),
            None => {
                lines.push(format!("ticket {ticket} is not among the {entrants} drawn"));
                return Err(lines);
            }
        }
    }
    Ok(lines)
}
