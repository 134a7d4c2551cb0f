//! Operators are people (issue 33): the role matrix walked from the router's own table, API
//! keys (scoped, per event, shown once, stored hashed, expiring, revocable), the step-up for
//! dangerous changes, sessions ended by an admin or by a change of role, the break-glass
//! token, and a flood of anonymous admin requests that costs a signed-in operator nothing.

use std::collections::HashMap;

use app::wire::{Events, Role, Scope};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    BREAK_GLASS, JsonBody, TestApp, event_body, eventually_every, expect_error, spawn_app,
    spawn_with, test_config,
};

/// The least role each admin route needs, and the key scope that opens it (`None`: no key),
/// written down here apart from the server's table, so that a permission changed there by
/// mistake fails here.
fn expected() -> HashMap<(Method, &'static str), (Role, Option<Scope>)> {
    use Method as M;
    use Role::*;
    use Scope::*;
    HashMap::from([
        ((M::GET, "/api/admin/session"), (Viewer, None)),
        ((M::POST, "/api/admin/events"), (Admin, Some(EventsWrite))),
        (
            (M::PUT, "/api/admin/events/{event_id}/room"),
            (Operator, Some(RoomsWrite)),
        ),
        (
            (M::PUT, "/api/admin/events/{event_id}/draw"),
            (Operator, Some(RoomsWrite)),
        ),
        (
            (M::PUT, "/api/admin/events/{event_id}/eligible"),
            (Admin, Some(EventsWrite)),
        ),
        (
            (M::GET, "/api/admin/events/{event_id}/stats"),
            (Viewer, Some(StatsRead)),
        ),
        (
            (M::GET, "/api/admin/events/{event_id}/payments"),
            (Admin, Some(PaymentsRead)),
        ),
        (
            (M::GET, "/api/admin/events/{event_id}/audit"),
            (Viewer, Some(StatsRead)),
        ),
        ((M::GET, "/api/admin/audit"), (Admin, Some(AuditRead))),
        (
            (M::POST, "/api/admin/events/{event_id}/nights"),
            (Operator, Some(RoomsWrite)),
        ),
        (
            (M::GET, "/api/admin/events/{event_id}/nights"),
            (Viewer, Some(StatsRead)),
        ),
        (
            (
                M::GET,
                "/api/admin/events/{event_id}/nights/{night_id}/series",
            ),
            (Viewer, Some(StatsRead)),
        ),
        (
            (M::GET, "/api/admin/events/{event_id}/nights/{night_id}/csv"),
            (Viewer, Some(StatsRead)),
        ),
        ((M::GET, "/api/admin/operators"), (Admin, None)),
        ((M::POST, "/api/admin/operators"), (Admin, None)),
        (
            (M::PUT, "/api/admin/operators/{operator_id}"),
            (Admin, None),
        ),
        (
            (M::DELETE, "/api/admin/operators/{operator_id}"),
            (Admin, None),
        ),
        (
            (M::POST, "/api/admin/operators/{operator_id}/enrolment"),
            (Admin, None),
        ),
        ((M::GET, "/api/admin/sessions"), (Admin, None)),
        (
            (M::DELETE, "/api/admin/sessions/{session_id}"),
            (Admin, None),
        ),
        ((M::GET, "/api/admin/keys"), (Admin, None)),
        ((M::POST, "/api/admin/keys"), (Admin, None)),
        ((M::DELETE, "/api/admin/keys/{key_id}"), (Admin, None)),
        (
            (M::POST, "/api/events/{event_id}/admissions/done"),
            (Operator, Some(AdmissionsDone)),
        ),
    ])
}

/// A route's path with its parameters filled in.
fn concrete(path: &str, event: &str) -> String {
    path.replace("{event_id}", event)
        .replace("{night_id}", "night-none")
        .replace("{operator_id}", "op_none")
        .replace("{session_id}", "session-none")
        .replace("{key_id}", "key_none")
}

enum Asker {
    Person(String),
    Key(String),
}

