//! A fast reader for the small YAML subset session frontmatter uses.
//!
//! serde_yaml was about a third of cru's own parsing time on frontmatter a
//! few hundred bytes long. This reader handles what cru writes and what people
//! usually write by hand (`key: scalar`, lists of scalars, lists of flat
//! mappings, block mappings of scalars such as an imported session's `usage`
//! by model) and returns `None` for anything else, which then goes to
//! serde_yaml. It must never disagree with serde_yaml: a property test feeds
//! both the same documents, and the scalar rules below are deliberately
//! narrower than YAML's, giving up wherever the two could differ.

use std::collections::HashSet;

use serde_yaml::{Mapping, Value};

/// The number of top-level keys from which duplicates are found by hashing.
const HASH_KEYS_FROM: usize = 32;

/// The frontmatter's top-level entries, in order, as serde_yaml would read
/// them, or `None` to ask serde_yaml. (Entries, not a `Mapping`: hashing
/// each key into a map and copying it was a fifth of this reader.)
pub(crate) fn parse(yaml: &str) -> Option<Vec<(&str, Value)>> {
    // libyaml (under serde_yaml) reads NEL, U+2028 and U+2029 as line breaks
    // and rejects control characters; such documents are its to judge.
    if has_break_or_control(yaml) {
        return None;
    }
    let lines: Vec<&str> = yaml
        .strip_suffix('\n')
        .unwrap_or(yaml)
        .split('\n')
        .collect();
    let mut entries: Vec<(&str, Value)> = Vec::with_capacity(16);
    // Keys seen so far, hashed only once there are many: a scan of the few
    // entries a session usually has is cheaper than hashing, but a scan per
    // key made a frontmatter of 300,000 keys quadratic (over a minute).
    let mut seen_keys: Option<HashSet<&str>> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return None;
        }
        let (key, value) = key_value(line)?;
        let value = if value.is_empty() {
            let (block, next) = match lines.get(i) {
                Some(l) if indent(l) > 0 && !is_dash_line(l) => {
                    mapping(&lines, i, indent(l), MAX_DEPTH)?
                }
                _ => sequence(&lines, i)?,
            };
            i = next;
            block
        } else {
            scalar(value)?
        };
        let duplicate = match &mut seen_keys {
            Some(seen) => !seen.insert(key),
            None if entries.len() >= HASH_KEYS_FROM => {
                let mut seen: HashSet<&str> = entries.iter().map(|(k, _)| *k).collect();
                let duplicate = !seen.insert(key);
                seen_keys = Some(seen);
                duplicate
            }
            None => entries.iter().any(|(k, _)| *k == key),
        };
        if duplicate {
            return None; // a duplicate key: serde_yaml's error to report
        }
        entries.push((key, value));
    }
    Some(entries)
}

/// A control character (other than `\n`) or a character libyaml reads as a
/// line break or a byte order mark. Bytes for ASCII text, the usual case.
fn has_break_or_control(yaml: &str) -> bool {
    if yaml.is_ascii() {
        return yaml.bytes().any(|b| (b < b' ' && b != b'\n') || b == 0x7f);
    }
    yaml.chars().any(|c| {
        (c.is_control() && c != '\n')
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
    })
}

/// `key: value` with a plain key; the value may be empty.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    // Only keys YAML cannot read as anything but a string: `0`, `true` and
    // `null` are keys of other types to serde_yaml.
    let plain_word = key
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !plain_word || is_special_word(key) {
        return None;
    }
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim()))
}

/// Words some YAML reader gives a meaning other than text (null, booleans,
/// YAML 1.1's yes/no/on/off): the fast path leaves them to serde_yaml.
fn is_special_word(s: &str) -> bool {
    ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]
        .iter()
        .any(|w| s.eq_ignore_ascii_case(w))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// How deep block mappings may nest before the reader gives up (a
/// document nested deeper is serde_yaml's, which has its own limit).
const MAX_DEPTH: usize = 8;

fn is_dash_line(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ") || t == "-"
}

