//! The case model: what a learning case holds, and its stable id.

use serde::Serialize;

use crucible_core::ToolCall;

/// The two kinds of case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// From an `[!error]`: what went wrong, and what fixed it.
    Puzzle,
    /// From a `[!user]` intervention: what the agent did, the user's words,
    /// and what was done after.
    Correction,
}

impl CaseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Puzzle => "puzzle",
            Self::Correction => "correction",
        }
    }
}

/// Where a case comes from, for filtering a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseMeta {
    pub case_id: String,
    pub kind: CaseKind,
    pub session_id: String,
    pub phase_id: String,
    pub phase: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub session_status: String,
    pub started: String,
    /// A puzzle whose error has no resolution anywhere.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
}

/// What a case says, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CaseBody {
    Puzzle {
        /// The error as logged.
        failure: String,
        /// The resolution, or the decision that fixed it; `None`: open.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<String>,
        /// Where `expected` came from: `resolution` or `decision`.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_from: Option<String>,
    },
    Correction {
        /// The user's exact words.
        user_words: String,
        /// What was made of them.
        #[serde(skip_serializing_if = "Option::is_none")]
        interpretation: Option<String>,
        /// What the agent wrote just before (its prose and callouts).
        before_text: Vec<String>,
        /// The tool calls and notes after the intervention.
        after_calls: Vec<ToolCall>,
        after_text: Vec<String>,
    },
}

/// One learning case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    pub meta: CaseMeta,
    /// The session's title and first user intent.
    pub task: String,
    /// The session's system prompt, when it logged one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The earlier phases, one line each.
    pub history: Vec<String>,
    /// The case's phase's tool calls before the callout (the agent's actions).
    pub actions: Vec<ToolCall>,
    pub body: CaseBody,
}

/// FNV-1a, 64 bits: small, stable across runs and platforms (std's hasher
/// is neither promised), and enough for telling cases apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The id of a case: its kind and a hash of what it says (not of where it
/// was found), so the same case in two sessions has one id.
pub(crate) fn case_id(kind: CaseKind, parts: &[&str]) -> String {
    let mut text = String::from(kind.as_str());
    for p in parts {
        text.push('\u{1f}');
        text.push_str(&p.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    let prefix = match kind {
        CaseKind::Puzzle => "puz",
        CaseKind::Correction => "cor",
    };
    format!("{prefix}-{:016x}", fnv1a(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_ignore_spacing() {
        let a = case_id(CaseKind::Puzzle, &["Task", "it broke"]);
        assert_eq!(a, case_id(CaseKind::Puzzle, &["Task", "it   broke\n"]));
        assert_ne!(a, case_id(CaseKind::Correction, &["Task", "it broke"]));
        assert_eq!(a, "puz-".to_owned() + &a[4..]);
        assert_eq!(a.len(), 20);
        // Fixed for all time: a dataset's ids must not move between versions.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
