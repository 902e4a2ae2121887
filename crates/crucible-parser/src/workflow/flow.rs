//! Data-flow lines: `a → b`, `a::T, b → out::U[]`, chains, `x → creates:`,
//! `If <condition> → proceed to <Step>` and `Otherwise → <Step>`.
//!
//! A line is a flow line only when every side of its arrows is a list of
//! names (no spaces inside a name), so prose that happens to hold an arrow
//! ("Requirements → Production: 4 days") stays prose.

use crucible_core::workflow::{Condition, Flow, Port};

/// What one line of a step's text is.
#[derive(Debug, PartialEq)]
pub(crate) enum FlowLine {
    /// One flow per adjacent pair of a chain.
    Flows(Vec<Flow>),
    /// `x → creates:`: the inputs; the bullets that follow are the outputs.
    Creates(Vec<Port>),
    Condition(Condition),
    Prose,
}

/// Splits at `→` and `->`.
fn segments(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        let arrow = [
            rest.find('→').map(|i| (i, '→'.len_utf8())),
            rest.find("->").map(|i| (i, 2)),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|(i, _)| *i);
        if let Some((i, len)) = arrow {
            out.push(&rest[..i]);
            rest = &rest[i + len..];
        } else {
            out.push(rest);
            return out;
        }
    }
}

/// `name` or `name::Type` (`Type[]` for an array); `None` when it is not one.
pub(crate) fn port(s: &str) -> Option<Port> {
    let s = s.trim().trim_matches('`');
    let (name, ty) = match s.rsplit_once("::") {
        Some((n, t)) => (n, Some(t)),
        None => (s, None),
    };
    let name_ok = !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c == ',' || c == '`')
        && !name.starts_with('-');
    let ty_ok = ty.is_none_or(|t| {
        let base = t.strip_suffix("[]").unwrap_or(t);
        base.chars().next().is_some_and(char::is_alphabetic)
            && base
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '<' | '>' | '.'))
    });
    (name_ok && ty_ok).then(|| Port::new(name, ty.map(str::to_owned)))
}

/// A comma-separated list of ports.
fn ports(s: &str) -> Option<Vec<Port>> {
    let list: Option<Vec<Port>> = s.split(',').map(port).collect();
    list.filter(|l| !l.is_empty())
}

/// Reads one line (already trimmed of indentation) at file line `line`.
pub(crate) fn classify(text: &str, line: usize) -> FlowLine {
    let t = text.trim();
    let segs = segments(t);
    if segs.len() < 2 {
        return FlowLine::Prose;
    }
    if segs.len() == 2 {
        let (left, right) = (segs[0].trim(), segs[1].trim());
        if let Some(cond) = strip_word(left, "if") {
            if let Some(target) = strip_word(right, "proceed to") {
                return condition(Some(cond.trim()), target, text, line);
            }
        } else if left.eq_ignore_ascii_case("otherwise") {
            let target = strip_word(right, "proceed to").unwrap_or(right);
            return condition(None, target, text, line);
        }
        if right.eq_ignore_ascii_case("creates:") {
            return match ports(left) {
                Some(inputs) => FlowLine::Creates(inputs),
                None => FlowLine::Prose,
            };
        }
    }
    let lists: Option<Vec<Vec<Port>>> = segs.iter().map(|s| ports(s)).collect();
    match lists {
        Some(lists) => FlowLine::Flows(
            lists
                .windows(2)
                .map(|pair| Flow {
                    inputs: pair[0].clone(),
                    outputs: pair[1].clone(),
                    line,
                })
                .collect(),
        ),
        None => FlowLine::Prose,
    }
}

/// `s` without a leading `word ` (any case).
fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let head = s.get(..word.len())?;
    let rest = &s[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace))
        .then(|| rest.trim_start())
}

fn condition(cond: Option<&str>, target: &str, text: &str, line: usize) -> FlowLine {
    let target = target.trim().trim_end_matches(['.', '!']).trim();
    if target.is_empty() {
        return FlowLine::Prose;
    }
    let column = text
        .rfind(target)
        .map_or(1, |i| text[..i].chars().count() + 1);
    FlowLine::Condition(Condition {
        condition: cond.map(str::to_owned),
        target: target.to_owned(),
        line,
        column,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flows(s: &str) -> Vec<(Vec<String>, Vec<String>)> {
        match classify(s, 1) {
            FlowLine::Flows(f) => f
                .into_iter()
                .map(|f| {
                    (
                        f.inputs.iter().map(ToString::to_string).collect(),
                        f.outputs.iter().map(ToString::to_string).collect(),
                    )
                })
                .collect(),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn reads_the_spec_examples() {
        assert_eq!(
            flows("project_config::Config → schema.sql::SQL"),
            vec![(
                vec!["project_config::Config".into()],
                vec!["schema.sql::SQL".into()]
            )]
        );
        assert_eq!(flows("file.md → AST → enriched -> database").len(), 3);
        assert_eq!(
            flows("a, b → out"),
            vec![(vec!["a".into(), "b".into()], vec!["out".into()])]
        );
        assert_eq!(
            flows("tech_decisions → schema_design::SQL, migrations::SQL[]")[0].1,
            vec![
                "schema_design::SQL".to_owned(),
                "migrations::SQL[]".to_owned()
            ]
        );
        assert_eq!(
            flows("build_artifacts → https://staging.example.com")[0].1,
            vec!["https://staging.example.com".to_owned()]
        );
    }

    #[test]
    fn conditions_and_creates() {
        assert_eq!(
            classify("If tests fail → proceed to Fix Tests", 3),
            FlowLine::Condition(Condition {
                condition: Some("tests fail".into()),
                target: "Fix Tests".into(),
                line: 3,
                column: 28,
            })
        );
        match classify("Otherwise -> Deploy.", 4) {
            FlowLine::Condition(c) => {
                assert_eq!(c.condition, None);
                assert_eq!(c.target, "Deploy");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify("spec → creates:", 1), FlowLine::Creates(p) if p.len() == 1));
    }

    #[test]
    fn prose_with_arrows_stays_prose() {
        for s in [
            "Requirements → Production: 4 days",
            "- a → b",
            "Reads raw data from the input source.",
            "→ nothing before",
            "x → ",
            "a → b c",
        ] {
            assert_eq!(classify(s, 1), FlowLine::Prose, "{s}");
        }
    }
}
