//! The admission log (issue 18): every admission, in the order it happened, with the arrival
//! number its buyer had and, when the line recorded the joining (`locate.lua` makes the
//! record with the place), the estimate and band the buyer was given then. The night's
//! report (`crate::report`) is computed from it, and anyone can page through it.
//!
//! Invariants: an entry is made in the same Redis step as its admission (`admit.lua`, fenced;
//! `consume.lua` with the room off), numbered `n` 1, 2, ... per event by the same step; the
//! Redis list holds at most `redis::keys::ADMISSION_LOG_CAPACITY` entries (beyond, an
//! admission keeps its number and loses its entry: the gap in `n` shows it); [`flush`] writes entries to Postgres before it
//! drops them from Redis, by number (`trim_log.lua`) and with `on conflict do nothing`, so a
//! flush killed half-way, run twice, or racing another instance's neither loses nor
//! duplicates an entry. Each flush moves at most [`BATCH`] * [`BATCHES`] entries.
//!
//! Known limit: a Redis failover that loses the last admission numbers given would give them
//! again; their entries then meet the rows already written and are dropped.

use std::collections::HashMap;

use app::{estimate::Model, wire::Outlook};
use chrono::{DateTime, Utc};

use crate::{error::Result, queue::state::Line, redis::scripts::TrimLog};

/// Entries read and written in one statement.
pub const BATCH: isize = 2_000;
/// Batches one flush writes at most.
pub const BATCHES: usize = 50;

/// One entry of the log as Postgres keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub n: i64,
    pub arrival: i64,
    pub admitted_at: DateTime<Utc>,
    /// The buyer was skipped at their turn while away and admitted ahead on return.
    pub back_from_away: bool,
    pub joined: Option<Joined>,
    /// The buyer admitted (never published: the report counts the outlook's calibration by
    /// it); `None` in an entry written before the log kept it.
    pub buyer: Option<String>,
}

/// How the admitted buyer joined, as the line recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined {
    pub at: DateTime<Utc>,
    pub estimate: u64,
    pub range: [u64; 2],
    /// The outlook the buyer was told (`None`: the line did not know the seats then).
    pub outlook: Option<Outlook>,
}

impl Joined {
    /// A joining with its model written out: `joined_ms:position:` and the model's record
    /// (`Model::from_record`), as the admission log has it (`joining.lua`) and the report
    /// reads a waiting one; `None` for an empty or unreadable one.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.splitn(3, ':');
        let (at, position, record) = (parts.next()?, parts.next()?, parts.next()?);
        let (band, seats) = Model::from_record(record)?;
        let now_ms = at.parse().ok()?;
        let model = Model {
            band,
            seats,
            now_ms,
        };
        let position = position.parse().ok()?;
        let (estimate, range) = model.wait(position);
        Some(Self {
            at: DateTime::from_timestamp_millis(now_ms)?,
            estimate,
            range,
            outlook: model.outlook(position),
        })
    }
}

/// A waiting buyer's record in the line's joins hash, as `joining.lua` describes it: `back:`
/// once they came back from away, `joined_ms:position:`, the id of the model they were told
/// (`#` and hex digits; the model is kept once under it in the same hash), and `@` with until
/// when they are present once they were seen. A record from before the ids has its model
/// written out, as an admission's entry has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waiting<'a> {
    /// `joined_ms:position:` and the model's id or record; empty when the line did not record
    /// the joining.
    joining: &'a str,
    /// The id under which the joins hash keeps the model, if the record names it by one.
    pub model_id: Option<&'a str>,
}

impl<'a> Waiting<'a> {
    pub fn parse(record: &'a str) -> Self {
        let record = record.strip_prefix("back:").unwrap_or(record);
        let joining = match record.rsplit_once('@') {
            Some((joining, until)) if until.bytes().all(|b| b.is_ascii_digit()) => joining,
            _ => record,
        };
        let model_id = joining.rsplit_once(':').map(|(_, id)| id).filter(|id| {
            id.len() > 1 && id.starts_with('#') && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
        });
        Self { joining, model_id }
    }

    /// The joining, its model read from `models` (id -> model) where the record names it by
    /// its id.
    pub fn joined(&self, models: &HashMap<String, String>) -> Option<Joined> {
        match self.model_id {
            Some(id) => {
                let head = &self.joining[..self.joining.len() - id.len()];
                Joined::parse(&format!("{head}{}", models.get(id)?))
            }
            None => Joined::parse(self.joining),
        }
    }
}

