//! `name@version` references to agents.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An agent as sessions name it: `coder@1.0`, or just `coder` when the
/// version is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentRef {
    pub name: String,
    pub version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("agent `{0}` is not of the form name or name@version")]
pub struct AgentRefError(pub String);

impl AgentRef {
    pub fn new(name: impl Into<String>, version: Option<String>) -> Self {
        Self {
            name: name.into(),
            version,
        }
    }

    /// Appends `name@version` (what `Display` writes) without the
    /// formatting machinery, for writers of many rows.
    pub fn push_to(&self, out: &mut String) {
        out.push_str(&self.name);
        if let Some(v) = &self.version {
            out.push('@');
            out.push_str(v);
        }
    }

    /// `name@version` as a new string (`to_string`, faster).
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(
            self.name.len() + self.version.as_ref().map_or(0, |v| v.len() + 1),
        );
        self.push_to(&mut out);
        out
    }

    /// True when `query` names this agent: `coder` matches `coder@1.0`;
    /// `coder@1.0` matches only that version. Case-insensitive.
    pub fn matches(&self, query: &str) -> bool {
        match query.split_once('@') {
            Some((name, version)) => {
                self.name.eq_ignore_ascii_case(name)
                    && self
                        .version
                        .as_deref()
                        .is_some_and(|v| v.eq_ignore_ascii_case(version))
            }
            None => self.name.eq_ignore_ascii_case(query),
        }
    }
}

impl fmt::Display for AgentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{}@{v}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

impl FromStr for AgentRef {
    type Err = AgentRefError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || AgentRefError(s.to_owned());
        if s.is_empty() || s.chars().any(char::is_whitespace) {
            return Err(bad());
        }
        match s.split_once('@') {
            Some((name, version)) if !name.is_empty() && !version.is_empty() => {
                Ok(Self::new(name, Some(version.to_owned())))
            }
            Some(_) => Err(bad()),
            None => Ok(Self::new(s, None)),
        }
    }
}

impl Serialize for AgentRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AgentRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_name_and_version() {
        let a: AgentRef = "researcher@1.2".parse().unwrap();
        assert_eq!(a, AgentRef::new("researcher", Some("1.2".into())));
        assert_eq!(a.to_string(), "researcher@1.2");
        assert_eq!("coder".parse::<AgentRef>().unwrap().version, None);
        assert!("@1.0".parse::<AgentRef>().is_err());
        assert!("coder@".parse::<AgentRef>().is_err());
    }

    #[test]
    fn matches_with_or_without_version() {
        let a: AgentRef = "Coder@1.0".parse().unwrap();
        assert!(a.matches("coder"));
        assert!(a.matches("coder@1.0"));
        assert!(!a.matches("coder@2.0"));
        assert!(!a.matches("code"));
    }
}
