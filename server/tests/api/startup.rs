//! Starting a server: what it refuses to start on (a weak or short secret, a secret or key
//! file other users may read, and in production no payment provider or no shared secrets),
//! and the secrets it generates, shows once and shares with the instances beside it.

use anteroom::{
    config::{Config, Secret},
    devdata::{self, Strictness},
    startup::Application,
    tokens::keys::{self, AdmissionKeys},
};
use reqwest::StatusCode;

use crate::helpers::{BREAK_GLASS, key_file, spawn_with, test_config};

/// Issue 33: no shared admin secret is made at start any more; the break-glass token exists
/// only when configured.
#[tokio::test]
async fn no_admin_token_is_generated_and_the_break_glass_token_is_off_unless_set() {
    let config = test_config();
    assert!(config.admin_token.is_none());
    let app = spawn_with(config.clone()).await;
    assert!(!config.data_dir.join("admin_token").exists());
    let r = app
        .client
        .get(app.url("/api/admin/session"))
        .bearer_auth(BREAK_GLASS)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_configured_break_glass_token_under_32_characters_is_refused_at_start() {
    let mut config = test_config();
    config.admin_token = Some(Secret::new("x".repeat(31)));
    let refused = Application::build(config).await.err().expect("refused");
    assert!(refused.to_string().contains("32"), "{refused}");
}

#[tokio::test]
async fn a_weak_session_secret_is_refused_at_start() {
    let mut config = test_config();
    config.session_secret = Some(Secret::new("change-me-too-please-it-is-long-enough"));
    let refused = Application::build(config).await.err().expect("refused");
    assert!(refused.to_string().contains("32 random bytes"), "{refused}");
}

#[tokio::test]
async fn a_production_server_without_a_payment_provider_refuses_to_start() {
    let mut config = test_config();
    config.dev = false;
    config.payments_url = None;
    let refused = Application::build(config)
        .await
        .err()
        .expect("no fake that takes orders and no money");
    assert!(
        refused.to_string().contains("ANTEROOM_PAYMENTS_URL"),
        "{refused}"
    );
}

/// Why `Application::build` refuses to start on `config` (it must refuse).
async fn refused(config: Config) -> String {
    Application::build(config)
        .await
        .err()
        .expect("refused")
        .to_string()
}

/// A production configuration (no `--dev`) whose secrets live in files of its data folder,
/// with a payment provider's URL that `Application::build` never calls.
fn production_config_with_secret_files() -> Config {
    let mut config = test_config();
    config.dev = false;
    config.payments_url = Some("http://127.0.0.1:9".into());
    config.session_secret = None;
    config
}

/// Review finding 11: outside `--dev`, a server with no configured or kept
/// session secret or admission key refused nothing and generated its own, so instances behind
/// one load balancer refused each other's sessions and tokens. Now it refuses to start, saying
/// what is missing; `anteroom secrets` writes them once, and then every instance starts and
/// accepts the others' sessions.
#[tokio::test]
async fn a_production_server_without_its_shared_secrets_refuses_to_start_and_generates_none() {
    let config = production_config_with_secret_files();
    let mut with_token = config.clone();
    let why = refused(with_token.clone()).await;
    assert!(why.contains("ANTEROOM_SESSION_SECRET"), "{why}");
    with_token.session_secret = Some(Secret::new(anteroom::ids::random_id(32)));
    let why = refused(with_token).await;
    assert!(why.contains("admission signing key"), "{why}");
    assert!(
        keys::read_dir(&config.data_dir.join("admission-keys"), Strictness::Refuse)
            .unwrap()
            .is_empty(),
        "a refused start generated a key"
    );
    let written = anteroom::startup::write_secrets(&config).unwrap();
    assert_eq!(written.len(), 2, "{written:?}");
    let again = anteroom::startup::write_secrets(&config).unwrap();
    assert!(again.iter().all(|l| l.contains("already")), "{again:?}");
    // Two instances on the written folder: a session of one is a session of the other.
    let a = spawn_with(config.clone()).await;
    let b = spawn_with(config).await;
    let r = a.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let token = r.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(b.get("/api/session", &token).await.status(), StatusCode::OK);
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn a_secret_or_key_file_other_users_may_read_is_refused_at_start() {
    let config = production_config_with_secret_files();
    let dir = config.data_dir.clone();
    let key_dir = dir.join("admission-keys");
    // What an earlier start left: the session secret and a key, then opened up by hand.
    devdata::secret_file(&dir, "session_secret", Strictness::Refuse).unwrap();
    keys::load_or_generate(&key_dir, Strictness::Refuse).unwrap();
    let key = key_file(&key_dir);
    set_mode(&dir.join("session_secret"), 0o644);
    let why = refused(config.clone()).await;
    assert!(
        why.contains("session_secret") && why.contains("chmod 600"),
        "{why}"
    );
    set_mode(&dir.join("session_secret"), 0o600);
    set_mode(&key, 0o640);
    let why = refused(config.clone()).await;
    assert!(why.contains(".key") && why.contains("chmod 600"), "{why}");
    set_mode(&key, 0o600);
    set_mode(&key_dir, 0o755);
    let why = refused(config.clone()).await;
    assert!(
        why.contains("admission-keys") && why.contains("chmod 700"),
        "{why}"
    );
    set_mode(&key_dir, 0o700);
    set_mode(&dir, 0o777);
    let why = refused(config.clone()).await;
    assert!(why.contains("chmod 700"), "{why}");
    set_mode(&dir, 0o700);
    // Closed again: it starts.
    let app = spawn_with(config).await;
    assert_eq!(
        app.client
            .get(app.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
}

#[test]
fn instances_starting_together_on_an_empty_data_folder_share_one_secret_and_one_key() {
    const INSTANCES: usize = 8;
    for _ in 0..20 {
        let dir =
            std::env::temp_dir().join(format!("anteroom-together-{}", anteroom::ids::random_id(6)));
        let start = std::sync::Arc::new(std::sync::Barrier::new(INSTANCES));
        let instances: Vec<_> = (0..INSTANCES)
            .map(|_| {
                let (dir, start) = (dir.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    let (secret, _) =
                        devdata::secret_file(&dir, "session_secret", Strictness::Refuse).unwrap();
                    let material =
                        keys::load_or_generate(&dir.join("admission-keys"), Strictness::Refuse)
                            .unwrap();
                    let keys = AdmissionKeys::new(&material, None, "anteroom").unwrap();
                    (secret, keys.jwks().clone())
                })
            })
            .collect();
        let seen: Vec<_> = instances.into_iter().map(|i| i.join().unwrap()).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            seen.iter().all(|s| s.0 == seen[0].0),
            "instances started with different session secrets"
        );
        assert!(
            seen.iter().all(|s| s.1 == seen[0].1),
            "instances generated different admission keys"
        );
        assert_eq!(seen[0].1["keys"].as_array().unwrap().len(), 1);
    }
}
