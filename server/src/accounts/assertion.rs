//! The signed hand-over from the ticketer's site (API.md "Accounts"): a buyer already signed
//! in there follows a link, or an app posts `{"assertion"}` to `POST /api/session`, carrying a
//! short-lived JWT the ticketer signs. Invariants: an assertion is accepted only when all of
//! this holds, and then exactly once: its `iss` is a configured ticketer, its signature checks
//! against that ticketer's JWKS with an asymmetric algorithm the key is for (never `none`,
//! never an HMAC), `aud` is this Anteroom's, `exp` is in the future and at most
//! [`MAX_LIFE_SECONDS`] ahead, `sub` and `jti` are present and short. The `jti` is marked used
//! in Redis (until the assertion expires) as the last step, so a refused assertion stores
//! nothing and a second use of an accepted one is refused.

use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;

use crate::{
    accounts::{
        claims,
        jwks::{KeySet, Miss},
    },
    base::Base,
    error::{Error, Result},
    tokens::session::Account,
};

/// The furthest ahead an assertion may expire.
pub const MAX_LIFE_SECONDS: i64 = 300;
/// The clock difference forgiven between the ticketer and us.
const LEEWAY_SECONDS: u64 = 5;
/// The longest `sub` and `jti` accepted.
const MAX_ID_BYTES: usize = 255;

/// The algorithms an assertion may be signed with: the asymmetric ones.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// A ticketer whose site may hand buyers over: its issuer and its keys.
pub struct Ticketer {
    pub issuer: String,
    pub keys: KeySet,
}

/// The configured ticketers and what their assertions must say.
pub struct Assertions {
    pub ticketers: Vec<Ticketer>,
    /// The `aud` an assertion must carry.
    pub audience: String,
    /// The claims kept for eligibility.
    pub claim_names: Vec<String>,
}

#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: String,
    exp: i64,
    jti: String,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

fn refused(why: &str) -> Error {
    Error::Unauthorized(format!("the sign-in assertion was refused: {why}"))
}

impl Assertions {
    /// The account `jwt` vouches for, once; 401 for anything else, 503 when the ticketer's
    /// keys cannot be fetched.
    pub async fn verify(&self, base: &Base, jwt: &str) -> Result<Account> {
        if jwt.len() > 16 * 1024 {
            return Err(refused("it is too long"));
        }
        let header = jsonwebtoken::decode_header(jwt).map_err(|_| refused("it is not a JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(refused("its algorithm is not an asymmetric one"));
        }
        let issuer = unverified_issuer(jwt).ok_or_else(|| refused("it names no issuer"))?;
        let ticketer = self
            .ticketers
            .iter()
            .find(|t| t.issuer == issuer)
            .ok_or_else(|| refused("its issuer is not a ticketer of this Anteroom"))?;
        let key = ticketer
            .keys
            .key(header.kid.as_deref())
            .await
            .map_err(|miss| match miss {
                Miss::Unknown => refused("it is signed with a key the ticketer does not publish"),
                Miss::Unreachable(why) => {
                    tracing::warn!(%why, "a ticketer's keys could not be fetched");
                    Error::Unavailable {
                        message: "the ticketer's sign-in keys cannot be reached; try again".into(),
                        retry_after_secs: 5,
                    }
                }
            })?;
        let mut validation = Validation::new(header.alg);
        validation.set_audience(&[&self.audience]);
        validation.set_issuer(&[&ticketer.issuer]);
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        validation.leeway = LEEWAY_SECONDS;
        let claims = jsonwebtoken::decode::<Claims>(jwt, &key, &validation)
            .map_err(|e| refused(&format!("{:?}", e.kind()).to_lowercase()))?
            .claims;
        let now = chrono::Utc::now().timestamp();
        if claims.exp > now + MAX_LIFE_SECONDS + LEEWAY_SECONDS as i64 {
            return Err(refused("it expires more than 300 s ahead"));
        }
        for (name, value) in [("sub", &claims.sub), ("jti", &claims.jti)] {
            if value.is_empty() || value.len() > MAX_ID_BYTES {
                return Err(refused(&format!("its {name} is empty or too long")));
            }
        }
        let first_use: bool = redis::cmd("SET")
            .arg(base.keys.used_assertion(&claims.iss, &claims.jti))
            .arg(1)
            .arg("NX")
            .arg("EX")
            .arg((claims.exp - now).max(0) as u64 + LEEWAY_SECONDS + 1)
            .query_async::<Option<String>>(&mut base.redis.clone())
            .await?
            .is_some();
        if !first_use {
            return Err(refused("it was used already"));
        }
        Ok(Account {
            issuer: claims.iss,
            subject: claims.sub,
            claims: claims::keep(&claims.rest, &self.claim_names),
        })
    }
}

/// The `iss` a JWT says it has, before its signature is checked: only to find whose keys check
/// it (the check then requires that same issuer).
fn unverified_issuer(jwt: &str) -> Option<String> {
    use base64::Engine;
    #[derive(Deserialize)]
    struct Iss {
        iss: String,
    }
    let payload = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    serde_json::from_slice::<Iss>(&bytes).ok().map(|i| i.iss)
}
