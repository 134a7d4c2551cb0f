//! `anteroom`: serve (default), migrate, or create the demo event.

use std::process::ExitCode;

use anteroom::{
    config::{Cli, Command},
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
        Command::Migrate => {
            startup::migrate(&config).await?;
            println!("migrations applied");
        }
        Command::Demo => {
            let created = startup::demo(&config).await?;
            println!(
                "demo event {}",
                if created { "created" } else { "already exists" }
            );
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
