//! The claims of a sign-in kept in the account's session, for the rooms' eligibility
//! (`{"claim": "groups", "value": "fanclub"}`). Invariant: only the configured claim names are
//! kept, each a string, a list of strings or a boolean (`email_verified=true`), at most [`MAX_VALUES`] values of at most
//! `ELIGIBLE_VALUE_MAX` bytes in all (the session is a cookie: it must stay small). No name,
//! email or other personal claim is kept.

use app::wire::ELIGIBLE_VALUE_MAX;
use serde_json::{Map, Value};

use crate::tokens::session::AccountClaims;

/// The most claim values one session keeps.
pub const MAX_VALUES: usize = 32;

/// The values of the claims named `names` in `claims`, as `name=value`.
pub fn keep(claims: &Map<String, Value>, names: &[String]) -> AccountClaims {
    let mut kept = Vec::new();
    for name in names {
        let values: Vec<&str> = match claims.get(name) {
            Some(Value::String(s)) => vec![s],
            Some(Value::Bool(b)) => vec![if *b { "true" } else { "false" }],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        kept.extend(
            values
                .into_iter()
                .filter(|v| !v.is_empty() && v.len() <= ELIGIBLE_VALUE_MAX)
                .map(|v| format!("{name}={v}")),
        );
    }
    kept.truncate(MAX_VALUES);
    AccountClaims(kept)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_named_claims_are_kept_and_bounded() {
        let names = vec!["groups".to_owned(), "tier".to_owned()];
        let claims = json!({
            "groups": ["fanclub", "", 7, "x".repeat(300), "press"],
            "tier": "gold",
            "email": "ada@example.com",
        });
        let kept = keep(claims.as_object().unwrap(), &names);
        assert_eq!(kept.0, ["groups=fanclub", "groups=press", "tier=gold"]);
        assert!(kept.has("groups", "fanclub") && kept.has("tier", "gold"));
        assert!(!kept.has("email", "ada@example.com") && !kept.has("groups", "gold"));
        let many = json!({ "groups": (0..100).map(|i| i.to_string()).collect::<Vec<_>>() });
        assert_eq!(keep(many.as_object().unwrap(), &names).0.len(), MAX_VALUES);
    }
}
