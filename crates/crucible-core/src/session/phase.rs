//! Phases (`## Name @agent #channel`) and plain sections (`## Summary`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{AgentRef, Block, Timestamp, UsageRecord};

/// A top-level part of the body after the preamble.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
// Most sections are phases: boxing them would add an allocation to nearly
// every section for the sake of the few plain ones.
#[allow(clippy::large_enum_variant)]
pub enum Section {
    Phase(Phase),
    Plain(PlainSection),
}

impl Section {
    pub fn blocks(&self) -> &[Block] {
        match self {
            Self::Phase(p) => &p.blocks,
            Self::Plain(s) => &s.blocks,
        }
    }

    pub fn level(&self) -> u8 {
        match self {
            Self::Phase(p) => p.level,
            Self::Plain(s) => s.level,
        }
    }
}

/// A heading that carries an `@agent` or `#channel`, and what follows it up
/// to the next section heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Heading level: 2 for top-level phases, deeper for nested ones.
    pub level: u8,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "PhaseMeta::is_empty")]
    pub meta: PhaseMeta,
    #[serde(default)]
    pub blocks: Vec<Block>,
    /// The model requests the phase made (`<!-- usage: ... -->` lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<UsageRecord>,
}

impl Phase {
    pub fn new(name: impl Into<String>, agent: Option<AgentRef>, channel: Option<String>) -> Self {
        Self {
            level: 2,
            name: name.into(),
            agent,
            channel,
            meta: PhaseMeta::default(),
            blocks: Vec::new(),
            usage: Vec::new(),
        }
    }
}

/// A heading without annotations (`## Summary`, `## Notes`) and its content,
/// kept as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlainSection {
    pub level: u8,
    pub title: String,
    #[serde(default)]
    pub blocks: Vec<Block>,
}

/// The quiet facts about a phase, written as an HTML comment under its
/// heading so that renderers hide them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Keys cru does not know, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<(String, String)>,
}

impl PhaseMeta {
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// A phase's place in document order, counting nested phases: `phase-1` is
/// the first. This is what `resume_point` and commands use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhaseId(u32);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a phase id (expected phase-N or N, counting from 1)")]
pub struct PhaseIdError(pub String);

impl PhaseId {
    /// The id of the phase at `index` (0-based) in document order.
    pub fn from_index(index: usize) -> Self {
        Self(u32::try_from(index + 1).unwrap_or(u32::MAX))
    }

    pub fn new(number: u32) -> Option<Self> {
        (number > 0).then_some(Self(number))
    }

    /// 1-based.
    pub fn number(self) -> u32 {
        self.0
    }

    pub fn index(self) -> usize {
        self.0 as usize - 1
    }
}

impl fmt::Display for PhaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "phase-{}", self.0)
    }
}

impl FromStr for PhaseId {
    type Err = PhaseIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let digits = t
            .get(..6)
            .filter(|p| p.eq_ignore_ascii_case("phase-"))
            .map_or(t, |_| &t[6..]);
        digits
            .parse::<u32>()
            .ok()
            .and_then(Self::new)
            .ok_or_else(|| PhaseIdError(s.to_owned()))
    }
}

impl Serialize for PhaseId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PhaseId {
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
    fn phase_ids_read_both_forms() {
        assert_eq!("phase-3".parse::<PhaseId>().unwrap().number(), 3);
        assert_eq!("Phase-3".parse::<PhaseId>().unwrap().number(), 3);
        assert_eq!("3".parse::<PhaseId>().unwrap().to_string(), "phase-3");
        for bad in ["phase-0", "0", "phase-", "x", "-1", "phase-1x"] {
            assert!(bad.parse::<PhaseId>().is_err(), "{bad}");
        }
    }
}
