//! Callouts: `> [!decision]`, `> [!error]`, `> [!user]`, `> [!subagent]` and
//! any other kind a person or tool wrote.
//!
//! A callout is stored as written (kind, title line, body lines), which makes
//! round trips lossless whatever the body holds. The typed views
//! ([`Callout::error_parts`], [`Callout::user_parts`], [`Callout::subagent`])
//! are read from those lines on demand, and the constructors write lines that
//! the views read back.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use super::{AgentRef, SessionId, SessionIdError};

/// The callout kinds the format gives a meaning to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CalloutKind {
    Decision,
    Error,
    User,
    Subagent,
    /// Any other kind (`note`, `decision_needed`, ...), lower-cased.
    Other(String),
}

impl CalloutKind {
    pub fn parse(kind: &str) -> Self {
        match kind.to_ascii_lowercase().as_str() {
            "decision" => Self::Decision,
            "error" => Self::Error,
            "user" => Self::User,
            "subagent" => Self::Subagent,
            other => Self::Other(other.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Decision => "decision",
            Self::Error => "error",
            Self::User => "user",
            Self::Subagent => "subagent",
            Self::Other(k) => k,
        }
    }
}

/// A `> [!kind]` block quote.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Callout {
    /// The kind as written between `[!` and `]`.
    pub kind: String,
    /// Obsidian's fold marker after the `]`: `+` or `-`.
    #[serde(default)]
    pub fold: Option<char>,
    /// The rest of the first line, trimmed.
    #[serde(default)]
    pub title: String,
    /// The following lines without their `> ` prefix.
    #[serde(default)]
    pub body: Vec<String>,
}

/// How a subagent's work is logged in its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SubagentMode {
    /// The subagent's full work inside the parent's callout.
    Inline,
    /// A separate session file, linked with `[[id]]`.
    #[default]
    Link,
    /// A separate session file, transcluded with `![[id]]`.
    Embed,
}

impl SubagentMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inline => "inline",
            Self::Link => "link",
            Self::Embed => "embed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "inline" => Some(Self::Inline),
            "link" => Some(Self::Link),
            "embed" => Some(Self::Embed),
            _ => None,
        }
    }
}

impl std::fmt::Display for SubagentMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a `[!subagent]` callout says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentRef {
    /// From the title: `@agent@version`.
    pub agent: Option<AgentRef>,
    /// From the title: `(model)`.
    pub model: Option<String>,
    pub mode: SubagentMode,
    /// The child session of `link` and `embed` mode.
    pub target: Option<SessionId>,
    /// Lines before the `mode:` line (what was delegated).
    pub description: Vec<String>,
    /// Lines after it that are neither the link nor the summary: the inline work.
    pub content: Vec<String>,
    pub summary: Option<String>,
}

/// Why a `[!subagent]` callout cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubagentError {
    #[error(
        "subagent callout has no `mode:` line (expected `mode: inline`, `mode: link` or `mode: embed`)"
    )]
    MissingMode,
    #[error("subagent mode `{0}` is not one of inline, link, embed")]
    UnknownMode(String),
    #[error("subagent callout in {0} mode has no target (expected a `[[session-id]]` line)")]
    MissingTarget(SubagentMode),
    #[error("subagent link target `{target}` is not a valid session id: {source}")]
    InvalidTarget {
        target: String,
        source: SessionIdError,
    },
}

/// The words of the first `[!user]` callout among `blocks`: the quoted
/// words, else the callout's text. What a user said to start a phase.
pub fn first_user_words(blocks: &[crate::Block]) -> Option<String> {
    blocks.iter().find_map(|b| match b {
        crate::Block::Callout(c) if c.kind() == CalloutKind::User => Some(
            c.user_parts()
                .quote
                .unwrap_or_else(|| c.text().trim().to_owned()),
        ),
        _ => None,
    })
}

