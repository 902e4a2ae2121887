//! The YAML frontmatter: finding it, reading it into [`Frontmatter`], writing it.
//!
//! We split the frontmatter from the body ourselves and parse the YAML with
//! serde_yaml into an ordered mapping, rather than through gray_matter, which
//! drops key order, rebuilds the body and gives no data for frontmatter that
//! is never closed (see docs/decisions/0001-frontmatter.md).

use std::borrow::Cow;
use std::collections::HashMap;

use crucible_core::{
    AgentRef, Frontmatter, PhaseId, SessionId, SessionStatus, SubagentEntry, Timestamp,
};
use serde_yaml::{Mapping, Value};

use crate::error::{ParseErrorKind, describe_yaml};

/// Where the frontmatter and the body are in a file's text.
#[derive(Debug)]
pub(crate) struct Split<'a> {
    pub yaml: &'a str,
    pub body: &'a str,
    /// The file line the body starts on.
    pub body_line: usize,
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits `---\n<yaml>\n---\n<body>`. The closing line may also be `...`.
pub(crate) fn split(text: &str) -> Result<Split<'_>, ParseErrorKind> {
    let first_end = text.find('\n').unwrap_or(text.len());
    if !is_fence(&text[..first_end]) {
        return Err(ParseErrorKind::MissingFrontmatter);
    }
    let yaml_start = (first_end + 1).min(text.len());
    let mut pos = yaml_start;
    let mut line = 2;
    while pos < text.len() {
        let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        let l = &text[pos..end];
        if is_fence(l) || l.trim_end() == "..." {
            return Ok(Split {
                yaml: &text[yaml_start..pos],
                body: &text[(end + 1).min(text.len())..],
                body_line: line + 1,
            });
        }
        pos = end + 1;
        line += 1;
    }
    Err(ParseErrorKind::UnclosedFrontmatter)
}

/// The file line of top-level `key:` in the frontmatter, else line 1.
/// The key may be quoted (`"type": x`, `'type': x`), as YAML allows.
pub(crate) fn key_line(yaml: &str, key: &str) -> usize {
    let written_as = |l: &str, q: &str| {
        l.strip_prefix(q)
            .and_then(|r| r.strip_prefix(key))
            .and_then(|r| r.strip_prefix(q))
            .is_some_and(|r| r.trim_start().starts_with(':'))
    };
    yaml.lines()
        .position(|l| ["", "\"", "'"].iter().any(|q| written_as(l, q)))
        .map_or(1, |i| i + 2)
}

/// A frontmatter problem and the line it is on.
pub(crate) type FieldError = (usize, ParseErrorKind);

/// Reads the YAML text into a [`Frontmatter`], collecting every problem.
pub(crate) fn parse(yaml: &str) -> Result<Frontmatter, Vec<FieldError>> {
    if let Some(entries) = crate::simple_yaml::parse(yaml) {
        let entries = entries.into_iter().map(|(k, v)| (Ok(Cow::Borrowed(k)), v));
        return FieldReader::new(yaml).read(entries);
    }
    let value: Value = if yaml.trim().is_empty() {
        Value::Mapping(Mapping::new())
    } else {
        serde_yaml::from_str(yaml).map_err(|e| {
            let line = e.location().map_or(1, |l| l.line() + 1);
            let message = e.to_string();
            // serde_yaml appends its own "at line N column M", counted inside
            // the frontmatter; we give the file line instead.
            let message = message
                .split(" at line ")
                .next()
                .unwrap_or(&message)
                .to_owned();
            vec![(line, ParseErrorKind::InvalidYaml { message })]
        })?
    };
    let Value::Mapping(map) = value else {
        return Err(vec![(
            2,
            ParseErrorKind::FrontmatterNotMapping {
                found: describe_yaml(&value),
            },
        )]);
    };
    let entries = map.into_iter().map(|(k, v)| match k {
        Value::String(k) => (Ok(Cow::Owned(k)), v),
        other => (Err(other), v),
    });
    FieldReader::new(yaml).read(entries)
}

/// A top-level key: text, or the YAML value of a key that is not text.
type Key<'a> = Result<Cow<'a, str>, Value>;

