//! Operators' credentials for tests and benchmarks, made in the deployment's own database the
//! way the server makes them: an API key as `anteroom keys add` does, a signed-in person as a
//! passkey sign-in ends (the ceremony itself is the end-to-end test's, with Chromium's virtual
//! authenticator).

use anteroom::{
    config::Config,
    operators::{cli, people, sessions},
    startup,
};
use app::wire::{Events, NewApiKey, NewOperator, Role, Scope};

/// A new API key with `scopes` on `events`, in `config`'s deployment.
pub async fn key(config: &Config, scopes: &[Scope], events: Events) -> String {
    let (db, signer) = startup::cli_context(config)
        .await
        .expect("the database answers");
    let new = NewApiKey {
        name: "tests".into(),
        scopes: scopes.to_vec(),
        events,
        expires_in_days: Some(1),
    };
    cli::add_key(&db, &signer, new)
        .await
        .expect("a key is made")
        .secret
}

/// A new API key with every scope on every event.
pub async fn admin_key(config: &Config) -> String {
    key(config, &Scope::ALL, Events::All).await
}

/// A new person of `role` on `events`, signed in: their id and their session cookie's value.
pub async fn signed_in(config: &Config, role: Role, events: Events) -> (String, String) {
    let (db, signer) = startup::cli_context(config)
        .await
        .expect("the database answers");
    let tag = anteroom::ids::random_id(8).to_lowercase();
    let mut new = NewOperator {
        email: format!("op-{tag}@example.org"),
        name: format!("Operator {tag}"),
        role,
        events,
    };
    new.validate().expect("a valid operator");
    let mut tx = db.begin().await.expect("a transaction");
    let person = people::add(&mut tx, &new, false)
        .await
        .expect("an operator is added");
    let (cookie, _) = sessions::start(&mut tx, &signer, &person.id, "passkey", "127.0.0.1")
        .await
        .expect("a session starts");
    tx.commit().await.expect("committed");
    (person.id, cookie)
}
