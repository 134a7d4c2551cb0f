//! What may change of an opening and its draw, and when: the room's opening time ([`settle`],
//! judged against the room as it was), the beacon and its source ([`update_draw`], in the
//! operator's transaction, under the draw row's lock) and the opening against the committed
//! round ([`check_round_after`]). Each refuses what would let anyone know or choose the draw's
//! randomness while entrants still enter.

use app::wire::{
    BeaconSource, BeaconUpdate, PREQUEUE_SECONDS_RANGE, Room, RoomUpdate, prequeue_opens_at,
};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::beacon;
use crate::{
    error::{Error, Result},
    events::room::get_event,
};

/// `update` of the room `before` at `now`, under the rules of an opening: refused (409) when
/// it changes an opening that passed or brings an open pre-queue's opening forward (or
/// clears it); a postponement that would close the open pre-queue again lengthens it
/// instead (its `prequeue_seconds` grows, up to a day).
pub fn settle(before: &Room, update: &RoomUpdate, now: DateTime<Utc>) -> Result<RoomUpdate> {
    let mut update = update.clone();
    let (Some(opens_at), Some(prequeue_opened_at)) = (before.opens_at, before.prequeue_opens_at)
    else {
        return Ok(update);
    };
    if prequeue_opened_at > now {
        return Ok(update);
    }
    let new_opens_at = update.opens_at.unwrap_or(before.opens_at);
    if opens_at <= now {
        if new_opens_at != Some(opens_at) {
            return Err(Error::Conflict(format!(
                "the sale opened at {opens_at}: its opening can no longer change"
            )));
        }
        return Ok(update);
    }
    let Some(new_opens_at) = new_opens_at.filter(|t| *t >= opens_at) else {
        return Err(Error::Conflict(format!(
            "the pre-queue is open: the opening at {opens_at} may be postponed, not brought forward"
        )));
    };
    let prequeue_seconds = update.prequeue_seconds.unwrap_or(before.prequeue_seconds);
    if prequeue_opens_at(Some(new_opens_at), prequeue_seconds) > Some(now) {
        if update.prequeue_seconds.is_some() {
            return Err(Error::Conflict(format!(
                "the pre-queue is open since {prequeue_opened_at}: it stays open until the draw"
            )));
        }
        let needed = u64::try_from((new_opens_at - prequeue_opened_at).num_milliseconds())
            .map(|ms| ms.div_ceil(1000))
            .ok()
            .and_then(|s| u32::try_from(s).ok())
            .filter(|s| PREQUEUE_SECONDS_RANGE.contains(s))
            .ok_or_else(|| {
                Error::Conflict(format!(
                    "postponing the opening to {new_opens_at} would close the pre-queue open \
                     since {prequeue_opened_at} (a pre-queue lasts a day at most)"
                ))
            })?;
        update.prequeue_seconds = Some(needed);
    }
    Ok(update)
}

/// Changes `event_id`'s draw in the caller's transaction `tx` as `update` says (exactly one
/// of its fields, `BeaconUpdate::validate`); answers what it was before (for the audit).
/// - a free-text `beacon`: while the sale has not opened by Postgres's clock, and only for a
///   draw with no beacon source (409 otherwise);
/// - a `beacon_source`: while the pre-queue has not opened (nobody has entered), for a round
///   whose time is after the opening (422 otherwise); it replaces a free-text beacon;
/// - the committed round's `round_signature`: checked with the source's public key (422 when it
///   does not verify); its randomness becomes the beacon. Any time before the draw is made.
pub async fn update_draw(
    tx: &mut PgConnection,
    event_id: &str,
    update: &BeaconUpdate,
) -> Result<serde_json::Value> {
    type Row = (
        Option<DateTime<Utc>>,
        i32,
        String,
        Option<sqlx::types::Json<BeaconSource>>,
        Option<DateTime<Utc>>,
    );
    let row: Option<Row> = sqlx::query_as(
        "select e.opens_at, e.prequeue_seconds, d.beacon, d.beacon_source, d.drawn_at \
         from event e join draw d on d.event_id = e.id \
         where e.id = $1 for share of e for update of d",
    )
    .bind(event_id)
    .fetch_optional(&mut *tx)
    .await?;
    let no_opening =
        || Error::Conflict("this sale has no opening time (opens_at), so it has no draw".into());
    let Some((opens_at, prequeue_seconds, before, source, drawn_at)) = row else {
        get_event(&mut *tx, event_id).await?;
        return Err(no_opening());
    };
    let opens_at = opens_at.ok_or_else(no_opening)?;
    let source = source.map(|s| s.0);
    let before_json = serde_json::json!({ "beacon": before, "beacon_source": source });
    // Read after the locks are held: a draw that read the beacon already holds them no more,
    // and found this clock past `opens_at`.
    let now: DateTime<Utc> = sqlx::query_scalar("select clock_timestamp()")
        .fetch_one(&mut *tx)
        .await?;
    let set = |beacon: String, source: Option<BeaconSource>, signature: Option<String>| {
        sqlx::query(
            "update draw set beacon = $2, beacon_source = $3, beacon_signature = $4, \
                 updated_at = now() \
             where event_id = $1",
        )
        .bind(event_id.to_owned())
        .bind(beacon)
        .bind(source.map(sqlx::types::Json))
        .bind(signature)
    };
    if let Some(beacon) = &update.beacon {
        if let Some(source) = &source {
            return Err(Error::Conflict(format!(
                "this draw committed to drand round {}: its beacon is that round's randomness",
                source.round
            )));
        }
        if now >= opens_at {
            return Err(Error::Conflict(format!(
                "the sale opened at {opens_at}: the draw's beacon can no longer change"
            )));
        }
        set(beacon.clone(), None, None).execute(&mut *tx).await?;
    } else if let Some(new) = &update.beacon_source {
        beacon::check(new).map_err(Error::Unprocessable)?;
        let prequeue_opens_at =
            prequeue_opens_at(Some(opens_at), prequeue_seconds.max(0) as u32).unwrap_or(opens_at);
        if now >= prequeue_opens_at {
            return Err(Error::Conflict(format!(
                "the pre-queue opened at {prequeue_opens_at}: the draw's beacon source is fixed \
                 before anyone enters"
            )));
        }
        let round_at = beacon::round_time(new).expect("checked: the round's time is known");
        if round_at <= opens_at {
            return Err(Error::Unprocessable(format!(
                "drand round {} is at {round_at}, not after the opening at {opens_at}: its \
                 randomness could be known while entrants still enter",
                new.round
            )));
        }
        set(String::new(), Some(new.clone()), None)
            .execute(&mut *tx)
            .await?;
    } else if let Some(signature) = &update.round_signature {
        let Some(source) = source else {
            return Err(Error::Conflict(
                "this draw committed to no randomness round: set a beacon_source first".into(),
            ));
        };
        if drawn_at.is_some() {
            return Err(Error::Conflict("the draw is made already".into()));
        }
        let signature = signature.to_ascii_lowercase();
        let randomness = beacon::verify(&source, &signature).map_err(Error::Unprocessable)?;
        set(randomness, Some(source), Some(signature))
            .execute(&mut *tx)
            .await?;
    }
    Ok(before_json)
}