/// The fields read so far; the required ones apart, as they have no default.
struct Fields {
    kind_seen: bool,
    id: Option<SessionId>,
    started: Option<Timestamp>,
    status: Option<SessionStatus>,
    rest: Frontmatter,
}

struct FieldReader<'a> {
    yaml: &'a str,
    errors: Vec<FieldError>,
    /// The line of each key that has failed so far: a list of many bad
    /// items under a key far down the frontmatter would otherwise scan the
    /// whole frontmatter once per item.
    key_lines: HashMap<String, usize>,
}

impl<'a> FieldReader<'a> {
    fn new(yaml: &'a str) -> Self {
        Self {
            yaml,
            errors: Vec::new(),
            key_lines: HashMap::new(),
        }
    }

    fn line_of(&mut self, key: &str) -> usize {
        if let Some(&line) = self.key_lines.get(key) {
            return line;
        }
        let line = key_line(self.yaml, key);
        self.key_lines.insert(key.to_owned(), line);
        line
    }

    fn fail(&mut self, key: &str, kind: ParseErrorKind) {
        let line = self.line_of(key);
        self.errors.push((line, kind));
    }

    fn wrong_type(&mut self, key: &str, expected: &'static str, v: &Value) {
        self.fail(
            key,
            ParseErrorKind::WrongType {
                field: key.to_owned(),
                expected,
                found: describe_yaml(v),
            },
        );
    }