impl Entry {
    /// An entry as the scripts write it: `n:arrival:admitted_ms:`, then `back:` when the
    /// buyer came back from away (skipped at their turn, admitted ahead on return), then, if
    /// recorded, `joined_ms:position:` and the model's record (`Model::from_record`); then
    /// `|` and the buyer.
    pub fn parse(text: &str) -> Option<Self> {
        let (text, buyer) = match text.split_once('|') {
            Some((text, buyer)) => (text, Some(buyer.to_owned())),
            None => (text, None),
        };
        let mut parts = text.splitn(4, ':');
        let n = parts.next()?.parse().ok()?;
        let arrival = parts.next()?;
        // Redis writes a score the size of an arrival number as an integer; a float is read too.
        let arrival = arrival
            .parse()
            .ok()
            .or_else(|| arrival.parse::<f64>().ok().map(|a| a as i64))?;
        let admitted_at = DateTime::from_timestamp_millis(parts.next()?.parse().ok()?)?;
        let rest = parts.next()?;
        let (back_from_away, rest) = match rest.strip_prefix("back:") {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        let joined = Joined::parse(rest);
        Some(Self {
            n,
            arrival,
            admitted_at,
            back_from_away,
            joined,
            buyer,
        })
    }
}

/// Moves `event_id`'s log from Redis to Postgres; returns the entries moved.
pub async fn flush(state: &Line, event_id: &str) -> Result<u64> {
    let key = state.keys.admission_log(event_id);
    let mut redis = state.redis.clone();
    let mut moved = 0;
    for _ in 0..BATCHES {
        let texts: Vec<String> = ::redis::cmd("LRANGE")
            .arg(&key)
            .arg(0)
            .arg(BATCH - 1)
            .query_async(&mut redis)
            .await?;
        let Some(through) = texts.iter().filter_map(|t| number(t)).max() else {
            break;
        };
        let entries: Vec<Entry> = texts.iter().filter_map(|t| Entry::parse(t)).collect();
        if entries.len() < texts.len() {
            tracing::warn!(event = %event_id, unreadable = texts.len() - entries.len(), "admission log entries that cannot be read were dropped");
        }
        write(state, event_id, &entries).await?;
        let _: i64 = TrimLog { event_id, through }
            .invocation(&state.scripts, &state.keys)
            .invoke_async(&mut redis)
            .await?;
        moved += entries.len() as u64;
        if (texts.len() as isize) < BATCH {
            break;
        }
    }
    Ok(moved)
}

/// The number `n` an entry starts with.
fn number(text: &str) -> Option<i64> {
    text.split(':').next()?.parse().ok()
}

/// Writes `entries` in one statement; rows already there stay as they are.
async fn write(state: &Line, event_id: &str, entries: &[Entry]) -> Result<()> {
    let joined = |f: fn(&Joined) -> i64| -> Vec<Option<i64>> {
        entries.iter().map(|e| e.joined.as_ref().map(f)).collect()
    };
    fn seconds(s: u64) -> i64 {
        i64::try_from(s).unwrap_or(i64::MAX)
    }
    let outlook = |e: &Entry| {
        let told = e.joined.as_ref()?.outlook?;
        Some(told.name())
    };
    sqlx::query(
        "insert into admission (event_id, n, arrival, admitted_at, joined_at, \
             estimate_seconds, estimate_low_seconds, estimate_high_seconds, back_from_away, \
             buyer_id, outlook) \
         select $1, * from unnest($2::bigint[], $3::bigint[], $4::timestamptz[], \
             $5::timestamptz[], $6::bigint[], $7::bigint[], $8::bigint[], $9::boolean[], \
             $10::text[], $11::text[]) \
         on conflict (event_id, n) do nothing",
    )
    .bind(event_id)
    .bind(entries.iter().map(|e| e.n).collect::<Vec<_>>())
    .bind(entries.iter().map(|e| e.arrival).collect::<Vec<_>>())
    .bind(entries.iter().map(|e| e.admitted_at).collect::<Vec<_>>())
    .bind(
        entries
            .iter()
            .map(|e| e.joined.as_ref().map(|j| j.at))
            .collect::<Vec<_>>(),
    )
    .bind(joined(|j| seconds(j.estimate)))
    .bind(joined(|j| seconds(j.range[0])))
    .bind(joined(|j| seconds(j.range[1])))
    .bind(entries.iter().map(|e| e.back_from_away).collect::<Vec<_>>())
    .bind(entries.iter().map(|e| e.buyer.clone()).collect::<Vec<_>>())
    .bind(entries.iter().map(outlook).collect::<Vec<_>>())
    .execute(&state.db)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use app::estimate::{Band, Seats};

    use super::*;

    #[test]
    fn a_waiting_record_names_its_model_by_id_and_reads_as_the_joining_written_out() {
        let model = Band::exact(10).record();
        let written_out = Joined::parse(&format!("1764000000000:95:{model}")).unwrap();
        let models = HashMap::from([("#0123abcdef456789".to_owned(), model.clone())]);
        for record in [
            "1764000000000:95:#0123abcdef456789@1764000060000",
            "back:1764000000000:95:#0123abcdef456789@1764000060000",
            "1764000000000:95:#0123abcdef456789",
        ] {
            let waiting = Waiting::parse(record);
            assert_eq!(waiting.model_id, Some("#0123abcdef456789"), "{record}");
            let joined = waiting.joined(&models).unwrap();
            assert_eq!(
                (joined.at, joined.estimate, joined.range),
                (written_out.at, written_out.estimate, written_out.range),
                "{record}"
            );
        }
        // A record from before the ids has its model in it; one never recorded, only seen,
        // reads as no joining; a model the hash lacks gives none.
        let before = format!("1764000000000:95:{model}@1764000060000");
        assert_eq!(Waiting::parse(&before).model_id, None);
        assert!(Waiting::parse(&before).joined(&HashMap::new()).is_some());
        assert!(
            Waiting::parse("back:@1764000060000")
                .joined(&models)
                .is_none()
        );
        let unknown = Waiting::parse("1764000000000:95:#ffff@1764000060000");
        assert_eq!(unknown.model_id, Some("#ffff"));
        assert!(unknown.joined(&models).is_none());
        assert_eq!(Waiting::parse("1764000000000:95:#@1").model_id, None);
        assert_eq!(Waiting::parse("1764000000000:95:#not-hex").model_id, None);
    }

    #[test]
    fn an_entry_with_its_joining_gives_the_estimate_and_band_of_its_answer() {
        let band = Band::exact(10);
        let text = format!(
            "7:1764000000123456:1764000060000:1764000000000:95:{}",
            band.record()
        );
        let entry = Entry::parse(&text).unwrap();
        assert_eq!(entry.n, 7);
        assert_eq!(entry.arrival, 1_764_000_000_123_456);
        let joined = entry.joined.unwrap();
        assert_eq!((joined.estimate, joined.range), band.wait_without_seats(95));
        assert_eq!(joined.at.timestamp(), 1_764_000_000);
        assert_eq!(joined.outlook, None, "the seats were not known");
    }

    #[test]
    fn an_entry_with_the_seats_gives_the_models_estimate_and_outlook() {
        let band = Band {
            hold_seconds: 60,
            ..Band::exact(10)
        };
        // 5 seats free, 10 held until a minute after the joining, 1 seat a hold.
        let seats = "0:5:10:0:10:10:1764000060:1764000060";
        let text = format!(
            "8:9:1764000100000:1764000000000:20:{}/{seats}",
            band.record()
        );
        let joined = Entry::parse(&text).unwrap().joined.unwrap();
        let model = Model {
            band,
            seats: Seats::from_record(seats),
            now_ms: 1_764_000_000_000,
        };
        assert_eq!((joined.estimate, joined.range), model.wait(20));
        assert!(joined.estimate >= 60, "behind the 5 free seats: {joined:?}");
        assert_eq!(joined.outlook, model.outlook(20));
    }

    #[test]
    fn an_entry_without_a_recorded_joining_has_no_estimate() {
        let entry = Entry::parse("3:2:1764000060000:").unwrap();
        assert_eq!((entry.n, entry.arrival, entry.joined), (3, 2, None));
        assert_eq!(entry.buyer, None);
        let entry = Entry::parse("3:2:1764000060000:|b:1|x").unwrap();
        assert_eq!(entry.buyer.as_deref(), Some("b:1|x"));
        assert!(!entry.back_from_away);
        assert_eq!(Entry::parse("x:2:3:"), None);
    }

    #[test]
    fn a_buyer_back_from_away_is_marked_with_or_without_a_recorded_joining() {
        let bare = Entry::parse("4:2:1764000060000:back:").unwrap();
        assert!(bare.back_from_away && bare.joined.is_none());
        let text = format!(
            "5:3:1764000060000:back:1764000000000:2:{}",
            Band::exact(10).record()
        );
        let told = Entry::parse(&text).unwrap();
        assert!(told.back_from_away);
        assert_eq!(
            told.joined.unwrap().estimate,
            Band::exact(10).wait_without_seats(2).0
        );
    }
}
