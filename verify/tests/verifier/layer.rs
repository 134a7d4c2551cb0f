//! The tower layer around an axum handler that takes `Extension<Claims>`.

use anteroom_verify::{Claims, Verifier, VerifyLayer};
use axum::{
    Extension, Json, Router,
    body::Body,
    http::{Request, StatusCode, header},
    routing::get,
};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::{AUD, Device, JwksServer, SigningKey, claims};

fn app(layer: VerifyLayer) -> Router {
    Router::new()
        .route(
            "/api/whoami",
            get(|Extension(claims): Extension<Claims>| async { Json(claims) }),
        )
        .route_layer(layer)
}

/// The status, headers and JSON body of `request` to `app`.
async fn send(app: Router, request: Request<Body>) -> (StatusCode, header::HeaderMap, Value) {
    let response = app.oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (parts.status, parts.headers, json)
}

fn whoami() -> axum::http::request::Builder {
    Request::get("/api/whoami")
}

#[tokio::test]
async fn a_request_without_a_token_is_answered_401_not_admitted() {
    let jwks = JwksServer::start(&[&SigningKey::ed25519("k1")]).await;
    let (status, headers, body) = send(
        app(VerifyLayer::new(jwks.verifier())),
        whoami().body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(headers[header::WWW_AUTHENTICATE], "Bearer");
    assert_eq!(body["error"], "not_admitted");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("admission token")
    );
    assert!(body.get("queue_url").is_none());
    assert_eq!(jwks.fetches(), 0);
}

#[tokio::test]
async fn a_refusal_names_the_queue_and_sends_browsers_there_when_configured() {
    let jwks = JwksServer::start(&[&SigningKey::ed25519("k1")]).await;
    let queue = "https://anteroom.example/events/e-2026";
    let layer = VerifyLayer::new(jwks.verifier())
        .queue_url(queue)
        .redirect_browsers(true);
    let (status, _, body) = send(
        app(layer.clone()),
        whoami()
            .header(header::AUTHORIZATION, "Bearer not-a-token")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["queue_url"], queue);
    let (status, headers, _) = send(
        app(layer),
        whoami()
            .header(header::ACCEPT, "text/html,application/xhtml+xml")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers[header::LOCATION], queue);
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_with_its_claims_from_any_carrier() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let layer = VerifyLayer::new(jwks.verifier()).cookie("anteroom_admission_e-2026");
    let token = key.sign(&claims());
    let carriers = [
        (header::AUTHORIZATION, format!("Bearer {token}")),
        (
            header::HeaderName::from_static("admission-token"),
            token.clone(),
        ),
        (
            header::COOKIE,
            format!("lang=en; anteroom_admission_e-2026={token}"),
        ),
    ];
    for (name, value) in carriers {
        let (status, _, body) = send(
            app(layer.clone()),
            whoami().header(&name, value).body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{name}: {body}");
        assert_eq!(body["sub"], "buyer-1");
        assert_eq!(body["aud"], AUD);
    }
}

#[tokio::test]
async fn a_bound_token_passes_with_a_proof_for_the_public_url_only() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let device = Device::new();
    let mut bound = claims();
    bound["cnf"] = json!({"jkt": device.thumbprint()});
    let token = key.sign(&bound);
    // Behind a proxy: the Host seen here is the proxy's upstream, not the public one.
    let layer = VerifyLayer::new(jwks.verifier()).public_url("https://shop.example");
    let request = |proof: Option<String>| {
        let mut builder = whoami()
            .header(header::HOST, "10.0.0.5:8089")
            .header(header::AUTHORIZATION, format!("DPoP {token}"));
        if let Some(proof) = proof {
            builder = builder.header("DPoP", proof);
        }
        builder.body(Body::empty()).unwrap()
    };
    let good = device.proof("GET", "https://shop.example/api/whoami", &token);
    let (status, _, body) = send(app(layer.clone()), request(Some(good))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["cnf"]["jkt"], device.thumbprint());

    let upstream = device.proof("GET", "http://10.0.0.5:8089/api/whoami", &token);
    for proof in [None, Some(upstream)] {
        let (status, headers, body) = send(app(layer.clone()), request(proof)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["error"], "not_admitted");
        assert_eq!(
            headers[header::WWW_AUTHENTICATE],
            "Bearer error=\"invalid_token\""
        );
    }
}

#[tokio::test]
async fn a_token_that_cannot_be_judged_is_answered_503() {
    let key = SigningKey::ed25519("k1");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    drop(listener);
    let verifier = Verifier::builder(url).audience(AUD).build().unwrap();
    let (status, headers, body) = send(
        app(VerifyLayer::new(verifier)),
        whoami()
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", key.sign(&claims())),
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["error"], "unavailable");
    assert!(headers.contains_key(header::RETRY_AFTER));
}
