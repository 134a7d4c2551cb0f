//! Operators as people (API.md "Operators"): their roles, the events they may touch, their
//! sessions, and the scoped API keys automation uses. Checked here, before the server stores
//! anything: an address that looks like one, a name of 1 to 100 characters, at most
//! [`MAX_EVENTS`] event ids, a key with at least one scope and an expiry of 1 to 365 days.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ErrorBody, unprocessable};

/// The most event ids an operator or a key may be limited to.
pub const MAX_EVENTS: usize = 200;
/// How long a new key lasts when the request names no expiry.
pub const DEFAULT_KEY_DAYS: u32 = 90;
/// The longest a key may last.
pub const MAX_KEY_DAYS: u32 = 365;

/// What an operator may do: each role may do everything the one before it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Role {
    /// The panel and the stats of their events, read only.
    Viewer,
    /// The room controls of their events: pause, the rate and its bounds, opening times.
    Operator,
    /// Everything: events, operators, API keys, payments, the audit.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Operator, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
            Role::Admin => "admin",
        }
    }

    pub fn parse(word: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == word)
    }
}

/// What an API key may do: one scope per kind of route (API.md "Operators").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Scope {
    /// The stats, the panel's series, the nights kept and a room's audit.
    #[serde(rename = "stats:read")]
    StatsRead,
    /// A room's controls (the same as the `operator` role).
    #[serde(rename = "rooms:write")]
    RoomsWrite,
    /// New events and their lists of eligible accounts.
    #[serde(rename = "events:write")]
    EventsWrite,
    /// The payments of an event.
    #[serde(rename = "payments:read")]
    PaymentsRead,
    /// The whole audit.
    #[serde(rename = "audit:read")]
    AuditRead,
    /// A ticketer's site telling the room that an admitted buyer finished or left.
    #[serde(rename = "admissions:done")]
    AdmissionsDone,
}

impl Scope {
    pub const ALL: [Scope; 6] = [
        Scope::StatsRead,
        Scope::RoomsWrite,
        Scope::EventsWrite,
        Scope::PaymentsRead,
        Scope::AuditRead,
        Scope::AdmissionsDone,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::StatsRead => "stats:read",
            Scope::RoomsWrite => "rooms:write",
            Scope::EventsWrite => "events:write",
            Scope::PaymentsRead => "payments:read",
            Scope::AuditRead => "audit:read",
            Scope::AdmissionsDone => "admissions:done",
        }
    }

    pub fn parse(word: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

/// The events an operator or a key may touch: `"all"` or a list of ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Events {
    #[default]
    All,
    Only(Vec<String>),
}

/// `"all"` or an array of event ids, as it is written.
#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for Events {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
        let all = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["all"]));
        let ids = ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String));
        OneOfBuilder::new()
            .item(all)
            .item(ids)
            .description(Some("\"all\" or a list of event ids"))
            .into()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for Events {}