/// The parts of an `[!error]` callout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorParts {
    pub description: String,
    pub resolution: Option<String>,
}

/// The parts of a `[!user]` callout: `"exact words" - interpretation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserParts {
    /// The quoted words, without the quotes; `None` when the text is not quoted.
    pub quote: Option<String>,
    pub interpretation: Option<String>,
}

const RESOLUTION: &str = "resolution:";
const SUMMARY: &str = "summary:";

fn lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split('\n').map(str::to_owned)
}

impl Callout {
    pub fn new(kind: impl Into<String>, title: impl Into<String>, body: Vec<String>) -> Self {
        Self {
            kind: kind.into(),
            fold: None,
            title: title.into(),
            body,
        }
    }

    pub fn kind(&self) -> CalloutKind {
        CalloutKind::parse(&self.kind)
    }

    /// The body as one string, lines joined with `\n`.
    pub fn text(&self) -> String {
        self.body.join("\n")
    }

    pub fn decision(text: &str) -> Self {
        Self::new("decision", "", lines(text).collect())
    }

    pub fn error(description: &str, resolution: Option<&str>) -> Self {
        let mut body: Vec<String> = lines(description).collect();
        if let Some(r) = resolution {
            let mut r = lines(r);
            body.push(format!("Resolution: {}", r.next().unwrap_or_default()));
            body.extend(r);
        }
        Self::new("error", "", body)
    }

    pub fn user(quote: &str, interpretation: Option<&str>) -> Self {
        let text = match interpretation {
            Some(i) => format!("\"{quote}\" - {i}"),
            None => format!("\"{quote}\""),
        };
        Self::new("user", "", lines(&text).collect())
    }

    /// `> [!reply] @agent`: an agent's reply, its lines as written (CRLF
    /// and trailing blank lines dropped).
    pub fn reply(agent: Option<&AgentRef>, text: &str) -> Self {
        let text = text.replace("\r\n", "\n");
        let title = agent.map(|a| format!("@{a}")).unwrap_or_default();
        Self::new("reply", title, lines(text.trim_end()).collect())
    }

    /// A `[!subagent]` callout that [`Callout::subagent`] reads back as `sub`.
    pub fn from_subagent(sub: &SubagentRef) -> Self {
        let mut title = sub
            .agent
            .as_ref()
            .map(|a| format!("@{a}"))
            .unwrap_or_default();
        if let Some(model) = &sub.model {
            if !title.is_empty() {
                title.push(' ');
            }
            title.push_str(&format!("({model})"));
        }
        let mut body = sub.description.clone();
        body.push(format!("mode: {}", sub.mode));
        match (sub.mode, &sub.target) {
            (SubagentMode::Embed, Some(t)) => body.push(format!("![[{t}]]")),
            (_, Some(t)) => body.push(format!("[[{t}]]")),
            (_, None) => {}
        }
        body.extend(sub.content.iter().cloned());
        if let Some(summary) = &sub.summary {
            let mut s = lines(summary);
            body.push(format!("Summary: {}", s.next().unwrap_or_default()));
            body.extend(s);
        }
        Self::new("subagent", title, body)
    }

    /// Splits an error callout at its `Resolution:` line.
    pub fn error_parts(&self) -> ErrorParts {
        let at = self
            .body
            .iter()
            .position(|l| starts_with_ci(l.trim_start(), RESOLUTION));
        match at {
            None => ErrorParts {
                description: self.text().trim().to_owned(),
                resolution: None,
            },
            Some(i) => {
                let first = self.body[i].trim_start()[RESOLUTION.len()..].trim();
                let mut res = vec![first.to_owned()];
                res.extend(self.body[i + 1..].iter().cloned());
                ErrorParts {
                    description: self.body[..i].join("\n").trim().to_owned(),
                    resolution: Some(res.join("\n").trim().to_owned()).filter(|r| !r.is_empty()),
                }
            }
        }
    }

