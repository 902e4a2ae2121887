//! Edits to a JSON text that touch only the bytes they must: a value added
//! at the end of an object or array is written in the style of what is
//! already there (the whitespace before its first child is copied, so the
//! indent, tabs and `\r\n` line ends are the file's), and a value taken out
//! goes with the comma and whitespace that an insertion brought, so adding
//! and then taking out gives back the same bytes.

use serde_json::Value;

use super::json_text::{Kind, Node};

/// Replace `start..end` of the text with `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Splice {
    pub start: usize,
    pub end: usize,
    pub with: String,
}

impl Splice {
    pub fn replace(node: &Node, with: String) -> Self {
        Splice {
            start: node.start,
            end: node.end,
            with,
        }
    }
}

/// `text` with the `splices` (which do not overlap) made.
pub(crate) fn apply(text: &str, mut splices: Vec<Splice>) -> String {
    splices.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = text.to_owned();
    for s in splices {
        out.replace_range(s.start..s.end, &s.with);
    }
    out
}

/// How the file writes what a new value is written like when its
/// container has no child to copy from.
#[derive(Debug, Clone)]
pub(crate) struct Style {
    newline: &'static str,
    unit: String,
    /// False for a file written on one line: new values are too.
    pretty: bool,
}

impl Style {
    /// The style of `text`, whose top value is `root`.
    pub fn of(text: &str, root: &Node) -> Self {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let lead = child_spans(root)
            .first()
            .map_or("", |first| &text[root.start + 1..first.0]);
        let pretty = lead.contains('\n') || child_spans(root).is_empty();
        let unit = match lead.rsplit_once('\n') {
            Some((_, indent)) if !indent.is_empty() => indent.to_owned(),
            _ => "  ".to_owned(),
        };
        Style {
            newline,
            unit,
            pretty,
        }
    }

    /// A new file holding `value`.
    pub fn new_file(value: &Value) -> String {
        let style = Style {
            newline: "\n",
            unit: "  ".to_owned(),
            pretty: true,
        };
        let mut text = style.render(value, "", true);
        text.push('\n');
        text
    }

    fn render(&self, value: &Value, indent: &str, pretty: bool) -> String {
        let inner = format!("{indent}{}", self.unit);
        let (open, close, items): (_, _, Vec<String>) = match value {
            Value::Object(m) if !m.is_empty() => (
                '{',
                '}',
                m.iter()
                    .map(|(k, v)| format!("{}: {}", quoted(k), self.render(v, &inner, pretty)))
                    .collect(),
            ),
            Value::Array(a) if !a.is_empty() => (
                '[',
                ']',
                a.iter().map(|v| self.render(v, &inner, pretty)).collect(),
            ),
            other => return other.to_string(),
        };
        if pretty {
            let nl = self.newline;
            let sep = format!(",{nl}{inner}");
            format!("{open}{nl}{inner}{}{nl}{indent}{close}", items.join(&sep))
        } else {
            format!("{open}{}{close}", items.join(", "))
        }
    }
}

