//! The state of the tokens: the [`Catalog`] below, the signer of buyer and operator sessions,
//! and the admission keys as they rotate.

use std::{ops::Deref, sync::Arc};

use crate::{
    accounts::state::Accounts,
    events::state::Catalog,
    tokens::{rotation::KeyRing, session::Sessions},
};

#[derive(Clone)]
pub struct Tokens {
    pub catalog: Catalog,
    /// Signs and verifies buyer sessions, place receipts and the dashboard's admin session.
    pub sessions: Arc<Sessions>,
    /// The admission tokens' signing key and the public keys served as the JWKS, as they
    /// rotate.
    pub keyring: Arc<KeyRing>,
    /// The ticketers whose hand-overs make account sessions, and the buyers' OpenID provider.
    pub accounts: Arc<Accounts>,
}

/// The tokens' state extends the [`Catalog`]: `tokens.rooms`, `tokens.db`, ...
impl Deref for Tokens {
    type Target = Catalog;

    fn deref(&self) -> &Catalog {
        &self.catalog
    }
}

/// The `Vary` of a response in the page's language ([`Tokens::page_language`]): what the
/// language is chosen by, besides the address.
pub const LANGUAGE_VARY: &str = "accept-language, cookie";

impl Tokens {
    /// The language of a buyer's page (API.md "Languages"): `?lang=`, then the buyer's earlier
    /// choice (the `lang` cookie), then `Accept-Language`, then the event's own language (an
    /// event's page; the default elsewhere); an operator's page is always English. With it,
    /// the `?lang=` that named one of ours (kept in the cookie for the buyer's next pages); any
    /// other value is passed over. Reads memory only: the busy page of a shedding instance
    /// uses it too.
    pub fn page_language(
        &self,
        uri: &axum::http::Uri,
        headers: &axum::http::HeaderMap,
    ) -> (app::lang::Lang, Option<app::lang::Lang>) {
        use app::lang::{self, Lang};
        let asked = uri.query().and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(key, _)| key == "lang")
                .and_then(|(_, tag)| Lang::parse(&tag))
        });
        if lang::operators_path(uri.path()) {
            return (Lang::En, asked);
        }
        let event =
            app::event_of_page(uri.path()).map_or(Lang::default(), |id| self.rooms.language(id));
        let accept = headers
            .get(axum::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok());
        let lang = lang::negotiate(
            asked.map(Lang::tag),
            super::cookies::read(&self.config, headers, lang::COOKIE),
            accept,
            event,
        );
        (lang, asked)
    }
}