    /// Splits a user callout into the quoted words and what was made of them.
    pub fn user_parts(&self) -> UserParts {
        let text = self.text();
        let text = text.trim();
        let unquoted = || UserParts {
            quote: None,
            interpretation: Some(text.to_owned()).filter(|t| !t.is_empty()),
        };
        let Some(open) = text.chars().next().filter(|c| matches!(c, '"' | '“')) else {
            return unquoted();
        };
        let body = &text[open.len_utf8()..];
        // The closing quote is the last one followed by the end or a dash, so
        // quoted words inside the user's own words survive.
        let close = body.char_indices().rev().find_map(|(i, c)| {
            if !matches!(c, '"' | '”') {
                return None;
            }
            let rest = body[i + c.len_utf8()..].trim_start();
            if rest.is_empty() {
                Some((i, None))
            } else {
                let r = rest.strip_prefix(['-', '—', '–'])?;
                Some((i, Some(r.trim().to_owned()).filter(|r| !r.is_empty())))
            }
        });
        if let Some((i, interpretation)) = close {
            return UserParts {
                quote: Some(body[..i].to_owned()),
                interpretation,
            };
        }
        unquoted()
    }

    /// Reads a subagent callout; errors name what is missing.
    pub fn subagent(&self) -> Result<SubagentRef, SubagentError> {
        let (agent, model) = parse_subagent_title(&self.title);
        let mode_at = self
            .body
            .iter()
            .position(|l| starts_with_ci(l.trim(), "mode:"))
            .ok_or(SubagentError::MissingMode)?;
        let mode_text = self.body[mode_at].trim()["mode:".len()..].trim();
        let mode = SubagentMode::parse(mode_text)
            .ok_or_else(|| SubagentError::UnknownMode(mode_text.to_owned()))?;
        let mut target = None;
        let mut content = Vec::new();
        let mut summary: Option<Vec<String>> = None;
        for line in &self.body[mode_at + 1..] {
            if let Some(s) = summary.as_mut() {
                s.push(line.clone());
            } else if starts_with_ci(line.trim_start(), SUMMARY) {
                summary = Some(vec![line.trim_start()[SUMMARY.len()..].trim().to_owned()]);
            } else if let (None, Some(link)) = (&target, wikilink_target(line)) {
                target =
                    Some(
                        SessionId::new(link).map_err(|source| SubagentError::InvalidTarget {
                            target: link.to_owned(),
                            source,
                        })?,
                    );
            } else {
                content.push(line.clone());
            }
        }
        if mode != SubagentMode::Inline && target.is_none() {
            return Err(SubagentError::MissingTarget(mode));
        }
        Ok(SubagentRef {
            agent,
            model,
            mode,
            target,
            description: self.body[..mode_at].to_vec(),
            content,
            summary: summary.map(|s| s.join("\n").trim().to_owned()),
        })
    }
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
}

/// `@agent@version (model)`; either part may be missing.
fn parse_subagent_title(title: &str) -> (Option<AgentRef>, Option<String>) {
    let title = title.trim();
    let (agent, rest) = match title.strip_prefix('@') {
        Some(t) => {
            let end = t.find(char::is_whitespace).unwrap_or(t.len());
            (t[..end].parse().ok(), t[end..].trim())
        }
        None => (None, title),
    };
    let model = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty());
    (agent, model)
}

/// The target of a line that is only a wikilink or transclusion, optionally
/// after an arrow: `[[id]]`, `![[id]]`, `→ [[id]]`, `[[id|alias]]`.
pub fn wikilink_target(line: &str) -> Option<&str> {
    let l = line.trim();
    let l = l
        .strip_prefix('→')
        .or_else(|| l.strip_prefix("->"))
        .map_or(l, str::trim_start);
    let l = l.strip_prefix('!').unwrap_or(l);
    let inner = l.strip_prefix("[[")?.strip_suffix("]]")?;
    let end = inner.find(['|', '#']).unwrap_or(inner.len());
    Some(inner[..end].trim())
}