/// The block mapping whose keys are at `ind` spaces, starting at
/// `lines[start]`: keys that YAML reads as text, values that are scalars,
/// empty (null) or mappings nested deeper. Returns the mapping and the
/// index of the first line after it, or `None` for anything else (a
/// sequence inside, a blank line, a line indented oddly).
fn mapping(lines: &[&str], start: usize, ind: usize, depth: usize) -> Option<(Value, usize)> {
    let depth = depth.checked_sub(1)?;
    let mut m = Mapping::new();
    let mut i = start;
    while let Some(line) = lines.get(i) {
        if line.trim().is_empty() {
            return None;
        }
        match indent(line) {
            n if n < ind => break,
            n if n > ind => return None,
            _ => {}
        }
        let (key, value) = text_key_value(&line[ind..])?;
        i += 1;
        let value = if value.is_empty() {
            match lines.get(i) {
                Some(next) if indent(next) > ind => {
                    if is_dash_line(next) {
                        return None;
                    }
                    let (nested, after) = mapping(lines, i, indent(next), depth)?;
                    i = after;
                    nested
                }
                // A sequence at the key's own indent is YAML, but rare
                // enough here to leave to serde_yaml.
                Some(next) if is_dash_line(next) => return None,
                _ => Value::Null,
            }
        } else {
            scalar(value)?
        };
        if m.insert(Value::String(key.to_owned()), value).is_some() {
            return None; // a duplicate key: serde_yaml's error to report
        }
    }
    Some((Value::Mapping(m), i))
}

/// `key: value` inside a block mapping, where a key is any one-line
/// plain text (model names such as `gpt-5.1-codex-max`, or Ollama's
/// `llama3.1:70b`, whose colon is text: only `: ` or a line-ending `:`
/// ends a plain key), not only a word.
fn text_key_value(line: &str) -> Option<(&str, &str)> {
    let b = line.as_bytes();
    let at = (0..b.len()).find(|&i| ends_plain_key(b, i))?;
    let (key, rest) = (&line[..at], &line[at + 1..]);
    if key.is_empty() || key.trim() != key {
        return None;
    }
    match scalar(key)? {
        Value::String(s) if s == key => Some((key, rest.trim())),
        _ => None,
    }
}

/// The block sequence starting at `lines[start]`, or null when the key has
/// nothing under it. Returns the value and the index of the next line.
fn sequence(lines: &[&str], start: usize) -> Option<(Value, usize)> {
    let mut items = Vec::new();
    let mut i = start;
    let dash_indent = match lines.get(i) {
        Some(l) if l.trim_start().starts_with("- ") || l.trim() == "-" => indent(l),
        // `key:` with nothing under it is null.
        _ => return Some((Value::Null, i)),
    };
    while let Some(line) = lines.get(i) {
        if line.trim().is_empty() {
            return None;
        }
        if indent(line) != dash_indent || !line.trim_start().starts_with("- ") {
            break;
        }
        let item = line.trim_start()[2..].trim();
        i += 1;
        if item.contains(": ") || item.ends_with(':') {
            // A flat mapping: this line and the ones indented under it.
            let field_indent = dash_indent + 2;
            let mut m = Mapping::new();
            let (k, v) = key_value(item)?;
            m.insert(Value::String(k.to_owned()), scalar_or_empty(v)?);
            while let Some(l) = lines.get(i) {
                if l.trim().is_empty() || indent(l) <= dash_indent {
                    break;
                }
                if indent(l) != field_indent {
                    return None;
                }
                let (k, v) = key_value(&l[field_indent..])?;
                if m.insert(Value::String(k.to_owned()), scalar_or_empty(v)?)
                    .is_some()
                {
                    return None;
                }
                i += 1;
            }
            items.push(Value::Mapping(m));
        } else {
            items.push(scalar_or_empty(item)?);
        }
    }
    if dash_indent == 0 || lines.get(i).is_none_or(|l| indent(l) == 0) {
        Some((Value::Sequence(items), i))
    } else {
        None
    }
}

fn scalar_or_empty(v: &str) -> Option<Value> {
    if v.is_empty() {
        Some(Value::Null)
    } else {
        scalar(v)
    }
}

/// Whether `b[i]` is a `:` that ends a plain key: one followed by a space
/// or the end of the line (any other `:` is text, as in `llama3.1:70b`).
fn ends_plain_key(b: &[u8], i: usize) -> bool {
    b[i] == b':' && b.get(i + 1).is_none_or(|&n| n == b' ')
}