impl Serialize for Events {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Events::All => s.serialize_str("all"),
            Events::Only(ids) => ids.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Events;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"all\" or a list of event ids")
            }

            fn visit_str<E: serde::de::Error>(self, word: &str) -> Result<Events, E> {
                match word {
                    "all" => Ok(Events::All),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(word), &self)),
                }
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Events, A::Error> {
                let mut ids = Vec::new();
                while let Some(id) = seq.next_element::<String>()? {
                    if ids.len() == MAX_EVENTS {
                        return Err(serde::de::Error::custom(format!(
                            "at most {MAX_EVENTS} events"
                        )));
                    }
                    ids.push(id);
                }
                Ok(Events::Only(ids))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Events {
    /// Whether `event_id` is among these events.
    pub fn covers(&self, event_id: &str) -> bool {
        match self {
            Events::All => true,
            Events::Only(ids) => ids.iter().any(|id| id == event_id),
        }
    }

    /// The list as stored (`None`: all).
    pub fn as_list(&self) -> Option<&[String]> {
        match self {
            Events::All => None,
            Events::Only(ids) => Some(ids),
        }
    }

    pub fn from_list(list: Option<Vec<String>>) -> Self {
        list.map_or(Events::All, Events::Only)
    }

    pub fn validate(&self) -> Result<(), ErrorBody> {
        let Events::Only(ids) = self else {
            return Ok(());
        };
        if ids.len() > MAX_EVENTS {
            return Err(unprocessable(format!(
                "at most {MAX_EVENTS} events, not {}",
                ids.len()
            )));
        }
        match ids.iter().find(|id| !is_plain_id(id)) {
            Some(id) => Err(unprocessable(format!(
                "\"{}\" is not an event id",
                id.chars().take(64).collect::<String>()
            ))),
            None => Ok(()),
        }
    }
}

/// An id as the server makes them: 1 to 64 letters, digits, `-` and `_`.
fn is_plain_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// An operator account (`GET /api/admin/operators`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OperatorAccount {
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub events: Events,
    pub created_at: DateTime<Utc>,
    /// Passkeys enrolled.
    pub passkeys: i64,
    /// Sessions signed in now.
    pub sessions: i64,
}

/// `POST /api/admin/operators`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewOperator {
    pub email: String,
    pub name: String,
    pub role: Role,
    #[serde(default)]
    pub events: Events,
}

impl NewOperator {
    /// Checks the fields and writes the address in lower case.
    pub fn validate(&mut self) -> Result<(), ErrorBody> {
        self.email = checked_email(&self.email)?;
        check_name(&self.name)?;
        self.events.validate()
    }
}

/// `PUT /api/admin/operators/{id}`: any of the fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OperatorUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Events>,
}

impl OperatorUpdate {
    pub fn validate(&self) -> Result<(), ErrorBody> {
        if let Some(name) = &self.name {
            check_name(name)?;
        }
        self.events.as_ref().map_or(Ok(()), Events::validate)
    }
}

/// An address in lower case, if it looks like one (something@something, at most 254 bytes).
pub fn checked_email(email: &str) -> Result<String, ErrorBody> {
    let email = email.trim().to_lowercase();
    let plausible = email.len() <= 254
        && email
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'))
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if plausible {
        Ok(email)
    } else {
        Err(unprocessable("email is not an address"))
    }
}

fn check_name(name: &str) -> Result<(), ErrorBody> {
    let chars = name.trim().chars().count();
    if (1..=100).contains(&chars) && !name.chars().any(char::is_control) {
        Ok(())
    } else {
        Err(unprocessable("name is 1 to 100 characters"))
    }
}

/// `POST /api/admin/operators/{id}/enrolment`: a one-time link to enrol a passkey.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Enrolment {
    pub url: String,
    pub expires_at: DateTime<Utc>,
}

/// One session signed in (`GET /api/admin/sessions`). The id is the SHA-256 of the cookie,
/// never the cookie.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OperatorSession {
    pub id: String,
    pub operator_id: String,
    pub email: String,
    pub name: String,
    /// How it signed in: `passkey` or `oidc`.
    pub via: String,
    pub address: String,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    pub authenticated_at: DateTime<Utc>,
    /// The session that asks.
    pub current: bool,
}

/// An API key as listed (`GET /api/admin/keys`): never its secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ApiKey {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub events: Events,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// `POST /api/admin/keys`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewApiKey {
    pub name: String,
    pub scopes: Vec<Scope>,
    #[serde(default)]
    pub events: Events,
    /// 1 to 365 (default 90).
    #[serde(default)]
    pub expires_in_days: Option<u32>,
}

impl NewApiKey {
    pub fn validate(&self) -> Result<(), ErrorBody> {
        check_name(&self.name)?;
        if self.scopes.is_empty() {
            return Err(unprocessable("a key needs at least one scope"));
        }
        let days = self.days();
        if !(1..=MAX_KEY_DAYS).contains(&days) {
            return Err(unprocessable(format!(
                "expires_in_days is 1 to {MAX_KEY_DAYS}, not {days}"
            )));
        }
        self.events.validate()
    }

