//! Session ids: the one piece of user input that becomes a file name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest id we accept, in bytes; well under every file system's name limit
/// once `.md` is added.
const MAX_LEN: usize = 200;

/// A session id, guaranteed to be a safe single file-name component.
///
/// Ids come from users (`cru session show ../x`), from frontmatter and from
/// wikilinks in files someone else wrote, and each becomes `<id>.md` on disk.
/// Holding only validated ids in this type means no path built from one can
/// climb out of the sessions directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

/// Why a string is not a session id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionIdError {
    #[error("a session id cannot be empty")]
    Empty,
    #[error("session id `{0}` is longer than {MAX_LEN} bytes")]
    TooLong(String),
    #[error("session id `{0}` cannot start with `.` or `-`")]
    BadStart(String),
    #[error("session id `{id}` contains {what}; ids may hold letters, digits, `-`, `_` and `.`")]
    BadChar { id: String, what: String },
}

impl SessionId {
    /// Validates `raw` as a session id.
    pub fn new(raw: &str) -> Result<Self, SessionIdError> {
        if raw.is_empty() {
            return Err(SessionIdError::Empty);
        }
        if raw.len() > MAX_LEN {
            return Err(SessionIdError::TooLong(raw.to_owned()));
        }
        if raw.starts_with('.') || raw.starts_with('-') {
            return Err(SessionIdError::BadStart(raw.to_owned()));
        }
        if let Some(c) = raw
            .chars()
            .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            let what = match c {
                '/' | '\\' => format!("a path separator `{c}`"),
                '\0' => "a NUL byte".to_owned(),
                c if c.is_whitespace() => "white space".to_owned(),
                c if c.is_control() => format!("the control character {c:?}"),
                c => format!("`{c}`"),
            };
            return Err(SessionIdError::BadChar {
                id: raw.to_owned(),
                what,
            });
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name of the file that normally holds this session.
    pub fn file_name(&self) -> String {
        format!("{}.md", self.0)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for SessionId {
    type Err = SessionIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Serialize for SessionId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SessionId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::new(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_dated_slugs_and_uuids() {
        for ok in [
            "2025-12-05-feature-impl",
            "a",
            "2025-12-05-x.2",
            "0b5c8f2e-1f7a-4c1e-9a55-3b1f0c9d2e11",
            "sesión_ü",
        ] {
            assert!(SessionId::new(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_anything_that_could_leave_the_directory() {
        for bad in [
            "",
            "../x",
            "..",
            ".",
            "/etc/passwd",
            "a/b",
            "a\\b",
            "a\0b",
            ".hidden",
            "-rf",
            "a b",
            "x\n",
        ] {
            assert!(SessionId::new(bad).is_err(), "{bad:?}");
        }
        assert!(SessionId::new(&"a".repeat(201)).is_err());
    }
}
