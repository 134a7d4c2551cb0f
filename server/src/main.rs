//! `anteroom`: serve (default), migrate, create the demo event, or verify a published draw.

use std::process::ExitCode;

use anteroom::{
    config::{Cli, Command, KeysCommand, OperatorsCommand},
    opening, operators,
    startup::{self, Application, BoxError},
    telemetry,
};
use clap::Parser;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // Kept to the end: dropping it flushes the traces not sent yet.
    let _telemetry = telemetry::init(cli.config.log_json);
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
            let startup::Demo { secrets, created } = startup::demo(&config).await?;
            for line in secrets {
                println!("{line}");
            }
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
        Command::Operators {
            command:
                OperatorsCommand::Add {
                    email,
                    name,
                    role,
                    events,
                },
        } => {
            let (db, sessions) = startup::cli_context(&config).await?;
            let new = app::wire::NewOperator {
                name: name.unwrap_or_else(|| email.clone()),
                email,
                role,
                events,
            };
            let (account, link, created) =
                operators::cli::add_operator(&db, &sessions, &config, new).await?;
            println!(
                "operator {} <{}> ({}) {}",
                account.name,
                account.email,
                account.role.as_str(),
                if created { "added" } else { "exists already" }
            );
            println!(
                "enrol a passkey within 15 minutes (until {}): {}",
                link.expires_at.format("%H:%M:%S UTC"),
                link.url
            );
        }
        Command::Keys {
            command:
                KeysCommand::Add {
                    name,
                    scopes,
                    events,
                    expires_in,
                },
        } => {
            let (db, sessions) = startup::cli_context(&config).await?;
            let new = app::wire::NewApiKey {
                name,
                scopes,
                events,
                expires_in_days: expires_in,
            };
            let created = operators::cli::add_key(&db, &sessions, new).await?;
            let expires = created
                .key
                .expires_at
                .map_or("never".into(), |t| t.format("%Y-%m-%d").to_string());
            println!(
                "API key {} ({}), expires {expires}; shown this once:",
                created.key.id, created.key.name
            );
            println!("{}", created.secret);
        }
        Command::Serve => {
            let app = Application::build(config).await?;
            let addr = app.local_addr();
            println!("Anteroom serving on http://{addr}");
            println!("Metrics on http://{}/metrics", app.metrics_addr());
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