    pub fn days(&self) -> u32 {
        self.expires_in_days.unwrap_or(DEFAULT_KEY_DAYS)
    }
}

/// The answer to `POST /api/admin/keys`: the key and, this once, its secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ApiKeyCreated {
    #[serde(flatten)]
    pub key: ApiKey,
    /// `ak_...`: shown once, stored only as its hash.
    pub secret: String,
}

/// The answer to a passkey ceremony's start (`POST /api/operator/passkey/*/start`): its id
/// and the options `navigator.credentials.create/get` take (`{"publicKey": {...}}`, binary
/// fields base64url, as `PublicKeyCredential.parse*OptionsFromJSON` reads them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PasskeyStarted {
    pub ceremony: String,
    pub options: serde_json::Value,
}

/// `GET /api/operator/sign-in-methods`: the operators' sign-ins this Anteroom offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SignInMethods {
    pub passkeys: bool,
    /// The company's OpenID provider (`GET /operator/sign-in`).
    pub company: bool,
}

/// `GET /api/admin/session`: who asks, and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Whoami {
    /// The operator's or the key's id (none for the break-glass token).
    pub id: Option<String>,
    pub name: String,
    /// A person's address (none for a key).
    #[serde(default)]
    pub email: Option<String>,
    pub role: Role,
    pub events: Events,
    /// `passkey`, `oidc`, `key` or `break-glass`.
    pub via: String,
    /// Until when the dangerous changes need no new sign-in (sessions only).
    pub step_up_until: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_all_or_a_list_and_nothing_else() {
        let all: Events = serde_json::from_str("\"all\"").unwrap();
        assert_eq!(all, Events::All);
        assert_eq!(serde_json::to_string(&all).unwrap(), "\"all\"");
        let some: Events = serde_json::from_str("[\"e1\",\"e2\"]").unwrap();
        assert!(some.covers("e2") && !some.covers("e3"));
        assert!(serde_json::from_str::<Events>("\"some\"").is_err());
        assert!(serde_json::from_str::<Events>("3").is_err());
        assert!(Events::Only(vec!["a b".into()]).validate().is_err());
        assert!(
            Events::Only(vec!["x".into(); MAX_EVENTS + 1])
                .validate()
                .is_err()
        );
        let many = serde_json::to_string(&vec!["x"; MAX_EVENTS + 1]).unwrap();
        assert!(serde_json::from_str::<Events>(&many).is_err());
    }

    #[test]
    fn roles_and_scopes_read_as_their_words() {
        for role in Role::ALL {
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{}\"", role.as_str()));
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        for scope in Scope::ALL {
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{}\"", scope.as_str()));
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert!(Role::Viewer < Role::Operator && Role::Operator < Role::Admin);
    }

    #[test]
    fn a_new_operator_is_checked_and_its_address_lowered() {
        let mut new = NewOperator {
            email: " Ada@Example.ORG ".into(),
            name: "Ada".into(),
            role: Role::Admin,
            events: Events::All,
        };
        new.validate().unwrap();
        assert_eq!(new.email, "ada@example.org");
        for bad in ["ada", "@example.org", "ada@localhost", "a da@example.org"] {
            new.email = bad.into();
            assert!(new.validate().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_key_needs_a_scope_and_a_bounded_life() {
        let mut key = NewApiKey {
            name: "ci".into(),
            scopes: vec![Scope::StatsRead],
            events: Events::All,
            expires_in_days: None,
        };
        assert!(key.validate().is_ok());
        assert_eq!(key.days(), DEFAULT_KEY_DAYS);
        key.expires_in_days = Some(0);
        assert!(key.validate().is_err());
        key.expires_in_days = Some(MAX_KEY_DAYS + 1);
        assert!(key.validate().is_err());
        key.expires_in_days = Some(30);
        key.scopes.clear();
        assert!(key.validate().is_err());
    }
}
