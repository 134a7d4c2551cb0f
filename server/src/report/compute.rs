//! The report's computation: one ordered read of the event's admission log in Postgres, the
//! models the ticker's leader kept each second (for the estimate a minute before), and the
//! outlooks told to the buyers still in line (Redis, at most [`WAITING_READ_MAX`] of them),
//! added up by [`super::Tally`]. Read only: it writes nothing.

use std::collections::HashMap;

use app::{
    estimate::Model,
    wire::{OutlookReport, Report, Told},
};
use chrono::{DateTime, Utc};

use super::{Public, Sample, Tally};
use crate::{admission::log::Waiting, error::Result};

type Row = (
    i64,
    bool,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The report of `event_id`, from its admission log in Postgres and its join count in Redis.
pub async fn compute(state: &Public, event_id: &str) -> Result<Report> {
    let joined: Option<u64> = ::redis::cmd("GET")
        .arg(state.keys.joined(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    // The places made in the lines retired before (their count left Redis with them).
    let joined_before: i64 =
        sqlx::query_scalar("select joined_before from event_line where event_id = $1")
            .bind(event_id)
            .fetch_optional(&state.db)
            .await?
            .unwrap_or(0);
    let rows = sqlx::query_as::<_, Row>(
        "select arrival, back_from_away, admitted_at, joined_at, estimate_seconds, \
             estimate_low_seconds, estimate_high_seconds \
         from admission where event_id = $1 order by n",
    )
    .bind(event_id)
    .fetch_all(&state.db)
    .await?;
    let mut tally = Tally::default();
    let times: Vec<(i64, i64)> = rows.iter().map(|r| (r.0, r.2.timestamp_millis())).collect();
    let ahead = places_ahead(&times, LEAD_MS);
    let models = models(state, event_id, &rows).await?;
    for (i, (arrival, back_from_away, admitted_at, joined_at, estimate, low, high)) in
        rows.into_iter().enumerate()
    {
        let told = joined_at.zip(estimate).zip(low.zip(high));
        let admitted_ms = admitted_at.timestamp_millis();
        // A minute before the admission, for a buyer who had joined by then.
        let before = joined_at
            .filter(|j| admitted_ms - j.timestamp_millis() >= LEAD_MS)
            .and_then(|_| {
                let then_ms = admitted_ms - LEAD_MS;
                let record = models.get(&then_ms.div_euclid(1000))?;
                let (band, seats) = Model::from_record(record)?;
                let model = Model {
                    band,
                    seats,
                    now_ms: then_ms,
                };
                let (estimate, [low, high]) = model.wait(ahead[i]);
                Some(Sample {
                    real_seconds: LEAD_MS as f64 / 1000.0,
                    estimate: estimate as f64,
                    range: [low as f64, high as f64],
                })
            });
        tally.add(
            arrival,
            back_from_away,
            told.map(|((joined_at, estimate), (low, high))| Sample {
                real_seconds: (admitted_at - joined_at).num_milliseconds() as f64 / 1000.0,
                estimate: estimate as f64,
                range: [low as f64, high as f64],
            }),
            before,
        );
    }
    let mut report = tally.report(joined.unwrap_or(0) + joined_before.max(0) as u64, event_id);
    report.outlook = calibration(state, event_id).await?;
    Ok(report)
}

/// How long before an admission the second estimate the report checks was given.
pub const LEAD_MS: i64 = 60_000;

/// The models the ticker's leader kept each second of the night (`night_second.model`), by
/// unix second, over the seconds a lead before the admissions of `rows`.
async fn models(state: &Public, event_id: &str, rows: &[Row]) -> Result<HashMap<i64, String>> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(HashMap::new());
    };
    let lead = chrono::Duration::milliseconds(LEAD_MS + 1000);
    let seconds: Vec<(i64, String)> = sqlx::query_as(
        "select floor(extract(epoch from t))::bigint, model from night_second \
         where event_id = $1 and model is not null and t between $2 and $3",
    )
    .bind(event_id)
    .bind(first.2 - lead)
    .bind(last.2)
    .fetch_all(&state.db)
    .await?;
    Ok(seconds.into_iter().collect())
}

/// For each admission of `admissions` (`(arrival, admitted_ms)` in log order), the place its
/// buyer had `lead_ms` before it: 1 + the admissions of earlier arrivals in between (a buyer
/// ahead who left the line in that time is not counted: the log does not know them). One pass,
/// counting the arrivals in the window in a Fenwick tree over their ranks.
pub fn places_ahead(admissions: &[(i64, i64)], lead_ms: i64) -> Vec<u64> {
    let mut ranks: Vec<i64> = admissions.iter().map(|a| a.0).collect();
    ranks.sort_unstable();
    ranks.dedup();
    let rank = |arrival: i64| ranks.partition_point(|&r| r < arrival);
    let mut tree = vec![0i64; ranks.len() + 1];
    let add = |tree: &mut Vec<i64>, at: usize, by: i64| {
        let mut i = at + 1;
        while i < tree.len() {
            tree[i] += by;
            i += i & i.wrapping_neg();
        }
    };
    // The count of arrivals in the window with a rank below `at`.
    let below = |tree: &Vec<i64>, at: usize| {
        let (mut i, mut sum) = (at, 0);
        while i > 0 {
            sum += tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    };
    let mut from = 0;
    admissions
        .iter()
        .enumerate()
        .map(|(i, &(arrival, admitted_ms))| {
            while from < i && admissions[from].1 <= admitted_ms - lead_ms {
                add(&mut tree, rank(admissions[from].0), -1);
                from += 1;
            }
            let ahead = below(&tree, rank(arrival)).max(0) as u64 + 1;
            add(&mut tree, rank(arrival), 1);
            ahead
        })
        .collect()
}

/// The most places still in line whose outlook a report reads (a line longer than this is
/// counted in its first [`WAITING_READ_MAX`]).
pub const WAITING_READ_MAX: usize = 100_000;

/// Of the buyers told each outlook at joining, how many were admitted and bought (the
/// admission log in Postgres) and how many were not admitted (the joinings the line still
/// keeps, read in pages of a thousand, at most [`WAITING_READ_MAX`]).
async fn calibration(state: &Public, event_id: &str) -> Result<OutlookReport> {
    let mut report = OutlookReport::default();
    fn slot<'a>(report: &'a mut OutlookReport, name: &str) -> Option<&'a mut Told> {
        match name {
            "likely" => Some(&mut report.likely),
            "uncertain" => Some(&mut report.uncertain),
            "unlikely" => Some(&mut report.unlikely),
            _ => None,
        }
    }
    let admitted: Vec<(String, i64, i64)> = sqlx::query_as(
        "select a.outlook, count(*), count(*) filter (where exists ( \
             select 1 from hold h where h.event_id = a.event_id and h.buyer_id = a.buyer_id \
               and h.status = 'purchased')) \
         from admission a where a.event_id = $1 and a.outlook is not null group by a.outlook",
    )
    .bind(event_id)
    .fetch_all(&state.db)
    .await?;
    for (name, count, bought) in admitted {
        if let Some(told) = slot(&mut report, &name) {
            let count = count.max(0) as u64;
            told.told += count;
            told.admitted += count;
            told.bought += bought.max(0) as u64;
        }
    }
    let mut redis = state.redis.clone();
    let (mut cursor, mut read) = (0u64, 0usize);
    let mut models: HashMap<String, String> = HashMap::new();
    loop {
        let (next, page): (u64, Vec<(String, String)>) = ::redis::cmd("HSCAN")
            .arg(state.keys.joins(event_id))
            .arg(cursor)
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut redis)
            .await?;
        // The page's buyers (the hash keeps the models beside them, under `#id`) and the
        // models they name that no earlier page read, in one HMGET.
        let waiting: Vec<Waiting> = page
            .iter()
            .filter(|(field, _)| !field.starts_with('#'))
            .map(|(_, record)| Waiting::parse(record))
            .collect();
        let mut wanted: Vec<&str> = waiting
            .iter()
            .filter_map(|w| w.model_id)
            .filter(|id| !models.contains_key(*id))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        if !wanted.is_empty() {
            let found: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(state.keys.joins(event_id))
                .arg(&wanted)
                .query_async(&mut redis)
                .await?;
            // A model gone (never, but for a hash cut short) is remembered as none, not asked
            // again on every page.
            models.extend(
                wanted
                    .into_iter()
                    .zip(found)
                    .map(|(id, model)| (id.to_owned(), model.unwrap_or_default())),
            );
        }
        read += waiting.len();
        for told in waiting.iter().filter_map(|w| w.joined(&models)?.outlook) {
            if let Some(told) = slot(&mut report, told.name()) {
                told.told += 1;
            }
        }
        cursor = next;
        if cursor == 0 || read >= WAITING_READ_MAX {
            break;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_a_lead_before_counts_the_earlier_arrivals_admitted_since() {
        // (arrival, admitted ms): one a second, then arrival 3 admitted after 5 and 4.
        let log = [
            (1, 0),
            (2, 1_000),
            (5, 2_000),
            (4, 3_000),
            (3, 4_000),
            (6, 5_000),
        ];
        // A lead of 2.5 s: the admissions strictly after `t - 2500` and before this one.
        assert_eq!(places_ahead(&log, 2_500), vec![1, 2, 3, 2, 1, 3]);
        // A lead longer than the night: every earlier arrival admitted before.
        assert_eq!(places_ahead(&log, 60_000), vec![1, 2, 3, 3, 3, 6]);
        // Nothing ahead in a lead of nothing.
        assert_eq!(places_ahead(&log, 0), vec![1; 6]);
    }
}