/// Refuses (409) an opening at or after the time of the round `event_id`'s draw committed to:
/// the round's randomness would be public while entrants still enter.
pub async fn check_round_after(
    tx: &mut PgConnection,
    event_id: &str,
    opens_at: DateTime<Utc>,
) -> Result<()> {
    let source: Option<Option<sqlx::types::Json<BeaconSource>>> =
        sqlx::query_scalar("select beacon_source from draw where event_id = $1")
            .bind(event_id)
            .fetch_optional(&mut *tx)
            .await?;
    if let Some(source) = source.flatten().map(|s| s.0)
        && beacon::round_time(&source).is_some_and(|at| at <= opens_at)
    {
        return Err(Error::Conflict(format!(
            "the draw committed to drand round {}, which comes before that opening: the opening \
             stays before the round",
            source.round
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use chrono::Duration as Span;

    use super::*;

    fn room(opens_in: i64, prequeue_seconds: u32, now: DateTime<Utc>) -> Room {
        let opens_at = Some(now + Span::seconds(opens_in));
        Room {
            opens_at,
            prequeue_seconds,
            prequeue_opens_at: prequeue_opens_at(opens_at, prequeue_seconds),
            ..app::wire::DEFAULT_ROOM
        }
    }

    fn opening(at: Option<DateTime<Utc>>) -> RoomUpdate {
        RoomUpdate {
            opens_at: Some(at),
            ..RoomUpdate::default()
        }
    }

    #[test]
    fn before_the_pre_queue_opens_the_opening_may_move_either_way() {
        let now = Utc::now();
        let before = room(3600, 900, now);
        for at in [None, Some(now), Some(now + Span::seconds(7200))] {
            assert_eq!(settle(&before, &opening(at), now).unwrap(), opening(at));
        }
    }

    #[test]
    fn an_open_pre_queue_may_be_postponed_never_brought_forward_and_stays_open() {
        let now = Utc::now();
        // Opens in 10 minutes; the pre-queue opened 5 minutes ago.
        let before = room(600, 900, now);
        for refused in [None, Some(now + Span::seconds(599)), Some(now)] {
            assert!(matches!(
                settle(&before, &opening(refused), now),
                Err(Error::Conflict(_))
            ));
        }
        // Postponed by 5 minutes: the pre-queue still opened in the past, nothing else moves.
        let later = Some(now + Span::seconds(900));
        assert_eq!(
            settle(&before, &opening(later), now).unwrap(),
            opening(later)
        );
        // Postponed by an hour: the pre-queue would open again in the future, so it grows.
        let much_later = Some(now + Span::seconds(4200));
        let settled = settle(&before, &opening(much_later), now).unwrap();
        assert_eq!(settled.prequeue_seconds, Some(4200 + 300));
        // Unless the operator asked for a length that closes it; or it would last over a day.
        let closing = RoomUpdate {
            prequeue_seconds: Some(60),
            ..opening(much_later)
        };
        assert!(settle(&before, &closing, now).is_err());
        let next_week = Some(now + Span::days(7));
        assert!(settle(&before, &opening(next_week), now).is_err());
    }

    #[test]
    fn once_the_sale_opened_its_opening_no_longer_changes() {
        let now = Utc::now();
        let before = room(-1, 900, now);
        assert!(settle(&before, &opening(Some(now + Span::seconds(60))), now).is_err());
        assert!(settle(&before, &opening(None), now).is_err());
        let same = opening(before.opens_at);
        assert_eq!(settle(&before, &same, now).unwrap(), same);
        let rate = RoomUpdate {
            admit_rate_per_second: Some(9),
            ..RoomUpdate::default()
        };
        assert_eq!(settle(&before, &rate, now).unwrap(), rate);
    }
}
