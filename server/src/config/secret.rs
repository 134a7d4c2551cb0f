//! [`Secret`]: a setting's value that must not be printed. Its `Debug` and `Display` show
//! `[redacted]`, so a secret in a configuration that is logged stays out of the logs; only
//! [`Secret::expose`] gives the value, to the code that uses it.

use std::{fmt, str::FromStr};

/// A value that must not be printed: `Debug` and `Display` show `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_owned()))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print_their_value() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{s} {s:?}"), "[redacted] [redacted]");
    }
}
