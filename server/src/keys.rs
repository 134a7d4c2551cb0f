//! Every Redis key name, in one place. Keys of one event carry the event's hash tag (`{E}`), so
//! all of them live in one slot of a Redis Cluster and one script can touch them together.

/// Key names under this deployment's prefix (tests use a prefix of their own).
#[derive(Clone, Debug)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    pub fn new(prefix: impl Into<String>) -> Self {
        Self {
            prefix: prefix.into(),
        }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// A key of one event: `<prefix>:{<event>}:<name>`.
    pub fn event(&self, event_id: &str, name: &str) -> String {
        format!("{}:{{{}}}:{}", self.prefix, event_id, name)
    }

    /// The fixed-window counter of one rate limit for one subject (a client address, a buyer).
    pub fn rate_limit(&self, limit: &str, subject: &str) -> String {
        format!("{}:rl:{}:{}", self.prefix, limit, subject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_keys_carry_the_hash_tag() {
        let k = Keys::new("ar");
        assert_eq!(k.event("8812", "queue"), "ar:{8812}:queue");
    }
}