impl Serialize for Callout {
    /// The stored lines plus the typed view of the kinds the format defines,
    /// so `show --format json` consumers need not re-parse callout bodies.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Callout", 5)?;
        st.serialize_field("kind", &self.kind)?;
        if let Some(f) = self.fold {
            st.serialize_field("fold", &f)?;
        }
        st.serialize_field("title", &self.title)?;
        st.serialize_field("body", &self.body)?;
        match self.kind() {
            CalloutKind::Error => st.serialize_field("error", &self.error_parts())?,
            CalloutKind::User => st.serialize_field("user", &self.user_parts())?,
            CalloutKind::Subagent => {
                if let Ok(sub) = self.subagent() {
                    st.serialize_field("subagent", &sub)?;
                }
            }
            _ => {}
        }
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(lines: &[&str]) -> Vec<String> {
        lines.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn reads_a_linked_subagent_with_description_and_summary() {
        let c = Callout::new(
            "subagent",
            "@researcher@1.2 (claude-sonnet-4-20250514)",
            body(&[
                "Delegated deep research on logging formats.",
                "mode: link",
                "→ [[2025-12-05-research-logging]]",
                "Summary: Recommends structured markdown",
                "over TOON.",
            ]),
        );
        let s = c.subagent().unwrap();
        assert_eq!(s.agent.unwrap().to_string(), "researcher@1.2");
        assert_eq!(s.model.as_deref(), Some("claude-sonnet-4-20250514"));
        assert_eq!(s.mode, SubagentMode::Link);
        assert_eq!(s.target.unwrap().as_str(), "2025-12-05-research-logging");
        assert_eq!(
            s.summary.as_deref(),
            Some("Recommends structured markdown\nover TOON.")
        );
        assert_eq!(
            s.description,
            body(&["Delegated deep research on logging formats."])
        );
    }

    #[test]
    fn subagent_errors_name_what_is_missing() {
        let no_mode = Callout::new("subagent", "@a", body(&["[[x]]"]));
        assert_eq!(no_mode.subagent(), Err(SubagentError::MissingMode));
        let bad_target = Callout::new("subagent", "@a", body(&["mode: link", "[[../etc]]"]));
        assert!(matches!(
            bad_target.subagent(),
            Err(SubagentError::InvalidTarget { .. })
        ));
        let no_target = Callout::new("subagent", "@a", body(&["mode: embed"]));
        assert_eq!(
            no_target.subagent(),
            Err(SubagentError::MissingTarget(SubagentMode::Embed))
        );
    }

    #[test]
    fn constructors_are_read_back_by_the_views() {
        let sub = SubagentRef {
            agent: Some("coder@1.0".parse().unwrap()),
            model: Some("m".into()),
            mode: SubagentMode::Inline,
            target: None,
            description: body(&["did things"]),
            content: body(&["  ## Work", "  - step"]),
            summary: Some("ok".into()),
        };
        assert_eq!(Callout::from_subagent(&sub).subagent().unwrap(), sub);

        let e = Callout::error("it broke\nbadly", Some("retried"));
        assert_eq!(
            e.error_parts(),
            ErrorParts {
                description: "it broke\nbadly".into(),
                resolution: Some("retried".into())
            }
        );
        let u = Callout::user("say \"hi\" - please", Some("greeted"));
        assert_eq!(u.user_parts().quote.as_deref(), Some("say \"hi\" - please"));
        assert_eq!(u.user_parts().interpretation.as_deref(), Some("greeted"));
    }

    #[test]
    fn unquoted_user_text_is_all_interpretation() {
        let u = Callout::new("user", "", body(&["just do it"]));
        assert_eq!(u.user_parts().quote, None);
        assert_eq!(u.user_parts().interpretation.as_deref(), Some("just do it"));
    }
}