    /// A string, or a number or boolean read as its text; `None` for null.
    fn text<'v>(&mut self, key: &str, v: &'v Value) -> Option<Cow<'v, str>> {
        match v {
            Value::String(s) => Some(Cow::Borrowed(s)),
            Value::Number(n) => Some(Cow::Owned(n.to_string())),
            Value::Bool(b) => Some(Cow::Owned(b.to_string())),
            Value::Null => None,
            other => {
                self.wrong_type(key, "a string", other);
                None
            }
        }
    }

    /// [`Self::text`], keeping the string of `v` itself.
    fn owned_text(&mut self, key: &str, v: Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s),
            other => self.text(key, &other).map(Cow::into_owned),
        }
    }

    fn parsed<T, E: std::fmt::Display>(
        &mut self,
        key: &str,
        v: &Value,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        let s = self.text(key, v)?;
        match parse(&s) {
            Ok(t) => Some(t),
            Err(e) => {
                self.fail(
                    key,
                    ParseErrorKind::InvalidValue {
                        field: key.to_owned(),
                        message: e.to_string(),
                    },
                );
                None
            }
        }
    }

    fn count(&mut self, key: &str, v: &Value) -> Option<u64> {
        match v {
            Value::Null => None,
            Value::Number(n)
                if n.as_u64()
                    .is_some_and(|n| n <= crucible_core::MAX_SUM_TOKENS) =>
            {
                n.as_u64()
            }
            Value::Number(n) if n.as_u64().is_some() => {
                self.wrong_type(key, "a whole number of tokens up to 10^15", v);
                None
            }
            other => {
                self.wrong_type(key, "a whole number", other);
                None
            }
        }
    }

    fn read(
        mut self,
        entries: impl Iterator<Item = (Key<'a>, Value)>,
    ) -> Result<Frontmatter, Vec<FieldError>> {
        let mut fields = Fields {
            kind_seen: false,
            id: None,
            started: None,
            status: None,
            rest: Frontmatter::new(
                SessionId::new("placeholder").expect("a literal valid id"),
                "1970-01-01".parse().expect("a literal valid timestamp"),
            ),
        };
        for (k, v) in entries {
            let key = match k {
                Ok(key) => key,
                Err(k) => {
                    self.errors.push((
                        2,
                        ParseErrorKind::WrongType {
                            field: "frontmatter key".into(),
                            expected: "a string",
                            found: describe_yaml(&k),
                        },
                    ));
                    continue;
                }
            };
            if let Some(not_a_session) = self.field(&mut fields, key, v) {
                // Nothing else about a file that is not a session matters.
                return Err(vec![not_a_session]);
            }
        }
        self.finish(fields)
    }

    /// Reads one top-level entry into `f`; the error when `type` says the
    /// file is not a session.
    fn field(&mut self, f: &mut Fields, key: Cow<'a, str>, v: Value) -> Option<FieldError> {
        let rest = &mut f.rest;
        match key.as_ref() {
            "type" => {
                f.kind_seen = true;
                let t = self.text(&key, &v).unwrap_or_default().into_owned();
                if t != "session" {
                    return Some((
                        key_line(self.yaml, "type"),
                        ParseErrorKind::NotASession { found: t },
                    ));
                }
            }
            "session_id" => f.id = self.parsed(&key, &v, SessionId::new),
            "started" => f.started = self.parsed(&key, &v, str::parse::<Timestamp>),
            "status" => {
                if let Some(s) = self.text(&key, &v) {
                    match s.parse::<SessionStatus>() {
                        Ok(s) => f.status = Some(s),
                        Err(e) => self.fail(&key, e.into()),
                    }
                }
            }
            "ended" => rest.ended = self.parsed(&key, &v, str::parse::<Timestamp>),
            "title" => rest.title = self.owned_text(&key, v),
            "channel" => rest.channel = self.owned_text(&key, v),
            "model" => rest.model = self.owned_text(&key, v),
            "participants" => rest.participants = self.participants(&key, &v),
            "tokens_used" => rest.tokens_used = self.count(&key, &v),
            "cost_usd" => {
                rest.cost_usd = match &v {
                    Value::Null => None,
                    Value::Number(n) => {
                        let cost = n.as_f64().filter(|&c| crucible_core::is_cost(c));
                        // A number that is no cost (negative, over $1M) is
                        // kept as written, not read; `validate` names it.
                        if cost.is_none() {
                            rest.extra
                                .insert(key.into_owned(), crate::yaml::from_serde_yaml(v));
                        }
                        cost
                    }
                    other => {
                        self.wrong_type(&key, "a number", other);
                        None
                    }
                }
            }
            "subagents" => rest.subagents = self.subagents(&key, v),
            "resume_point" => {
                rest.resume_point = self.parsed(&key, &v, str::parse::<PhaseId>);
            }
            "parent" => rest.parent = self.parsed(&key, &v, SessionId::new),
            _ => {
                rest.extra
                    .insert(key.into_owned(), crate::yaml::from_serde_yaml(v));
            }
        }
        None
    }

    /// The frontmatter, or every problem: a required field missing counts
    /// unless its value was already reported.
    fn finish(mut self, f: Fields) -> Result<Frontmatter, Vec<FieldError>> {
        for (present, field) in [
            (f.kind_seen, "type"),
            (
                f.id.is_some() || self.has_error_for("session_id"),
                "session_id",
            ),
            (
                f.started.is_some() || self.has_error_for("started"),
                "started",
            ),
            (f.status.is_some() || self.has_error_for("status"), "status"),
        ] {
            if !present {
                self.errors
                    .push((1, ParseErrorKind::MissingField { field }));
            }
        }
        match (f.id, f.started, f.status) {
            (Some(id), Some(started), Some(status)) if self.errors.is_empty() => Ok(Frontmatter {
                session_id: id,
                started,
                status,
                ..f.rest
            }),
            _ => Err(self.errors),
        }
    }

    fn has_error_for(&mut self, key: &str) -> bool {
        let line = self.line_of(key);
        line > 1 && self.errors.iter().any(|(l, _)| *l == line)
    }

    fn participants(&mut self, key: &str, v: &Value) -> Vec<AgentRef> {
        match v {
            Value::Null => Vec::new(),
            Value::Sequence(items) => items
                .iter()
                .filter_map(|item| self.parsed(key, item, str::parse::<AgentRef>))
                .collect(),
            other => {
                self.wrong_type(key, "a list of name@version", other);
                Vec::new()
            }
        }
    }

    fn subagents(&mut self, key: &str, v: Value) -> Vec<SubagentEntry> {
        let items = match v {
            Value::Null => return Vec::new(),
            Value::Sequence(items) => items,
            other => {
                self.wrong_type(key, "a list of {session, agent, model, tokens}", &other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            let Value::Mapping(map) = item else {
                self.wrong_type(key, "a list of {session, agent, model, tokens}", &item);
                continue;
            };
            let mut session = None;
            let mut entry = SubagentEntry {
                session: SessionId::new("placeholder").expect("a literal valid id"),
                agent: None,
                model: None,
                tokens: None,
                extra: crucible_core::yaml::Mapping::new(),
            };
            for (k, v) in map {
                match k.as_str() {
                    Some("session") => session = self.parsed(key, &v, SessionId::new),
                    Some("agent") => entry.agent = self.parsed(key, &v, str::parse::<AgentRef>),
                    Some("model") => entry.model = self.owned_text(key, v),
                    Some("tokens") => entry.tokens = self.count(key, &v),
                    _ => {
                        entry.extra.insert(
                            crate::yaml::from_serde_yaml(k),
                            crate::yaml::from_serde_yaml(v),
                        );
                    }
                }
            }
            match session {
                Some(s) => out.push(SubagentEntry {
                    session: s,
                    ..entry
                }),
                None => self.fail(
                    key,
                    ParseErrorKind::MissingField {
                        field: "subagents[].session",
                    },
                ),
            }
        }
        out
    }
}

/// A YAML scalar as serde_yaml would write it (quoted only when it must be).
fn scalar(v: &Value) -> String {
    let s = serde_yaml::to_string(v).unwrap_or_default();
    s.strip_suffix('\n').unwrap_or(&s).to_owned()
}

/// A text value as YAML. serde_yaml leaves some strings plain that YAML 1.1
/// readers (gray_matter, PyYAML) take for numbers or booleans (`01e310`,
/// `1_000`, `yes`, `1:20`); those are single-quoted, so every reader gets
/// the text back.
fn text_scalar(value: &str) -> String {
    let plain = scalar(&Value::String(value.to_owned()));
    if !plain.starts_with(['\'', '"']) && yaml11_non_string(value) {
        format!("'{}'", value.replace('\'', "''"))
    } else {
        plain
    }
}

/// True for text a YAML 1.1 reader resolves to a number, a boolean or null.
pub(crate) fn yaml11_non_string(s: &str) -> bool {
    const WORDS: [&str; 26] = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
    ];
    if WORDS.contains(&s) {
        return true;
    }
    let t = s.strip_prefix(['+', '-']).unwrap_or(s);
    if matches!(t, ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    // Readers that try Rust's own number parsing on plain scalars (as
    // gray_matter's does) also take `inf`, `1.`, `0o-0` or `0x+f`.
    if s.parse::<f64>().is_ok() {
        return true;
    }
    for (prefix, radix) in [("0o", 8), ("0x", 16)] {
        if let Some(rest) = s.strip_prefix(prefix)
            && i64::from_str_radix(rest, radix).is_ok()
        {
            return true;
        }
    }
    let b = t.as_bytes();
    if b.first().is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
        // Digits, `_`, `.`, `:` and one exponent: ints, floats, octal and
        // hex (0x...), and base-60 (1:20) all look like this.
        let hex = t.starts_with("0x") && b[2..].iter().all(|c| c.is_ascii_hexdigit() || *c == b'_');
        let mut seen_e = false;
        let numeric = b.iter().enumerate().all(|(i, &c)| match c {
            b'0'..=b'9' | b'_' | b'.' | b':' => true,
            b'e' | b'E' if !seen_e && i > 0 => {
                seen_e = true;
                true
            }
            b'+' | b'-' => i > 0 && matches!(b[i - 1], b'e' | b'E'),
            _ => false,
        });
        return (hex && b.len() > 2) || (numeric && b.iter().any(u8::is_ascii_digit));
    }
    false
}

fn text_line(out: &mut String, key: &str, value: &str) {
    // A multi-line value comes back from serde_yaml as a block scalar indented
    // from column 0, which is what a top-level key needs.
    out.push_str(&format!("{key}: {}\n", text_scalar(value)));
}

/// A mapping of one key, borrowed: how each extra key is written.
struct OneEntry<'a>(
    &'a crucible_core::yaml::Value,
    &'a crucible_core::yaml::Value,
);