async fn ask(app: &TestApp, asker: &Asker, method: &Method, path: &str) -> StatusCode {
    let mut req = app.client.request(method.clone(), app.url(path));
    req = match asker {
        Asker::Person(cookie) => app.as_operator(req, cookie),
        Asker::Key(key) => req.bearer_auth(key),
    };
    if *method != Method::GET && *method != Method::DELETE {
        req = req.json(&json!({}));
    }
    req.send().await.unwrap().status()
}

/// Every admin route x every role x in and out of the person's events, and every route x a
/// key with and without its scope, in and out of the key's events: refused with 403 exactly
/// when the expected table says so (any other answer means the guard let the handler run).
#[tokio::test]
async fn the_role_matrix_holds_for_every_route_of_the_router() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let other = app.room_event(10).await;
    let expected = expected();
    let routes = anteroom::admin::routes();
    let only = |in_scope: bool| Events::Only(vec![if in_scope { &event } else { &other }.clone()]);
    // One person of each role on each side of the events, one key of each scope likewise
    // (no route of the matrix ends a real session or revokes a real key).
    let mut people = HashMap::new();
    for role in Role::ALL {
        for in_scope in [true, false] {
            let (_, cookie) = app.operator(role, only(in_scope)).await;
            people.insert((role, in_scope), cookie);
        }
    }
    let mut keys = HashMap::new();
    let mut all_but = HashMap::new();
    for scope in Scope::ALL {
        for in_scope in [true, false] {
            let key = testkit::operators::key(&app.state.config, &[scope], only(in_scope)).await;
            keys.insert((scope, in_scope), key);
        }
        let others: Vec<Scope> = Scope::ALL.into_iter().filter(|s| *s != scope).collect();
        let key = testkit::operators::key(&app.state.config, &others, Events::All).await;
        all_but.insert(scope, key);
    }
    assert_eq!(
        routes.len(),
        expected.len(),
        "a route is missing from the matrix"
    );
    let mut checked = 0;
    for route in &routes {
        let &(least, scope) = expected
            .get(&(route.method.clone(), route.path))
            .unwrap_or_else(|| panic!("{} {} is not in the matrix", route.method, route.path));
        let path = concrete(route.path, &event);
        let names_event = route.path.contains("{event_id}");
        for role in Role::ALL {
            for in_scope in [true, false] {
                let cookie = people[&(role, in_scope)].clone();
                let allowed = role >= least && (role == Role::Admin || in_scope || !names_event);
                let status = ask(&app, &Asker::Person(cookie), &route.method, &path).await;
                assert_eq!(
                    refused(status),
                    !allowed,
                    "{} {} as a {role:?} ({}): {status}",
                    route.method,
                    route.path,
                    if in_scope {
                        "its event"
                    } else {
                        "another event"
                    }
                );
                checked += 1;
            }
        }
        for in_scope in [true, false] {
            let scopes: Vec<Scope> = scope.into_iter().collect();
            let with_scope = keys[&(scopes_or_any(&scopes)[0], in_scope)].clone();
            // Every key here is limited to one event: none may create events (issue 63).
            let creates = route.path == "/api/admin/events";
            let allowed = (scope.is_some() || route.path == "/api/admin/session")
                && (in_scope || !names_event)
                && !creates;
            let status = ask(&app, &Asker::Key(with_scope), &route.method, &path).await;
            assert_eq!(
                refused(status),
                !allowed,
                "{} {} with a key of {scopes:?}: {status}",
                route.method,
                route.path
            );
            checked += 1;
        }
        // A key with every scope but the route's.
        if let Some(scope) = scope {
            let key = all_but[&scope].clone();
            let status = ask(&app, &Asker::Key(key), &route.method, &path).await;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{} {}",
                route.method,
                route.path
            );
        }
        // Nobody: 401.
        let mut req = app.client.request(route.method.clone(), app.url(&path));
        if route.method != Method::GET {
            req = req.json(&json!({}));
        }
        let r = req.send().await.unwrap();
        expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    assert_eq!(checked, routes.len() * 8);
}

