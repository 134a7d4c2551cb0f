//! `anteroom`: serve (default), migrate, create the demo event, or verify a published draw.

use std::process::ExitCode;

use anteroom::{
    config::{Cli, Command},
    opening,
    startup::{self, Application, BoxError},
    telemetry,
};
use clap::Parser;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init(cli.config.log_json);
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("anteroom: {e}");
            eprintln!("anteroom: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), BoxError> {
    let config = cli.config;
    match cli.command.unwrap_or(Command::Serve) {
        Command::FakePayments {
            fake_addr,
            settings,
        } => {
            let url = anteroom::checkout::fake::spawn(settings, fake_addr).await?;
            println!("fake payment provider on {url}");
            startup::shutdown_signal().await;
        }
        Command::VerifyDraw { url, event, ticket } => {
            let draw = opening::verify::fetch(&url, &event).await?;
            let (lines, verified) = match opening::verify::check(&draw, ticket.as_deref()) {
                Ok(lines) => (lines, true),
                Err(lines) => (lines, false),
            };
            for line in lines {
                println!("{line}");
            }
            if !verified {
                return Err("the draw did not verify".into());
            }
        }
        Command::Secrets => {
            for line in startup::write_secrets(&config)? {
                println!("{line}");
            }
        }
        Command::Migrate => {
            startup::migrate(&config).await?;
            println!("migrations applied");
        }
        Command::Demo => {
            let created = startup::demo(&config).await?;
            if created.is_empty() {
                println!("the demo events exist already");
            }
            for event in created {
                let opening = event.room.opens_at.map_or(String::new(), |t| {
                    format!(": its sale opens at {}", t.format("%H:%M:%S UTC"))
                });
                println!("demo event {} created{opening}", event.id);
            }
        }
        Command::Serve => {
            let notice = startup::admin_token_notice(&config)?;
            let app = Application::build(config).await?;
            let addr = app.local_addr();
            println!("Anteroom serving on http://{addr}");
            println!("Metrics on http://{}/metrics", app.metrics_addr());
            if let Some(notice) = notice {
                println!("{notice}");
            }
            let shutdown = CancellationToken::new();
            let signal = shutdown.clone();
            tokio::spawn(async move {
                startup::shutdown_signal().await;
                tracing::info!("shutdown signal: draining in-flight requests");
                signal.cancel();
            });
            app.run(shutdown).await?;
            tracing::info!("stopped");
        }
    }
    Ok(())
}
