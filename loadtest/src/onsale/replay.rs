//! `onsale --replay night.csv`: the night an operator kept (`GET
//! /api/admin/events/{id}/nights/{night}/csv`) as the next load test (seed 004: "the mix that
//! actually happened replaces the mix that was guessed"). From its seconds: the arrival curve
//! (arrivals in a second = the line's growth over it plus the second's admissions), the
//! admission rate (the greatest rate in force that night), and the action mix (one buyer in
//! `holds / checkouts` pays).
//!
//! Invariants: the replay has exactly as many buyers as the curve's arrivals, each arriving
//! within the second the curve puts them in (spread evenly within it), in order; a file that
//! is not such a CSV is refused with the line at fault, nothing is guessed.

/// What a kept night says the next night should be.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// When each buyer arrives, in seconds after the opening, in order.
    pub arrivals: Vec<f64>,
    /// The greatest admission rate in force (0 when the file says none).
    pub admit_rate: u32,
    /// One buyer in this many pays (`None` when nobody paid).
    pub pay_one_in: Option<usize>,
}

/// The seconds of a night's CSV: `t,admissions,holds,checkouts,queue_length,admit_rate_per_second`.
pub fn parse(csv: &str) -> Result<Replay, String> {
    let mut lines = csv.lines().enumerate();
    match lines.next() {
        Some((_, header))
            if header
                .trim()
                .starts_with("t,admissions,holds,checkouts,queue_length") => {}
        _ => return Err("line 1: expected the header of a kept night's CSV".into()),
    }
    let (mut arrivals, mut admit_rate, mut holds, mut checkouts) = (Vec::new(), 0u64, 0u64, 0u64);
    let mut queue = 0u64;
    for (second, (i, line)) in lines.filter(|(_, l)| !l.trim().is_empty()).enumerate() {
        let cells: Vec<u64> = line
            .split(',')
            .skip(1)
            .map(|c| c.trim().parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("line {}: {e}", i + 1))?;
        let [admissions, h, c, q, rate] = cells[..] else {
            return Err(format!("line {}: expected 6 fields", i + 1));
        };
        let arrived = (q + admissions).saturating_sub(queue);
        queue = q;
        for k in 0..arrived {
            arrivals.push(second as f64 + k as f64 / arrived as f64);
        }
        admit_rate = admit_rate.max(rate);
        holds += h;
        checkouts += c;
    }
    Ok(Replay {
        arrivals,
        admit_rate: u32::try_from(admit_rate).unwrap_or(u32::MAX),
        pay_one_in: (checkouts > 0)
            .then(|| ((holds as f64 / checkouts as f64).round() as usize).max(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NIGHT: &str = "t,admissions,holds,checkouts,queue_length,admit_rate_per_second
2026-12-02T20:00:00Z,0,0,0,4,10
2026-12-02T20:00:01Z,2,3,1,3,10
2026-12-02T20:00:02Z,3,3,1,0,20
";

    #[test]
    fn the_curve_is_the_lines_growth_plus_its_admissions() {
        let replay = parse(NIGHT).unwrap();
        // 4 arrive in the first second, 1 in the second (3 + 2 - 4), none in the third.
        assert_eq!(replay.arrivals, [0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(replay.admit_rate, 20);
        assert_eq!(replay.pay_one_in, Some(3));
    }

    #[test]
    fn a_file_that_is_not_a_night_is_refused_with_its_line() {
        assert!(parse("a,b\n").unwrap_err().starts_with("line 1"));
        let bad = "t,admissions,holds,checkouts,queue_length,admit_rate_per_second\nx,1,2\n";
        assert_eq!(parse(bad).unwrap_err(), "line 2: expected 6 fields");
    }
}