/// Issue 63 (5): removing a person revokes the keys they made (automation set up by someone
/// who left stops), and the audit names them; another admin's keys stay.
#[tokio::test]
async fn removing_a_person_revokes_the_keys_they_made() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (leaver_id, leaver) = app.operator(Role::Admin, Events::All).await;
    let (_, stayer) = app.operator(Role::Admin, Events::All).await;
    let make = async |cookie: &str| {
        let created: Value = app
            .as_operator(app.client.post(app.url("/api/admin/keys")), cookie)
            .json(&json!({"name": "ci", "scopes": ["stats:read"], "events": "all"}))
            .json_body()
            .await;
        created["secret"].as_str().unwrap().to_owned()
    };
    let theirs = make(&leaver).await;
    let mine = make(&stayer).await;
    let stats = format!("/api/admin/events/{event}/stats");
    assert_eq!(app.get(&stats, &theirs).await.status(), StatusCode::OK);
    let r = app
        .as_operator(
            app.client
                .delete(app.url(&format!("/api/admin/operators/{leaver_id}"))),
            &stayer,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app.get(&stats, &theirs).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_eq!(app.get(&stats, &mine).await.status(), StatusCode::OK);
    let audit = app.audit("/api/admin/audit?limit=5").await;
    let removal = audit
        .iter()
        .find(|e| e["action"] == "remove_operator")
        .unwrap();
    assert_eq!(
        removal["change"]["keys_revoked"].as_array().unwrap().len(),
        1
    );
}

