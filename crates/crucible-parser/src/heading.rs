//! Phase headings: `## <Name> @agent[@version] #channel`.

use crucible_core::AgentRef;

/// A name, version or channel: an ASCII letter or digit, then letters,
/// digits and `extra`. (Checked by hand: a regex here cost 7% of parsing.)
fn is_word(s: &str, extra: &[u8]) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

/// `@name` or `@name@version`.
fn agent_token(word: &str) -> Option<AgentRef> {
    let rest = word.strip_prefix('@')?;
    let (name, version) = match rest.split_once('@') {
        Some((n, v)) => (n, Some(v)),
        None => (rest, None),
    };
    (is_word(name, b"_.-/") && version.is_none_or(|v| is_word(v, b"_.+-")))
        .then(|| AgentRef::new(name, version.map(str::to_owned)))
}

/// `#channel`.
fn channel_token(word: &str) -> Option<&str> {
    word.strip_prefix('#').filter(|c| is_word(c, b"_.-/"))
}

/// An ATX heading line taken apart.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HeadingLine<'a> {
    pub level: u8,
    /// The whole heading text, trimmed, closing `#`s removed.
    pub text: &'a str,
    /// The text without annotations.
    pub name: &'a str,
    pub agent: Option<AgentRef>,
    pub channel: Option<String>,
}

impl HeadingLine<'_> {
    pub(crate) fn is_phase(&self) -> bool {
        self.level >= 2 && (self.agent.is_some() || self.channel.is_some())
    }
}

/// Reads `## text` (up to three spaces of indent, an optional closing run of
/// `#`). `None` when the line is not an ATX heading.
pub(crate) fn parse(line: &str) -> Option<HeadingLine<'_>> {
    let line = line.trim_end_matches(['\n', '\r']);
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = rest.trim();
    // The optional closing sequence: a run of `#` after a space.
    match text.char_indices().rev().find(|&(_, c)| c != '#') {
        Some((pos, c)) => {
            let end = pos + c.len_utf8();
            if end < text.len() && matches!(c, ' ' | '\t') {
                text = text[..end].trim_end();
            }
        }
        None => text = "",
    }
    let mut rest = text;
    let mut agent = None;
    let mut channel = None;
    // Annotations are the trailing words: at most one agent and one channel,
    // in either order. The name is what precedes them, spacing untouched.
    for _ in 0..2 {
        let trimmed = rest.trim_end();
        let start = trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let last = &trimmed[start..];
        if agent.is_none()
            && let Some(a) = agent_token(last)
        {
            agent = Some(a);
            rest = &trimmed[..start];
            continue;
        }
        if channel.is_none()
            && let Some(c) = channel_token(last)
        {
            channel = Some(c.to_owned());
            rest = &trimmed[..start];
            continue;
        }
        break;
    }
    let name = rest.trim();
    Some(HeadingLine {
        level: level as u8,
        text,
        name,
        agent,
        channel,
    })
}

/// The heading line of a phase.
pub(crate) fn write_phase(
    level: u8,
    name: &str,
    agent: Option<&AgentRef>,
    channel: Option<&str>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !name.is_empty() {
        parts.push(name.to_owned());
    }
    if let Some(a) = agent {
        parts.push(format!("@{a}"));
    }
    if let Some(c) = channel {
        parts.push(format!("#{c}"));
    }
    write_plain(level, &parts.join(" "))
}

pub(crate) fn write_plain(level: u8, text: &str) -> String {
    let hashes = "#".repeat(level.clamp(1, 6) as usize);
    if text.is_empty() {
        hashes
    } else {
        format!("{hashes} {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_annotations_from_the_end() {
        let h = parse("## Research Phase @orchestrator #dev").unwrap();
        assert_eq!(h.name, "Research Phase");
        assert_eq!(h.agent.unwrap().to_string(), "orchestrator");
        assert_eq!(h.channel.as_deref(), Some("dev"));
        let h = parse("### Fix #ops @coder@1.0").unwrap();
        assert_eq!((h.level, h.name), (3, "Fix"));
        assert_eq!(h.agent.unwrap().version.as_deref(), Some("1.0"));
    }

    #[test]
    fn plain_headings_are_not_phases() {
        for (line, name) in [
            ("## Summary", "Summary"),
            ("## Notes on C#", "Notes on C#"),
            ("## Foo ##", "Foo"),
            ("# Title @x", "Title"),
        ] {
            let h = parse(line).unwrap();
            assert_eq!(h.name, name);
            assert!(!h.is_phase(), "{line}");
        }
        assert!(parse("#hashtag").is_none());
        for not_annotation in [
            "## A @",
            "## A @-x",
            "## A @a@",
            "## A #",
            "## A #.x",
            "## A @a b",
        ] {
            let h = parse(not_annotation).unwrap();
            assert!(h.agent.is_none() && h.channel.is_none(), "{not_annotation}");
        }
        assert!(parse("    ## code").is_none());
    }
}