impl serde::Serialize for OneEntry<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, self.1)?;
        map.end()
    }
}

/// Writes the frontmatter in canonical order, `---` lines included.
pub(crate) fn write(fm: &Frontmatter, out: &mut String) {
    out.push_str("---\ntype: session\n");
    text_line(out, "session_id", fm.session_id.as_str());
    if let Some(t) = &fm.title {
        text_line(out, "title", t);
    }
    text_line(out, "started", fm.started.as_str());
    if let Some(e) = &fm.ended {
        text_line(out, "ended", e.as_str());
    }
    out.push_str(&format!("status: {}\n", fm.status));
    if let Some(c) = &fm.channel {
        text_line(out, "channel", c);
    }
    if !fm.participants.is_empty() {
        out.push_str("participants:\n");
        for p in &fm.participants {
            out.push_str(&format!("  - {}\n", text_scalar(&p.to_string())));
        }
    }
    if let Some(m) = &fm.model {
        text_line(out, "model", m);
    }
    if let Some(t) = fm.tokens_used {
        out.push_str(&format!("tokens_used: {t}\n"));
    }
    if let Some(c) = fm.cost_usd {
        out.push_str(&format!("cost_usd: {}\n", scalar(&Value::from(c))));
    }
    if !fm.subagents.is_empty() {
        out.push_str("subagents:\n");
        for s in &fm.subagents {
            out.push_str(&format!(
                "  - session: {}\n",
                text_scalar(s.session.as_str())
            ));
            if let Some(a) = &s.agent {
                out.push_str(&format!("    agent: {}\n", text_scalar(&a.to_string())));
            }
            // A model of several lines goes with the other keys: serde_yaml
            // indents its block scalar for the entry.
            let mut rest = crucible_core::yaml::Mapping::new();
            match &s.model {
                Some(m) if m.contains('\n') => {
                    rest.insert("model", m.as_str());
                }
                Some(m) => out.push_str(&format!("    model: {}\n", text_scalar(m))),
                None => {}
            }
            if let Some(t) = s.tokens {
                out.push_str(&format!("    tokens: {t}\n"));
            }
            for (k, v) in &s.extra {
                rest.insert(k.clone(), v.clone());
            }
            if !rest.is_empty() {
                let yaml = crate::yaml::to_string(&rest);
                for line in yaml.lines() {
                    out.push_str("    ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    // Always written, `null` included: a reader sees at a glance whether the
    // session can be resumed, as in the spec's own example.
    match fm.resume_point {
        Some(r) => out.push_str(&format!("resume_point: {r}\n")),
        None => out.push_str("resume_point: null\n"),
    }
    if let Some(p) = &fm.parent {
        text_line(out, "parent", p.as_str());
    }
    for (k, v) in &fm.extra {
        // One key at a time, each a mapping of its own: the same bytes as
        // the whole mapping, without copying it.
        out.push_str(&crate::yaml::to_string(&OneEntry(k, v)));
    }
    out.push_str("---\n");
}

/// [`key_line`] over a whole file's bytes.
pub(crate) fn key_line_in(bytes: &[u8], key: &str) -> usize {
    let text = String::from_utf8_lossy(bytes);
    split(&text.replace("\r\n", "\n")).map_or(1, |s| key_line(s.yaml, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_key_line_however_the_key_is_written() {
        let yaml = "a: 1\n\"type\": session\n'session_id' : x\nstatus : done\n";
        assert_eq!(key_line(yaml, "type"), 3);
        assert_eq!(key_line(yaml, "session_id"), 4);
        assert_eq!(key_line(yaml, "status"), 5);
        assert_eq!(key_line(yaml, "started"), 1);
        assert_eq!(key_line("types: x\n", "type"), 1);
    }

    #[test]
    fn splits_and_finds_the_body_line() {
        let s = split("---\na: 1\n---\nbody\n").unwrap();
        assert_eq!((s.yaml, s.body, s.body_line), ("a: 1\n", "body\n", 4));
        assert_eq!(
            split("---\na: 1\n").unwrap_err(),
            ParseErrorKind::UnclosedFrontmatter
        );
        assert_eq!(
            split("# no\n").unwrap_err(),
            ParseErrorKind::MissingFrontmatter
        );
        assert_eq!(split("---\n---").unwrap().body, "");
    }

    #[test]
    fn collects_every_field_error_with_its_line() {
        let yaml =
            "type: session\nsession_id: ../x\nstarted: soon\nstatus: done\ntokens_used: lots\n";
        let errors = parse(yaml).unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [3, 4, 5, 6], "{errors:?}");
    }
}
