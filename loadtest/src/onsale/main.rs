//! `onsale`: the night of an on-sale (seed 004), replayed against Anteroom. B buyers arrive
//! within W seconds for S seats with N admissions a second. Each one joins the line, polls it
//! as the page does, and once admitted reads the seat map and holds 1 to 4 seats best-available;
//! one in three pays through the fake payment provider, the others let their holds expire. A
//! buyer who finds nothing free waits for their turn to lapse and joins again, as the page does.
//!
//! Targets: running instances (`--url`, repeated; buyers are spread round-robin), or, with no
//! `--url`, `--instances` servers started in this process on one scratch deployment (ticker on
//! in each, so admission runs for real; removed at the end).
//!
//! It prints and writes (`--out`, JSON) join latency and errors, polls served a second,
//! admissions, holds and checkouts a second, FIFO inversions, the error of the estimate, oversold
//! seats (checked in Postgres), the time to sell out and Redis bytes per queued buyer, and draws
//! the night (`--svg`). Invariants checked (`--check` exits non-zero otherwise): 0 inversions,
//! 0 oversold seats, 0 failed joins, and no money lost: provider charges = sales + refunds, 0
//! charges without an order or a refund (counted at the fake provider once the payments left
//! pending are reconciled).
//!
//! `--replay night.csv` runs a night the operator kept instead (see `replay`).
//!
//! By role: `cli` (the flags, the plan, the target), `replay` (a kept night as the plan), `night` (what the buyers share, and the
//! run), `buyer` (one buyer's path), `report` (the figures).

mod buyer;
mod cli;
mod night;
mod replay;
mod report;
mod run;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Plan, external, in_process};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let plan = match Plan::new(&cli) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("onsale: {e}");
            return ExitCode::FAILURE;
        }
    };
    let target = if cli.urls.is_empty() {
        in_process(&plan).await
    } else {
        match external(&cli, &plan).await {
            Ok(t) => t,
            Err(e) => {
                eprintln!("onsale: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let mut result = Err("no night".to_owned());
    for night in 1..=cli.nights.max(1) {
        if cli.nights > 1 {
            println!(
                "== night {night} of {} in this house ({} earlier)",
                cli.nights,
                night - 1
            );
        }
        result = run::run(&cli, plan.clone(), &target, night).await;
        if result.is_err() {
            break;
        }
    }
    if let Some(deployment) = target.deployment {
        deployment.stop().await;
    }
    match result {
        Ok(report) => {
            if cli.check && report.failed() {
                eprintln!(
                    "onsale: the check failed (inversions, none checked, oversold seats, failed joins or money lost)"
                );
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("onsale: {e}");
            ExitCode::FAILURE
        }
    }
}