fn quoted(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// A child to add: an array's element, or an object's member.
pub(crate) enum Child {
    Element(Value),
    Member(String, Value),
}

/// The spans of a container's children (an object's members from their
/// key, an array's elements); none for a value that holds none.
fn child_spans(node: &Node) -> Vec<(usize, usize)> {
    match &node.kind {
        Kind::Object(m) => m.iter().map(|m| (m.key_start, m.value.end)).collect(),
        Kind::Array(e) => e.iter().map(|e| (e.start, e.end)).collect(),
        Kind::Str(_) | Kind::Scalar => Vec::new(),
    }
}

/// The spaces and tabs the line holding `at` starts with.
fn line_indent(text: &str, at: usize) -> &str {
    let line = &text[text[..at].rfind('\n').map_or(0, |i| i + 1)..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Adds `children` at the end of `container` (an object or an array).
pub(crate) fn append(text: &str, style: &Style, container: &Node, children: &[Child]) -> Splice {
    let spans = child_spans(container);
    let render = |child: &Child, indent: &str, pretty: bool| match child {
        Child::Element(v) => style.render(v, indent, pretty),
        Child::Member(k, v) => format!("{}: {}", quoted(k), style.render(v, indent, pretty)),
    };
    if let (Some(first), Some(last)) = (spans.first(), spans.last()) {
        // What comes between two children now comes before each new one:
        // the comma and whitespace between the first two, else a comma
        // and the whitespace before the first.
        let lead = &text[container.start + 1..first.0];
        let sep = match spans.get(1) {
            Some(second) => text[first.1..second.0].to_owned(),
            None if lead.is_empty() => ", ".to_owned(),
            None => format!(",{lead}"),
        };
        let pretty = sep.contains('\n');
        let indent = sep.rsplit('\n').next().unwrap_or("");
        let with = children
            .iter()
            .map(|c| format!("{sep}{}", render(c, indent, pretty)))
            .collect();
        return Splice {
            start: last.1,
            end: last.1,
            with,
        };
    }
    let outer = line_indent(text, container.start);
    let with = if style.pretty {
        let inner = format!("{outer}{}", style.unit);
        let nl = style.newline;
        let items: Vec<String> = children.iter().map(|c| render(c, &inner, true)).collect();
        format!(
            "{nl}{inner}{}{nl}{outer}",
            items.join(&format!(",{nl}{inner}"))
        )
    } else {
        let items: Vec<String> = children.iter().map(|c| render(c, "", false)).collect();
        items.join(", ")
    };
    Splice {
        start: container.start + 1,
        end: container.end - 1,
        with,
    }
}

/// Takes out the children of `container` whose `gone` is true, each with
/// the comma and whitespace before it (after it, for the first child).
/// When all go, the container is left empty (`{}`, `[]`).
pub(crate) fn remove(container: &Node, gone: &[bool]) -> Vec<Splice> {
    let spans = child_spans(container);
    if !spans.is_empty() && gone.iter().take(spans.len()).all(|g| *g) {
        return vec![Splice {
            start: container.start + 1,
            end: container.end - 1,
            with: String::new(),
        }];
    }
    let mut splices = Vec::new();
    let mut i = 0;
    while i < spans.len() {
        if !gone.get(i).copied().unwrap_or(false) {
            i += 1;
            continue;
        }
        let first = i;
        while gone.get(i).copied().unwrap_or(false) && i < spans.len() {
            i += 1;
        }
        let (start, end) = if first > 0 {
            (spans[first - 1].1, spans[i - 1].1)
        } else {
            (spans[0].0, spans[i].0)
        };
        splices.push(Splice {
            start,
            end,
            with: String::new(),
        });
    }
    splices
}

#[cfg(test)]
mod tests {
    use super::super::json_text::parse;
    use super::*;

    fn roundtrip(text: &str, expect_added: &str) {
        let root = parse(text).unwrap();
        let style = Style::of(text, &root);
        let list = root.get("a").unwrap();
        let added = apply(
            text,
            vec![append(
                text,
                &style,
                list,
                &[Child::Element(serde_json::json!({"x": [1]}))],
            )],
        );
        assert_eq!(added, expect_added);
        let root2 = parse(&added).unwrap();
        let list2 = root2.get("a").unwrap();
        let n = list2.elements().unwrap().len();
        let mut gone = vec![false; n];
        gone[n - 1] = true;
        assert_eq!(apply(&added, remove(list2, &gone)), text);
    }

    #[test]
    fn an_added_value_follows_the_files_style_and_removing_it_gives_the_bytes_back() {
        roundtrip("{\"a\": [1]}", "{\"a\": [1, {\"x\": [1]}]}");
        roundtrip("{\"a\":[1,2]}", "{\"a\":[1,2,{\"x\": [1]}]}");
        roundtrip(
            "{\r\n\t\"a\": [\r\n\t\t1\r\n\t]\r\n}\r\n",
            "{\r\n\t\"a\": [\r\n\t\t1,\r\n\t\t{\r\n\t\t\t\"x\": [\r\n\t\t\t\t1\r\n\t\t\t]\r\n\t\t}\r\n\t]\r\n}\r\n",
        );
    }

    #[test]
    fn an_empty_container_gets_the_files_indent_and_the_first_child_goes_with_what_follows() {
        let text = "{\n    \"a\": []\n}";
        let root = parse(text).unwrap();
        let style = Style::of(text, &root);
        let s = append(
            text,
            &style,
            root.get("a").unwrap(),
            &[Child::Element(Value::from(2))],
        );
        assert_eq!(apply(text, vec![s]), "{\n    \"a\": [\n        2\n    ]\n}");
        let text = "[1, 2, 3, 4]";
        let root = parse(text).unwrap();
        assert_eq!(
            apply(text, remove(&root, &[true, true, false, true])),
            "[3]"
        );
        assert_eq!(apply(text, remove(&root, &[true; 4])), "[]");
    }
}
