//! Request extractors whose refusals are JSON errors of API.md (axum's own answer in plain
//! text): bodies above the limit are 413, malformed JSON 400, well-formed JSON of the wrong
//! shape (a wrong type, an unknown field) 422.

use axum::{
    body::Bytes,
    extract::{FromRequest, Request, rejection::BytesRejection},
    http::StatusCode,
};
use serde::de::DeserializeOwned;

use crate::error::Error;

/// The largest request body read (API.md): above it, 413 and nothing further is read.
pub const BODY_LIMIT_BYTES: usize = 1 << 20;

/// A JSON body. An empty body reads as `{}` when `T` allows it, for clients that send none.
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json_type = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("application/json")
            });
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(body_rejection)?;
        if bytes.is_empty() {
            return parse(b"{}");
        }
        if json_type == Some(false) {
            return Err(Error::BadRequest(
                "send the body as JSON with Content-Type: application/json".into(),
            ));
        }
        parse(&bytes)
    }
}

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<ApiJson<T>, Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = deserialize(&mut de)?;
    de.end()
        .map_err(|e| Error::BadRequest(format!("the body is not valid JSON: {e}")))?;
    Ok(ApiJson(value))
}

fn deserialize<'de, T: DeserializeOwned>(
    de: &mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>,
) -> Result<T, Error> {
    T::deserialize(de).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => Error::Unprocessable(format!("invalid body: {e}")),
        _ => Error::BadRequest(format!("the body is not valid JSON: {e}")),
    })
}

fn body_rejection(rejection: BytesRejection) -> Error {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge
    } else {
        Error::BadRequest(format!("could not read the body: {rejection}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Shape {
        #[expect(dead_code)]
        n: u32,
    }

    #[test]
    fn syntax_errors_are_400_and_shape_errors_422() {
        assert!(matches!(
            parse::<Shape>(b"{\"n\": "),
            Err(Error::BadRequest(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": -1}"),
            Err(Error::Unprocessable(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": 1, \"x\": 2}"),
            Err(Error::Unprocessable(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": 1} trailing"),
            Err(Error::BadRequest(_))
        ));
        assert!(parse::<Shape>(b"{\"n\": 1}").is_ok());
    }
}
