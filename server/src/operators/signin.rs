//! The end of every sign-in (a passkey, the company's provider): a new session and its
//! cookie, or, when this browser is signed in as the same person already, a step-up of that
//! session; audited either way.

use app::wire::OperatorAction;
use axum::{
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};

use super::{Actor, sessions};
use crate::{
    admin::audit::{self, Entry},
    client::Client,
    error::Result,
    state::AppState,
    tokens::cookies::Cookie,
};

/// Signs `person` in (a new session, its cookie, the audit), or, when this browser is signed
/// in as them already, counts it as a step-up of that session.
pub async fn signed_in(
    state: &AppState,
    client: Client,
    headers: &HeaderMap,
    person: sessions::Person,
    via: &str,
) -> Result<Response> {
    let current = super::guard::session_of(state, headers)
        .await?
        .filter(|s| s.person.id == person.id);
    let mut tx = state.db.begin().await?;
    let mut response = StatusCode::NO_CONTENT.into_response();
    let session = match current {
        Some(session) => {
            sessions::stepped_up(&mut tx, &session.id).await?;
            let actor = Actor::new(super::actor::Who::Person { session }, client);
            audit::record(&mut tx, Entry::by(&actor, OperatorAction::StepUp, None)).await?;
            None
        }
        None => Some(
            sessions::start(
                &mut tx,
                &state.sessions,
                &person.id,
                via,
                &client.to_string(),
            )
            .await?,
        ),
    };
    if let Some((cookie, _)) = session {
        let label = person.label(via, client);
        let entry = Entry::labelled(&label, Some(&person.id), OperatorAction::SignIn);
        audit::record(&mut tx, entry).await?;
        Cookie::Operator { token: &cookie }.set(&state.config, response.headers_mut());
    }
    tx.commit().await?;
    Ok(response)
}
