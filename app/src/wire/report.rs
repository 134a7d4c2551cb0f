//! The night's public report (API.md "The night's report"): how first come, first served held,
//! how the estimates compared with the real waits, and the admission log it is computed from.
//! No buyer id appears here.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `GET /api/events/{id}/report`: the night's public report (API.md "The night's report").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Report {
    /// Buyers who took a place in the line (or entered its pre-queue).
    pub joined: u64,
    /// Admissions in the admission log.
    pub admitted: u64,
    /// Admissions of a buyer who arrived before someone admitted earlier (buyers back from
    /// away apart).
    pub fifo_inversions: u64,
    /// Admissions of a buyer skipped at their turn while away and admitted ahead on return
    /// (additive): after later arrivals by design, so neither inversions nor estimate samples.
    #[serde(default)]
    pub back_from_away: u64,
    pub estimate: EstimateReport,
    /// The estimate a buyer was given a minute before their admission against that minute
    /// (additive): over the buyers who waited at least that long, the model as the ticker
    /// kept it that second, at the place they then had (1 + the earlier arrivals admitted in
    /// that minute). What the page showed once the line had measured its buyers.
    #[serde(default)]
    pub estimate_60s_before: EstimateReport,
    /// The outlook's calibration: of the buyers told each outlook at joining, how many were
    /// admitted and how many bought (additive).
    #[serde(default)]
    pub outlook: OutlookReport,
    pub admission_log_url: String,
}

/// Of the buyers told each outlook at joining, how many were admitted and how many bought.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutlookReport {
    pub likely: Told,
    pub uncertain: Told,
    pub unlikely: Told,
}

/// The buyers told one outlook at joining: `told` counts every place whose joining the line
/// recorded (admitted or not), `admitted` those admitted since, `bought` the admitted who
/// bought (a purchase by the buyer in this event).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Told {
    pub told: u64,
    pub admitted: u64,
    pub bought: u64,
}

/// How the estimates given at joining compare with the waits the buyers really had.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct EstimateReport {
    /// Admissions whose buyer was given an estimate at joining.
    pub samples: u64,
    /// `None` without samples.
    pub median_abs_error_seconds: Option<f64>,
    pub p90_abs_error_seconds: Option<f64>,
    /// Share of samples whose real wait fell inside the band given at joining.
    pub within_range_share: Option<f64>,
}

/// `GET /api/events/{id}/report/admissions`: a page of the admission log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AdmissionLog {
    pub entries: Vec<AdmissionEntry>,
    /// The `after` of the next page; `None` on the last one.
    pub next: Option<u64>,
}

/// One admission, in the order they happened. No buyer id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AdmissionEntry {
    /// The admission's number in the event (1, 2, ...; a gap is an admission the log lost).
    pub n: u64,
    /// The arrival number the buyer had (a drawn entrant's: their place in the draw).
    pub arrival: u64,
    pub admitted_at: DateTime<Utc>,
    /// The buyer was skipped at their turn while away and admitted ahead on return
    /// (additive; absent: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub back_from_away: bool,
    /// When the buyer took their place, if the line recorded it (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined_at: Option<DateTime<Utc>>,
    /// The estimate the buyer was given at joining (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_wait_seconds: Option<u64>,
    /// The band the buyer was given at joining (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_range_seconds: Option<[u64; 2]>,
}
