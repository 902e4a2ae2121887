//! The checks that need no model: expected tools called (as a set, or in
//! sequence), forbidden tools not called, result patterns matched.

use crucible_core::{Check, CheckKind, Expectation, Order, ToolPattern};

use crate::Actual;

/// Applies every deterministic check of `e` to `a` (none when `e` has
/// none: see [`Expectation::has_checks`]).
pub fn check(e: &Expectation, a: &Actual) -> Vec<Check> {
    let mut out = Vec::new();
    if !e.tools.is_empty() {
        out.push(tools(e, a));
    }
    if !e.forbid.is_empty() {
        let called: Vec<&str> = e
            .forbid
            .iter()
            .filter(|f| a.calls.iter().any(|c| c.tool.eq_ignore_ascii_case(f)))
            .map(String::as_str)
            .collect();
        out.push(Check {
            kind: CheckKind::Forbid,
            passed: called.is_empty(),
            detail: if called.is_empty() {
                format!("none of {} called", e.forbid.join(", "))
            } else {
                format!("called {}", called.join(", "))
            },
        });
    }
    for p in &e.patterns {
        let found = p.is_match(&a.result);
        out.push(Check {
            kind: CheckKind::Pattern,
            passed: found,
            detail: format!(
                "/{}/ {}",
                p.as_str(),
                if found {
                    "matches"
                } else {
                    "does not match the result"
                }
            ),
        });
    }
    out
}

fn tools(e: &Expectation, a: &Actual) -> Check {
    let missing: Vec<String> = match e.order {
        Order::Any => e
            .tools
            .iter()
            .filter(|t| !a.calls.iter().any(|c| t.matches(&c.tool, &c.args)))
            .map(ToolPattern::text)
            .collect(),
        Order::Sequence => {
            // Greedy: each expected tool at the first call after the last one matched.
            let mut at = 0;
            let mut missing = Vec::new();
            for t in &e.tools {
                match a.calls[at..]
                    .iter()
                    .position(|c| t.matches(&c.tool, &c.args))
                {
                    Some(i) => at += i + 1,
                    None => missing.push(t.text()),
                }
            }
            missing
        }
    };
    let expected: Vec<String> = e.tools.iter().map(ToolPattern::text).collect();
    let order = if e.order == Order::Sequence {
        " in order"
    } else {
        ""
    };
    Check {
        kind: CheckKind::Tools,
        passed: missing.is_empty(),
        detail: if missing.is_empty() {
            format!("called {}{order}", expected.join(", "))
        } else {
            format!(
                "missing {}{order} (called: {})",
                missing.join(", "),
                if a.calls.is_empty() {
                    "nothing".to_owned()
                } else {
                    a.tool_names().join(", ")
                }
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Callout, ToolCall};

    fn expect(lines: &[&str]) -> Expectation {
        let c = Callout::new(
            "expect",
            "",
            lines.iter().map(|s| (*s).to_owned()).collect(),
        );
        Expectation::from_callout(&c).unwrap()
    }

    fn actual(calls: &[(&str, &str)], result: &str) -> Actual {
        Actual {
            calls: calls.iter().map(|(t, a)| ToolCall::new(*t, *a)).collect(),
            result: result.to_owned(),
            ..Actual::default()
        }
    }

    #[test]
    fn a_set_match_ignores_order_and_a_sequence_does_not() {
        let a = actual(&[("run", "git blame x"), ("grep", "TODO")], "done");
        let set = check(&expect(&["tools: grep, run(blame)"]), &a);
        assert!(set[0].passed, "{set:?}");
        let seq = check(&expect(&["tools: grep, run(blame)", "order: sequence"]), &a);
        assert!(!seq[0].passed);
        assert_eq!(
            seq[0].detail,
            "missing run(blame) in order (called: run, grep)"
        );
    }

    #[test]
    fn arguments_patterns_forbidden_tools_and_result_patterns() {
        let a = actual(
            &[("write", "a.py"), ("run", "pytest -q")],
            "3 passed, 1 failed",
        );
        let c = check(
            &expect(&[
                "tools: run(pytest)",
                "forbid: write, rm",
                "pattern: \\d+ passed",
                "pattern: ^all",
            ]),
            &a,
        );
        let passed: Vec<bool> = c.iter().map(|c| c.passed).collect();
        assert_eq!(passed, [true, false, true, false]);
        assert_eq!(c[1].detail, "called write");
        // Nothing called at all.
        let c = check(&expect(&["tools: grep"]), &actual(&[], ""));
        assert_eq!(c[0].detail, "missing grep (called: nothing)");
    }
}
