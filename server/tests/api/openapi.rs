//! `GET /api/openapi.json`: the document is generated from the code, and it and the router
//! agree both ways: every operation is a route the server answers with that method, and every
//! route of the API's routers is an operation.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::spawn_app;

/// The (method, path) of every operation of a document.
fn operations(document: &Value) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in ["get", "put", "post", "delete", "patch"] {
            if item.get(method).is_some() {
                found.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    found
}

/// The (method, path) of every `.route(path, method(..)...)` written in the server's source,
/// and every route of the operator API's table. Left out, said here: the pages and their
/// no-JavaScript forms (HTML, not the JSON API), the metrics address (another listener), the
/// fake payment provider (a service of its own), and `/api/{*rest}` (every unknown path's
/// JSON 404).
fn routes_in_source() -> BTreeSet<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let left_out = ["forms.rs", "pages", "checkout/fake.rs"];
    let mut files = vec![root.clone()];
    let mut found = BTreeSet::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if left_out.iter().any(|l| relative.starts_with(l)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices(".route(") {
            let call = &text[at + ".route(".len()..];
            // The operator API's table routes by a variable: it is read from the table below.
            if !call.trim_start().starts_with('"') {
                continue;
            }
            let path = call.split('"').nth(1).unwrap();
            // The methods: each `get(`, `post(`... of the call, up to its closing parenthesis.
            let mut depth = 1;
            let end = call
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .unwrap()
                .0;
            let body = &call[..end];
            for method in ["get", "put", "post", "delete", "patch"] {
                let starts = body.match_indices(&format!("{method}(")).any(|(i, _)| {
                    let before = if i == 0 { b' ' } else { body.as_bytes()[i - 1] };
                    !(before.is_ascii_alphanumeric() || before == b'_')
                });
                if starts {
                    found.insert((method.to_uppercase(), path.to_owned()));
                }
            }
        }
    }
    for route in anteroom::admin::routes() {
        found.insert((route.method.to_string(), route.path.to_owned()));
    }
    found.retain(|(_, path)| path != "/api/{*rest}" && path != "/metrics");
    found
}

#[tokio::test]
async fn every_route_is_an_operation_of_the_document_and_every_operation_a_route() {
    let app = spawn_app().await;
    let r = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/json");
    let document: Value = r.json().await.unwrap();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    let documented = operations(&document);

    let routes = routes_in_source();
    assert!(
        routes.len() > 50,
        "the source's routes were read: {routes:?}"
    );
    let missing: Vec<_> = routes.difference(&documented).collect();
    assert!(missing.is_empty(), "routes with no operation: {missing:?}");

    // Every operation is a route the server answers with its method: not the JSON 404 of
    // an unknown API path, not 405, and (outside /api) not the pages' 404 (checked to be
    // what an unknown path gets, so that the check can fail).
    let unknown = app
        .client
        .get(app.url("/no-such-page"))
        .send()
        .await
        .unwrap();
    assert!(unknown.text().await.unwrap().contains("<h1>Not found</h1>"));
    for (method, path) in &documented {
        let concrete = path
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    "no-such-thing"
                } else {
                    s
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let r = app
            .client
            .request(
                Method::from_bytes(method.as_bytes()).unwrap(),
                app.url(&concrete),
            )
            .send()
            .await
            .unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert!(
            !text.contains("there is no such API endpoint"),
            "{method} {path}: no such route"
        );
        if !path.starts_with("/api/") {
            assert!(
                !text.contains("<h1>Not found</h1>"),
                "{method} {path}: the pages' 404"
            );
        }
    }
}

/// Each operation of the JSON API lists its errors with the error body (the browser's
/// sign-in steps outside /api answer pages), and the layers' statuses (413, 500, 503) are on
/// every one; the schemas it names exist.
#[tokio::test]
async fn every_operation_says_its_errors_and_every_schema_it_names_exists() {
    let document: Value =
        serde_json::to_value(anteroom::openapi::document()).expect("the document is JSON");
    let schemas = document["components"]["schemas"].as_object().unwrap();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            // Each `{name}` of the path is a declared path parameter.
            for name in path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            {
                let declared = operation["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| p["name"] == name && p["in"] == "path" && p["required"] == true);
                assert!(
                    declared,
                    "{method} {path}: {name} is not a declared path parameter"
                );
            }
            // The operators' guard's answers, on every route it guards.
            if operation["security"].to_string().contains("api_key") {
                for status in ["401", "403"] {
                    assert!(
                        responses.contains_key(status),
                        "{method} {path}: no {status}"
                    );
                }
            }
            for status in ["413", "500", "503"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path}: no {status}"
                );
            }
            for (status, response) in responses {
                let json = path.starts_with("/api/") || path.starts_with("/.well-known/");
                if json && (status.starts_with('4') || status.starts_with('5')) {
                    let schema = &response["content"]["application/json"]["schema"];
                    assert!(
                        schema.to_string().contains("ErrorBody"),
                        "{method} {path} {status}: {response}"
                    );
                }
            }
        }
    }
    // Every `$ref` names a schema of the document.
    let text = document.to_string();
    for (at, _) in text.match_indices("#/components/schemas/") {
        let name: String = text[at + "#/components/schemas/".len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        assert!(schemas.contains_key(&name), "no schema {name}");
    }
}