/// Issue 63: a key limited to some events is limited where no event is in the path too: it
/// reads the audit of its events only (none of another event's, none of the deployment's
/// own), is refused another event's audit by name, and creates no event.
#[tokio::test]
async fn a_key_limited_to_some_events_reads_their_audit_only_and_creates_none() {
    let app = spawn_app().await;
    let mine = app.room_event(10).await;
    let theirs = app.room_event(10).await;
    for event in [&mine, &theirs] {
        let r = app
            .admin(
                app.client
                    .put(app.url(&format!("/api/admin/events/{event}/room"))),
            )
            .json(&json!({"admit_rate_per_second": 7}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
    let scopes = [Scope::AuditRead, Scope::EventsWrite];
    let limited =
        testkit::operators::key(&app.state.config, &scopes, Events::Only(vec![mine.clone()])).await;
    let all = testkit::operators::key(&app.state.config, &scopes, Events::All).await;
    let read = |key: &str, query: &str| {
        app.client
            .get(app.url(&format!("/api/admin/audit?limit=1000{query}")))
            .bearer_auth(key)
            .send()
    };
    let entries: Vec<Value> = read(&limited, "").await.unwrap().json().await.unwrap();
    assert!(!entries.is_empty());
    assert!(
        entries.iter().all(|e| e["event_id"] == mine.as_str()),
        "only its event's entries: {entries:?}"
    );
    let everything: Vec<Value> = read(&all, "").await.unwrap().json().await.unwrap();
    assert!(everything.iter().any(|e| e["event_id"] == theirs.as_str()));
    let r = read(&limited, &format!("&event_id={theirs}"))
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let body = event_body(1, 5, json!({}));
    let r = app
        .client
        .post(app.url("/api/admin/events"))
        .bearer_auth(&limited)
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = app
        .client
        .post(app.url("/api/admin/events"))
        .bearer_auth(&all)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
}

/// Whether the guard refused: 403 out of role, scope or events. Allowed means the handler ran,
/// so neither 403 nor 401 (a credential the guard failed to read would be 401).
fn refused(status: StatusCode) -> bool {
    assert_ne!(
        status,
        StatusCode::UNAUTHORIZED,
        "a valid credential was not read"
    );
    status == StatusCode::FORBIDDEN
}

/// A key needs one scope at least; the matrix's key for a route no key opens has one that
/// opens nothing there.
fn scopes_or_any(scopes: &[Scope]) -> Vec<Scope> {
    if scopes.is_empty() {
        vec![Scope::AdmissionsDone]
    } else {
        scopes.to_vec()
    }
}

#[tokio::test]
async fn a_key_is_shown_once_kept_hashed_and_stops_when_revoked_or_expired() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, admin) = app.operator(Role::Admin, Events::All).await;
    let created: Value = app
        .as_operator(app.client.post(app.url("/api/admin/keys")), &admin)
        .json(&json!({"name": "deploy", "scopes": ["stats:read"], "events": [event], "expires_in_days": 30}))
        .json_body()
        .await;
    let secret = created["secret"].as_str().unwrap().to_owned();
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("ak_"), "{created}");
    // The database keeps no secret: neither the value nor any part of it.
    let kept: Vec<u8> = sqlx::query_scalar("select secret_hash from api_key where id = $1")
        .bind(&id)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(kept.len(), 32);
    assert!(!String::from_utf8_lossy(&kept).contains(&secret[3..12]));
    // Listed without its secret.
    let listed: Value = app
        .as_operator(app.client.get(app.url("/api/admin/keys")), &admin)
        .json_body()
        .await;
    let listed = listed.as_array().unwrap();
    let mine = listed.iter().find(|k| k["id"] == id.as_str()).unwrap();
    assert!(mine.get("secret").is_none(), "{mine}");
    assert_eq!(mine["last_used_at"], Value::Null);
    let stats = format!("/api/admin/events/{event}/stats");
    assert_eq!(app.get(&stats, &secret).await.status(), StatusCode::OK);
    let listed: Value = app
        .as_operator(app.client.get(app.url("/api/admin/keys")), &admin)
        .json_body()
        .await;
    let used = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id.as_str())
        .unwrap()
        .clone();
    assert!(
        used["last_used_at"].is_string(),
        "a use is written down: {used}"
    );
    // A key made up in the right shape, or this one changed by a letter: refused.
    let mut changed = secret.clone().into_bytes();
    changed[20] = if changed[20] == b'a' { b'b' } else { b'a' };
    let changed = String::from_utf8(changed).unwrap();
    assert_eq!(
        app.get(&stats, &changed).await.status(),
        StatusCode::UNAUTHORIZED
    );
    // Expired: refused like an unknown key.
    sqlx::query("update api_key set expires_at = now() - interval '1 second' where id = $1")
        .bind(&id)
        .execute(&app.state.db)
        .await
        .unwrap();
    assert_eq!(
        app.get(&stats, &secret).await.status(),
        StatusCode::UNAUTHORIZED
    );
    sqlx::query("update api_key set expires_at = now() + interval '1 day' where id = $1")
        .bind(&id)
        .execute(&app.state.db)
        .await
        .unwrap();
    assert_eq!(app.get(&stats, &secret).await.status(), StatusCode::OK);
    // Revoked: refused at once, audited with who did it.
    let r = app
        .as_operator(
            app.client.delete(app.url(&format!("/api/admin/keys/{id}"))),
            &admin,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app.get(&stats, &secret).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let audit = app.audit("/api/admin/audit?limit=3").await;
    let actions: Vec<&str> = audit
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions[..2], ["revoke_key", "add_key"], "{audit:?}");
    // Bad requests change nothing.
    for body in [
        json!({"name": "x", "scopes": []}),
        json!({"name": "x", "scopes": ["root"]}),
        json!({"name": "x", "scopes": ["stats:read"], "expires_in_days": 400}),
        json!({"name": "", "scopes": ["stats:read"]}),
        json!({"name": "x", "scopes": ["stats:read"], "events": "some"}),
    ] {
        let r = app
            .as_operator(app.client.post(app.url("/api/admin/keys")), &admin)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_client_error(), "{body}: {}", r.status());
    }
    let count: i64 = sqlx::query_scalar("select count(*) from api_key")
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(count, 2, "the tests' own key and the one made here");
}

