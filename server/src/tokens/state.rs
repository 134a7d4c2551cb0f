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