/// A scalar on one line, read as serde_yaml reads it, or `None` when unsure.
fn scalar(s: &str) -> Option<Value> {
    if let Some(inner) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.contains('\'')).then(|| Value::String(inner.to_owned()));
    }
    if let Some(inner) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return (!inner.contains(['"', '\\'])).then(|| Value::String(inner.to_owned()));
    }
    let first = s.chars().next()?;
    // YAML's indicators, which can give a first character another meaning.
    const INDICATORS: &[u8] = b"&*!|>'\"%@`{[]},#?:-.+~";
    if first.is_ascii() && INDICATORS.contains(&(first as u8)) && s != "~" {
        return None;
    }
    // `: `, ` #`, a tab, or a `:` at the end: one pass over the bytes (a
    // substring search per pattern cost more than the rest of this reader).
    let b = s.as_bytes();
    let awkward = b.iter().enumerate().any(|(i, &c)| match c {
        b':' => ends_plain_key(b, i),
        b'#' => i > 0 && b[i - 1] == b' ',
        b'\t' => true,
        _ => false,
    });
    if awkward {
        return None;
    }
    match s {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ if is_special_word(s) => return None,
        _ => {}
    }
    if first.is_ascii_digit() {
        let b = s.as_bytes();
        if b.iter().all(u8::is_ascii_digit) {
            if b.len() > 1 && b[0] == b'0' {
                return None;
            }
            return s.parse::<u64>().ok().map(Value::from);
        }
        // Something that starts with a digit is a string for certain only
        // when no YAML number could contain it: a `:`, or a letter that is
        // neither an exponent nor a hex/octal/binary marker or digit.
        let surely_text = b.iter().enumerate().any(|(i, &c)| {
            c == b':'
                || c == b' '
                || (c.is_ascii_alphabetic() && !b"eExXoObBaAcCdDfF".contains(&c))
                || (c == b'-' && !matches!(b[i - 1], b'e' | b'E'))
        });
        if !surely_text {
            if let Some((int, frac)) = s.split_once('.')
                && !int.is_empty()
                && !frac.is_empty()
                && (int == "0" || !int.starts_with('0'))
                && int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
            {
                return s.parse::<f64>().ok().map(Value::from);
            }
            return None;
        }
    }
    Some(Value::String(s.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_serde_yaml(doc: &str) {
        if let Some(fast) = parse(doc) {
            let fast: Mapping = fast
                .into_iter()
                .map(|(k, v)| (Value::String(k.to_owned()), v))
                .collect();
            let slow: Mapping = serde_yaml::from_str(doc).unwrap();
            assert_eq!(fast, slow, "{doc}");
        }
    }

    #[test]
    fn reads_cru_frontmatter_like_serde_yaml() {
        let doc = "type: session\nsession_id: 2025-12-05-feature-impl\nstarted: 2025-12-05T14:32:15Z\n\
                   status: completed\nparticipants:\n  - orchestrator@1.0\n  - researcher@1.2\n\
                   tokens_used: 18420\ncost_usd: 0.184\nsubagents:\n  - session: 2025-12-05-x\n    \
                   agent: researcher@1.2\n    tokens: 3200\nresume_point: null\nlabels:\n- a\n- 'b c'\nempty:\n";
        assert!(parse(doc).is_some());
        same_as_serde_yaml(doc);
        for doc in [
            "a: 2025-12-05",
            "a: 12-x",
            "a: 1.5",
            "a: 0.0",
            "a: 7",
            "a: v1.2",
            "a: 'x'",
            "a:\n  b: c",
            "usage:\n  input: 5\n  models:\n    claude-opus-4-5-20251101:\n      input: 3\n    gpt-5.1-codex-max:\n      output: 2\nstatus: paused",
            "a:\n  b:\n  c: d",
            // Ollama's model names hold a colon: text, inside a plain key.
            "usage:\n  models:\n    llama3.1:70b:\n      input: 3\n    qwen2.5-coder:32b: 4\n    a:b:c: x:y",
        ] {
            assert!(parse(doc).is_some(), "{doc}");
            same_as_serde_yaml(doc);
        }
        // Keys with a colon that YAML may read otherwise: the same, if taken.
        for doc in [
            "a:\n  12:30: x",
            "a:\n  2025-12-05T14:32:15Z: x",
            "a:\n  b:: c",
            "a:\n  :b: c",
        ] {
            same_as_serde_yaml(doc);
        }
    }

    /// The fast path is only worth having if what cru writes takes it.
    #[test]
    fn every_fixture_frontmatter_takes_the_fast_path() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions");
        for path in crucible_core::store::session_files(&dir).unwrap() {
            let text = std::fs::read_to_string(&path).unwrap();
            let yaml = crate::frontmatter::split(&text).unwrap().yaml;
            assert!(parse(yaml).is_some(), "{}", path.display());
            same_as_serde_yaml(yaml);
        }
    }

    #[test]
    fn gives_up_where_yaml_gets_subtle() {
        for doc in [
            "a: 0x10",
            "a: 1e3",
            "a: -1",
            "a: .inf",
            "a: yes",
            "a: 'it''s'",
            "a: \"q\\n\"",
            "a: [1, 2]",
            "a: {b: c}",
            "a: b: c",
            "a: b # comment",
            "a:\n  b:\n  - c",
            "a:\n  b:\n    - c",
            "a:\n  b: c\n    d",
            "a:\n  b: c\n\n  d: e",
            "a:\n    b: c\n  d: e",
            "a:\n  b: 1\n  b: 2",
            "a:\n  'b': c",
            "a:\n  b c : d",
            "a:\n  1: c",
            "a:\n  ~: c",
            "a:\n  b:\n   c:\n    d:\n     e:\n      f:\n       g:\n        h:\n         i:\n          j: k",
            "a: &x 1",
            "a: |\n  text",
            "a: 012",
            "a: 1e-3",
            "a: 1_000",
            "a: 1.",
            "? a\n: b",
            "a: 1\na: 2",
        ] {
            assert!(parse(doc).is_none(), "{doc}");
        }
    }

    mod differential {
        use proptest::prelude::*;

        /// Scalars from the alphabet where YAML's rules are subtle.
        fn scalar_text() -> impl Strategy<Value = String> {
            prop_oneof![
                "[-+.0-9a-fA-FxXoObBeEtTZz:_ ~#'\"@&*!|>%\\,\\[\\]{}?\t\u{85}\u{2028}\u{7f}\u{feff}é]{0,12}",
                prop::sample::select(vec![
                    "null",
                    "Null",
                    "~",
                    "true",
                    "False",
                    "yes",
                    "No",
                    "on",
                    "0",
                    "00",
                    "01",
                    "1.0",
                    "1.",
                    ".5",
                    "-0",
                    "+1",
                    "0x1F",
                    "0o17",
                    "0b11",
                    "1e5",
                    "1E-2",
                    ".inf",
                    "-.Inf",
                    ".NaN",
                    "2025-12-05",
                    "2025-12-05T14:32:15Z",
                    "12:30",
                    "1_000",
                    "3.14159",
                    "18446744073709551616",
                    "9223372036854775808",
                    "phase-3",
                    "a@1.0",
                ])
                .prop_map(str::to_owned),
            ]
        }

        /// A block mapping at `ind` spaces whose keys are the values
        /// themselves (model names and YAML's awkward words alike), a
        /// level deeper every other entry.
        fn nested(vals: &[String], ind: usize, depth: usize) -> String {
            let pad = " ".repeat(ind);
            vals.iter()
                .enumerate()
                .map(|(i, v)| {
                    if i % 2 == 1 && depth > 0 {
                        let inner = nested(&vals[..i], ind + 2, depth - 1);
                        format!("{pad}{v}:\n{inner}")
                    } else {
                        format!("{pad}{v}: {}\n", vals[vals.len() - 1 - i])
                    }
                })
                .collect()
        }

        fn doc() -> impl Strategy<Value = String> {
            let entry = (
                "[a-z_]{1,6}",
                prop::collection::vec(scalar_text(), 0..3),
                0usize..4,
                any::<bool>(),
            )
                .prop_map(|(k, vals, shape, indent)| {
                    let pad = if indent { "  " } else { "" };
                    match (shape, vals.first()) {
                        (0, Some(v)) => format!("{k}: {v}\n"),
                        (3, _) => format!("{k}:\n{}", nested(&vals, if indent { 2 } else { 1 }, 2)),
                        (1, _) => {
                            let items: String =
                                vals.iter().map(|v| format!("{pad}- {v}\n")).collect();
                            format!("{k}:\n{items}")
                        }
                        (_, _) => {
                            let fields: String = vals
                                .iter()
                                .enumerate()
                                .map(|(i, v)| {
                                    let lead = if i == 0 {
                                        format!("{pad}- ")
                                    } else {
                                        format!("{pad}  ")
                                    };
                                    let key = if i == 1 {
                                        "0".to_owned()
                                    } else {
                                        format!("f{i}")
                                    };
                                    format!("{lead}{key}: {v}\n")
                                })
                                .collect();
                            format!("{k}:\n{fields}")
                        }
                    }
                });
            prop::collection::vec(entry, 0..6).prop_map(|e| e.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

            #[test]
            fn never_disagrees_with_serde_yaml(doc in doc()) {
                if let Some(fast) = super::super::parse(&doc) {
                    let fast: serde_yaml::Mapping = fast
                        .into_iter()
                        .map(|(k, v)| (serde_yaml::Value::String(k.to_owned()), v))
                        .collect();
                    let slow = serde_yaml::from_str::<serde_yaml::Value>(&doc);
                    prop_assert!(slow.is_ok(), "fast read what serde_yaml rejects:\n{}", doc);
                    let slow = match slow.unwrap() {
                        serde_yaml::Value::Null => serde_yaml::Mapping::new(),
                        serde_yaml::Value::Mapping(m) => m,
                        other => panic!("not a mapping: {other:?}"),
                    };
                    prop_assert_eq!(fast, slow, "document:\n{}", doc);
                }
            }
        }
    }
}