/// Step-up: a session whose sign-in is older than 300 s may still watch and steer, but not
/// stop a running room, allow more seats per buyer, or add a key or an operator.
#[tokio::test]
async fn dangerous_changes_need_a_recent_sign_in() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, cookie) = app.operator(Role::Admin, Events::All).await;
    sqlx::query("update operator_session set authenticated_at = now() - interval '301 seconds'")
        .execute(&app.state.db)
        .await
        .unwrap();
    let room = app.url(&format!("/api/admin/events/{event}/room"));
    let put = |body: Value| {
        app.as_operator(app.client.put(&room), &cookie)
            .json(&body)
            .send()
    };
    // Harmless: the rate.
    assert_eq!(
        put(json!({"admit_rate_per_second": 20}))
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    for body in [
        json!({"paused": true}),
        json!({"enabled": false}),
        json!({"seats_per_buyer": 9}),
        // Admitted buyers sent to another site.
        json!({"target_url": "https://elsewhere.example/"}),
    ] {
        let r = put(body.clone()).await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{body}");
        let why: Value = r.json().await.unwrap();
        assert_eq!(why["reason"], "step_up", "{why}");
    }
    let room_now: Value = app
        .admin(app.client.get(app.url(&format!("/api/events/{event}"))))
        .json_body()
        .await;
    assert_eq!(room_now["room"]["paused"], false, "nothing changed");
    assert_eq!(room_now["room"]["enabled"], true);
    for (path, body) in [
        (
            "/api/admin/keys",
            json!({"name": "x", "scopes": ["stats:read"]}),
        ),
        (
            "/api/admin/operators",
            json!({"email": "new@example.org", "name": "New", "role": "viewer"}),
        ),
    ] {
        let r = app
            .as_operator(app.client.post(app.url(path)), &cookie)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    // Signed in again (a step-up): allowed.
    sqlx::query("update operator_session set authenticated_at = now()")
        .execute(&app.state.db)
        .await
        .unwrap();
    assert_eq!(
        put(json!({"paused": true})).await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_new_role_or_an_admin_ends_a_persons_sessions() {
    let app = spawn_app().await;
    let (_, admin) = app.operator(Role::Admin, Events::All).await;
    let (viewer_id, viewer) = app.operator(Role::Viewer, Events::All).await;
    let whoami = |cookie: &str| {
        app.as_operator(app.client.get(app.url("/api/admin/session")), cookie)
            .send()
    };
    let me: Value = whoami(&viewer).await.unwrap().json().await.unwrap();
    assert_eq!(me["role"], "viewer");
    assert_eq!(me["via"], "passkey");
    let sessions: Value = app
        .as_operator(app.client.get(app.url("/api/admin/sessions")), &admin)
        .json_body()
        .await;
    let theirs = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["operator_id"] == viewer_id.as_str())
        .unwrap()
        .clone();
    // The admin promotes them: their session ends (they sign in again with the new role).
    let r = app
        .as_operator(
            app.client
                .put(app.url(&format!("/api/admin/operators/{viewer_id}"))),
            &admin,
        )
        .json(&json!({"role": "operator"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    expect_error(
        whoami(&viewer).await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    // A session an admin ends is over too.
    let (_, other) = app.operator(Role::Viewer, Events::All).await;
    let sessions: Value = app
        .as_operator(app.client.get(app.url("/api/admin/sessions")), &admin)
        .json_body()
        .await;
    let list = sessions.as_array().unwrap();
    assert!(
        list.iter().all(|s| s["id"] != theirs["id"]),
        "ended: {sessions}"
    );
    assert_eq!(list.iter().filter(|s| s["current"] == true).count(), 1);
    let target = list.iter().find(|s| s["current"] == false).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .as_operator(
            app.client
                .delete(app.url(&format!("/api/admin/sessions/{target}"))),
            &admin,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    expect_error(
        whoami(&other).await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_eq!(whoami(&admin).await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn an_idle_or_old_session_has_ended() {
    let app = spawn_app().await;
    let (_, cookie) = app.operator(Role::Viewer, Events::All).await;
    let whoami = || {
        app.as_operator(app.client.get(app.url("/api/admin/session")), &cookie)
            .send()
    };
    assert_eq!(whoami().await.unwrap().status(), StatusCode::OK);
    sqlx::query("update operator_session set last_seen_at = now() - interval '31 minutes'")
        .execute(&app.state.db)
        .await
        .unwrap();
    expect_error(
        whoami().await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    sqlx::query(
        "update operator_session set last_seen_at = now(), \
         created_at = now() - interval '12 hours 1 minute'",
    )
    .execute(&app.state.db)
    .await
    .unwrap();
    expect_error(
        whoami().await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
}

#[tokio::test]
async fn the_break_glass_token_works_only_when_set_and_every_use_is_audited() {
    let mut config = test_config();
    config.admin_token = Some(anteroom::config::Secret::new(BREAK_GLASS));
    let app = spawn_with(config).await;
    let event = app.room_event(10).await;
    let r = app
        .client
        .put(app.url(&format!("/api/admin/events/{event}/room")))
        .bearer_auth(BREAK_GLASS)
        .json(&json!({"admit_rate_per_second": 12}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let audit = app.audit("/api/admin/audit?limit=1").await;
    assert_eq!(audit[0]["action"], "change_room");
    assert!(
        audit[0]["actor"]
            .as_str()
            .unwrap()
            .starts_with("break-glass admin token from "),
        "{audit:?}"
    );
    assert_eq!(audit[0]["actor_id"], Value::Null);
}

/// A flood of anonymous and made-up credentials at the admin API: refused from the headers
/// alone (no query), while a signed-in operator pauses the room in the middle of it.
#[tokio::test]
async fn a_flood_of_anonymous_admin_requests_does_not_keep_an_operator_from_pausing() {
    let mut config = test_config();
    config.db_pool_size = 4;
    config.db_public_connections = 2;
    let app = spawn_with(config).await;
    let event = app.room_event(10).await;
    let (_, cookie) = app.operator(Role::Operator, Events::All).await;
    let room = app.url(&format!("/api/admin/events/{event}/room"));
    let made_up = format!("ak_{}", "B".repeat(75));
    let answered = std::sync::atomic::AtomicUsize::new(0);
    let flood = (0..600).map(|i| {
        let mut req = app.client.put(&room).json(&json!({"paused": false}));
        req = match i % 3 {
            0 => req,
            1 => req.bearer_auth(&made_up),
            _ => req.header("cookie", format!("anteroom-op=op_{}", "C".repeat(75))),
        };
        let answered = &answered;
        async move {
            let r = req.send().await;
            answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            r
        }
    });
    let flood = futures::future::join_all(flood);
    let pause = async {
        // In the middle of the flood: once a tenth of it has come back.
        eventually_every(
            "the flood is under way",
            std::time::Duration::from_secs(30),
            std::time::Duration::from_millis(1),
            async || answered.load(std::sync::atomic::Ordering::SeqCst) >= 60,
        )
        .await;
        app.as_operator(app.client.put(&room), &cookie)
            .json(&json!({"paused": true}))
            .send()
            .await
            .unwrap()
            .status()
    };
    let (answers, paused) = tokio::join!(flood, pause);
    assert_eq!(paused, StatusCode::OK);
    assert!(
        answers.into_iter().all(|r| r
            .map(|r| r.status() == StatusCode::UNAUTHORIZED)
            .unwrap_or(true)),
        "every anonymous request was refused"
    );
    let paused: bool = sqlx::query_scalar("select room_paused from event where id = $1")
        .bind(&event)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert!(paused);
}

/// The last admin can be neither demoted nor removed (nobody could manage operators after).
#[tokio::test]
async fn the_last_admin_stays_an_admin() {
    let app = spawn_app().await;
    let (admin_id, admin) = app.operator(Role::Admin, Events::All).await;
    let (other_id, _) = app.operator(Role::Admin, Events::All).await;
    let at = |id: &str| app.url(&format!("/api/admin/operators/{id}"));
    // Two admins: one may go.
    let r = app
        .as_operator(app.client.delete(at(&other_id)), &admin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    // Now the last: demoting them is refused, and changes nothing.
    let r = app
        .as_operator(app.client.put(at(&admin_id)), &admin)
        .json(&json!({"role": "viewer"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let me: Value = app
        .as_operator(app.client.get(app.url("/api/admin/session")), &admin)
        .json_body()
        .await;
    assert_eq!(me["role"], "admin");
}
