//! Sign-in at the ticketer's OpenID provider (API.md "Accounts"), through a real provider
//! (`oidc-provider` from the npm registry, `testkit::oidc`), followed the way a browser without
//! JavaScript follows it: redirects and one login form. The sign-in ends in an account
//! session that joins an account-only room; its state is checked; no return address leads
//! off the site; a provider that is down gets a page that says so and leaves the line alone.

use std::collections::HashMap;

use app::wire::{Events, Role};
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use testkit::oidc::{CLIENT_ID, CLIENT_SECRET, TestProvider};

use crate::helpers::{TestApp, event_body, join, spawn_with, test_config};

/// The cookies a browser keeps (one host: the provider and Anteroom share 127.0.0.1, and a
/// browser does not tell cookies apart by port either).
#[derive(Default)]
struct Browser {
    jar: HashMap<String, String>,
    http: reqwest::Client,
}

impl Browser {
    fn new() -> Self {
        Self {
            jar: HashMap::new(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        }
    }

    fn cookie_header(&self) -> String {
        self.jar
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, r: &reqwest::Response) {
        for set in r.headers().get_all(header::SET_COOKIE) {
            let pair = set.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || set.to_str().unwrap().contains("Max-Age=0") {
                self.jar.remove(name);
            } else {
                self.jar.insert(name.into(), value.into());
            }
        }
    }

    async fn get(&mut self, url: &str) -> reqwest::Response {
        let r = self
            .http
            .get(url)
            .header(header::COOKIE, self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep(&r);
        r
    }

    async fn post_form(&mut self, url: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let r = self
            .http
            .post(url)
            .header(header::COOKIE, self.cookie_header())
            .form(form)
            .send()
            .await
            .unwrap();
        self.keep(&r);
        r
    }

    /// Follows redirects from `url` (made absolute against `base`) until a page answers.
    async fn follow(&mut self, base: &str, url: &str) -> (String, reqwest::Response) {
        let mut url = absolute(base, url);
        for _ in 0..10 {
            let r = self.get(&url).await;
            match r.headers().get(header::LOCATION) {
                Some(next) if r.status().is_redirection() => {
                    url = absolute(&origin(&url), next.to_str().unwrap())
                }
                _ => {
                    // A refusal page (403) is an answer too; anything else is a failure here.
                    if !r.status().is_success() && r.status() != StatusCode::FORBIDDEN {
                        let status = r.status();
                        panic!("{url}: {status}: {}", r.text().await.unwrap());
                    }
                    return (url, r);
                }
            }
        }
        panic!("more than 10 redirects");
    }

    /// Signs in as `login` at the provider from Anteroom's `/auth/sign-in?...`, and comes
    /// back: the last address and its answer.
    async fn sign_in(
        &mut self,
        app: &TestApp,
        path: &str,
        login: &str,
    ) -> (String, reqwest::Response) {
        let (at, page) = self.follow(&app.url(""), path).await;
        assert_eq!(
            page.status(),
            StatusCode::OK,
            "the provider's login page at {at}"
        );
        let html = page.text().await.unwrap();
        let action = html
            .split("action=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("a login form: {html}"));
        let r = self
            .post_form(
                &absolute(&origin(&at), action),
                &[("prompt", "login"), ("login", login), ("password", "any")],
            )
            .await;
        assert!(r.status().is_redirection(), "{}", r.status());
        let next = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
        self.follow(&origin(&at), &next).await
    }
}

fn origin(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let host = rest.split('/').next().unwrap();
    format!("{}://{host}", url.split_once("://").unwrap().0)
}

fn absolute(base: &str, url: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") {
        url.into()
    } else {
        format!("{}{url}", base.trim_end_matches('/'))
    }
}

/// Anteroom with the test provider (started once Anteroom's address is known).
async fn app_and_provider() -> (TestApp, TestProvider) {
    let port = TestProvider::reserve();
    let mut config = test_config();
    config.oidc_issuer = Some(format!("http://127.0.0.1:{port}"));
    config.oidc_client_id = CLIENT_ID.into();
    config.oidc_client_secret = Some(anteroom::config::Secret::new(CLIENT_SECRET));
    config.oidc_scopes = "openid profile groups".into();
    let app = spawn_with(config).await;
    let provider = TestProvider::start_on(port, &[app.url("/auth/callback")]);
    (app, provider)
}

fn session_of(browser: &Browser) -> String {
    browser
        .jar
        .get("anteroom_session")
        .cloned()
        .expect("a session cookie")
}

#[tokio::test]
async fn a_buyer_signs_in_at_the_provider_and_joins_as_the_account_from_two_browsers() {
    let (app, _provider) = app_and_provider().await;
    let event = app
        .create_event(event_body(
            2,
            5,
            json!({"identity": "account", "eligible": {"claim": "groups", "value": "fanclub"}}),
        ))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let start = format!("/auth/sign-in?event={event}&return=/events/{event}");

    let mut laptop = Browser::new();
    let (back, _) = laptop.sign_in(&app, &start, "ada").await;
    assert_eq!(
        back,
        app.url(&format!("/events/{event}")),
        "back on the event's page"
    );
    assert!(
        !laptop.jar.contains_key("anteroom_sign_in"),
        "the sign-in's state is cleared"
    );
    let token = session_of(&laptop);
    let who: Value = app.get("/api/session", &token).await.json().await.unwrap();
    assert_eq!(who["account"], true);
    let (status, first) = join(&app, &event, &token).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");

    let mut phone = Browser::new();
    phone.sign_in(&app, &start, "ada").await;
    let phone_token = session_of(&phone);
    let (_, second) = join(&app, &event, &phone_token).await;
    assert_eq!(second["position"], first["position"], "the same place");
    let who_phone: Value = app
        .get("/api/session", &phone_token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(who_phone["buyer_id"], who["buyer_id"]);

    // Another account, not in the fan club: refused before any place is taken.
    let mut stranger = Browser::new();
    stranger.sign_in(&app, &start, "grace").await;
    let (status, body) = join(&app, &event, &session_of(&stranger)).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (StatusCode::FORBIDDEN, Some("not_eligible")),
        "{body}"
    );
}

#[tokio::test]
async fn a_forged_state_or_a_return_off_the_site_leads_nowhere() {
    let (app, _provider) = app_and_provider().await;
    // A return address off the site is replaced by the home page.
    for evil in [
        "//evil.example/x",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        let mut browser = Browser::new();
        let path = format!("/auth/sign-in?return={}", urlencode(evil));
        let (back, _) = browser.sign_in(&app, &path, "ada").await;
        assert_eq!(back, app.url("/"), "{evil}");
    }
    // A callback with no sign-in started here, or another state: refused, no session.
    let mut browser = Browser::new();
    let r = browser
        .get(&app.url("/auth/callback?code=abc&state=xyz"))
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(!browser.jar.contains_key("anteroom_session"));
    let r = browser.get(&app.url("/auth/sign-in?return=/")).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let r = browser
        .get(&app.url("/auth/callback?code=abc&state=not-the-one"))
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(!browser.jar.contains_key("anteroom_session"));
    // The right state with a made-up code: the provider refuses it, no session.
    let location = {
        let r = browser.get(&app.url("/auth/sign-in?return=/")).await;
        r.headers()[header::LOCATION].to_str().unwrap().to_owned()
    };
    let state = location
        .split("state=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_owned();
    let r = browser
        .get(&app.url(&format!("/auth/callback?code=made-up&state={state}")))
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(!browser.jar.contains_key("anteroom_session"));
}

#[tokio::test]
async fn a_provider_that_is_down_gets_a_page_that_says_so_and_the_same_link_works_once_it_is_up() {
    let port = TestProvider::reserve();
    let mut config = test_config();
    config.oidc_issuer = Some(format!("http://127.0.0.1:{port}"));
    config.oidc_client_secret = Some(anteroom::config::Secret::new(CLIENT_SECRET));
    let app = spawn_with(config).await;
    let event = app
        .create_event(event_body(1, 5, json!({"identity": "account"})))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut browser = Browser::new();
    let r = browser
        .get(&app.url(&format!("/auth/sign-in?event={event}")))
        .await;
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let html = r.text().await.unwrap();
    assert!(html.contains("Sign-in is unavailable right now"), "{html}");
    assert!(html.contains("Try again"), "{html}");
    assert!(html.contains("<html lang=\"en\" dir=\"ltr\">"), "{html}");
    assert!(!browser.jar.contains_key("anteroom_sign_in"));
    // In the buyer's language: the link's `?lang=`, else the browser's (right to left in
    // Arabic), and trying again keeps it.
    let html = browser
        .get(&app.url(&format!("/auth/sign-in?event={event}&lang=fr")))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("<html lang=\"fr\" dir=\"ltr\">"), "{html}");
    assert!(
        html.contains("La connexion est indisponible pour le moment"),
        "{html}"
    );
    assert!(html.contains("lang=fr\">Réessayer</a>"), "{html}");
    let html = browser
        .http
        .get(app.url(&format!("/auth/sign-in?event={event}")))
        .header("accept-language", "ar-EG, ar;q=0.9")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("<html lang=\"ar\" dir=\"rtl\">"), "{html}");
    assert!(html.contains("تسجيل الدخول غير متاح الآن"), "{html}");
    // The provider comes up: the same link works.
    let _provider = TestProvider::start_on(port, &[app.url("/auth/callback")]);
    let (back, _) = browser
        .sign_in(&app, &format!("/auth/sign-in?event={event}"), "ada")
        .await;
    assert_eq!(back, app.url(&format!("/events/{event}")));
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Anteroom whose operators sign in at the test provider (the company's sign-in).
async fn app_with_company_sign_in() -> (TestApp, TestProvider) {
    let port = TestProvider::reserve();
    let mut config = test_config();
    config.operator_oidc_issuer = Some(format!("http://127.0.0.1:{port}"));
    config.operator_oidc_client_id = CLIENT_ID.into();
    config.operator_oidc_client_secret = Some(anteroom::config::Secret::new(CLIENT_SECRET));
    config.operator_roles = vec!["onsale-team=operator".into(), "onsale-admins=admin".into()];
    let app = spawn_with(config).await;
    let provider = TestProvider::start_on(port, &[app.url("/operator/callback")]);
    (app, provider)
}

/// Issue 33: an operator signs in through the company's provider; a claim maps to a role, an
/// account an admin added keeps its own role, and an unknown person (or an unverified
/// address) gets nothing.
#[tokio::test]
async fn operators_sign_in_with_the_company_account_and_a_claim_gives_the_role() {
    let (app, _provider) = app_with_company_sign_in().await;
    let whoami = |browser: &Browser| {
        let cookie = browser.jar.get("anteroom-op").cloned().unwrap_or_default();
        app.as_operator(app.client.get(app.url("/api/admin/session")), &cookie)
            .send()
    };

    let mut crew = Browser::new();
    let (back, r) = crew.sign_in(&app, "/operator/sign-in", "crew-1").await;
    assert_eq!(back, app.url("/admin"), "on to the dashboard");
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        !crew.jar.contains_key("anteroom-op-sign-in"),
        "the state is cleared"
    );
    let me: Value = whoami(&crew).await.unwrap().json().await.unwrap();
    assert_eq!(me["role"], "operator", "{me}");
    assert_eq!(me["via"], "oidc");
    assert_eq!(me["events"], "all");

    // An address an admin added as a viewer keeps that role, claims or not.
    let (_, admin) = app.operator(Role::Admin, Events::All).await;
    let r = app
        .as_operator(app.client.post(app.url("/api/admin/operators")), &admin)
        .json(&json!({"email": "grace@example.org", "name": "Grace", "role": "viewer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let mut grace = Browser::new();
    grace.sign_in(&app, "/operator/sign-in", "grace").await;
    let me: Value = whoami(&grace).await.unwrap().json().await.unwrap();
    assert_eq!(me["role"], "viewer", "{me}");
    assert_eq!(me["name"], "Grace");

    // Unknown, and an admin's claim on an address the provider has not verified: nothing.
    for login in ["stranger", "unverified-boss"] {
        let mut browser = Browser::new();
        let (_, r) = browser.sign_in(&app, "/operator/sign-in", login).await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{login}");
        assert!(!browser.jar.contains_key("anteroom-op"), "{login}");
    }
    let audit = app.audit("/api/admin/audit?limit=50").await;
    let refused = audit
        .iter()
        .filter(|e| e["action"] == "refused_sign_in")
        .count();
    assert_eq!(refused, 2, "{audit:?}");
    assert!(
        audit
            .iter()
            .any(|e| e["action"] == "add_operator" && e["after"]["email"] == "crew-1@example.org"),
        "the company's sign-in added crew-1: {audit:?}"
    );
}

/// Issue 63 (5, 7): every sign-in at the company's provider is a fresh one (the provider asks
/// for the password again though it has a session of its own, and Anteroom counts it as a
/// step-up); an account the company's sign-in made takes its role from the claim at every
/// sign-in (moved to the admins: admin; out of every group: refused, sessions ended); an address
/// is matched only when the provider says it is verified; many groups do not crowd the
/// address out of the kept claims.
#[tokio::test]
async fn the_company_sign_in_is_fresh_every_time_and_the_role_follows_the_claim() {
    let (app, provider) = app_with_company_sign_in().await;
    let whoami = |browser: &Browser| {
        let cookie = browser.jar.get("anteroom-op").cloned().unwrap_or_default();
        app.as_operator(app.client.get(app.url("/api/admin/session")), &cookie)
            .send()
    };
    let role_of = async |browser: &Browser| {
        let me: Value = whoami(browser).await.unwrap().json().await.unwrap();
        me["role"].as_str().unwrap_or("none").to_owned()
    };

    let mut crew = Browser::new();
    crew.sign_in(&app, "/operator/sign-in", "crew-7").await;
    assert_eq!(role_of(&crew).await, "operator");
    // Again from the same browser, which the provider knows: its login page all the same
    // (`sign_in` asserts the page), and a step-up here.
    let (back, _) = crew.sign_in(&app, "/operator/sign-in", "crew-7").await;
    assert_eq!(back, app.url("/admin"));
    let audit = app.audit("/api/admin/audit?limit=20").await;
    assert!(
        audit
            .iter()
            .any(|e| e["action"] == "step_up" && e["actor"].as_str().unwrap().contains("crew-7")),
        "{audit:?}"
    );

    // Moved to the admins at the company: an admin at the next sign-in, audited.
    provider.set_groups("crew-7", &["onsale-admins"]);
    let mut promoted = Browser::new();
    promoted.sign_in(&app, "/operator/sign-in", "crew-7").await;
    assert_eq!(role_of(&promoted).await, "admin");
    assert_eq!(
        whoami(&crew).await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "a new role ends the old sessions"
    );
    let audit = app.audit("/api/admin/audit?limit=20").await;
    assert!(
        audit
            .iter()
            .any(|e| e["action"] == "change_operator" && e["after"]["role"] == "admin"),
        "{audit:?}"
    );

    // Out of every group: refused, and the session they had ends.
    provider.set_groups("crew-7", &[]);
    let mut gone = Browser::new();
    let (_, r) = gone.sign_in(&app, "/operator/sign-in", "crew-7").await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(!gone.jar.contains_key("anteroom-op"));
    assert_eq!(
        whoami(&promoted).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );

    // Forty groups more do not push the address out of the kept claims.
    let mut crowded = Browser::new();
    crowded
        .sign_in(&app, "/operator/sign-in", "crowded-boss")
        .await;
    assert_eq!(role_of(&crowded).await, "admin");
    // A provider that says nothing of the address's verification: not matched.
    let mut unsaid = Browser::new();
    let (_, r) = unsaid
        .sign_in(&app, "/operator/sign-in", "unsaid-boss")
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}
