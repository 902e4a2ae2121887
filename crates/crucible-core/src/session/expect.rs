//! The `[!expect]` callout: what a phase should do.
//!
//! ```markdown
//! > [!expect]
//! > tools: grep, run(git blame)
//! > order: sequence
//! > forbid: write, delete_file
//! > pattern: parser\.py:?\s*88
//! > result: names the file and line of the oldest TODO
//! ```
//!
//! `tools` are names, each optionally with a regular expression its
//! arguments must match in parentheses; `order` is `any` (each expected
//! tool is called, in any order: the default) or `sequence` (they are
//! called in this order, other calls between them allowed); `forbid` names
//! tools that must not be called; each `pattern` is a regular expression
//! the result must match; `result` says in words what the result should be.
//! Every key is optional, `pattern` may repeat.
//!
//! `result` is what asks for the judge: only a case with a `result:` line
//! goes to it, and only when the run has a judge. The other keys are
//! checked without a model, judge or not.
//!
//! The type lives here with the other callouts so that anything reading
//! session files can read an expectation without the evaluator (and the
//! agent backends it needs); `crucible-eval` does the checking and judging.

use regex::Regex;

use super::{Block, Callout, Phase};

/// An expected tool: its name (any case) and what its arguments match.
#[derive(Debug, Clone)]
pub struct ToolPattern {
    pub name: String,
    pub args: Option<Regex>,
}

impl ToolPattern {
    /// `grep` or `run(git blame)`.
    pub fn text(&self) -> String {
        match &self.args {
            Some(r) => format!("{}({})", self.name, r.as_str()),
            None => self.name.clone(),
        }
    }

    pub fn matches(&self, tool: &str, args: &str) -> bool {
        tool.eq_ignore_ascii_case(&self.name) && self.args.as_ref().is_none_or(|r| r.is_match(args))
    }
}

/// How the expected tools must be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Each is called, in any order.
    #[default]
    Any,
    /// They are called in the order given; other calls may come between.
    Sequence,
}

/// What a phase should do.
#[derive(Debug, Clone, Default)]
pub struct Expectation {
    pub tools: Vec<ToolPattern>,
    pub order: Order,
    pub forbid: Vec<String>,
    pub patterns: Vec<Regex>,
    /// The expected result in words, for the judge.
    pub result: Option<String>,
}

/// An `[!expect]` line that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} of the [!expect] callout: {message}")]
pub struct ExpectError {
    /// 1 is the callout's first body line.
    pub line: usize,
    pub message: String,
}

/// Splits at commas outside parentheses: `run(a, b), grep` is two items.
fn items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn regex(pattern: &str, line: usize) -> Result<Regex, ExpectError> {
    Regex::new(pattern).map_err(|e| ExpectError {
        line,
        message: format!("`{pattern}` is not a regular expression: {e}"),
    })
}

impl Expectation {
    /// Reads an `[!expect]` callout.
    pub fn from_callout(c: &Callout) -> Result<Self, ExpectError> {
        let mut e = Self::default();
        for (i, raw) in c.body.iter().enumerate() {
            let line = i + 1;
            let text = raw.trim();
            if text.is_empty() {
                continue;
            }
            let Some((key, value)) = text.split_once(':') else {
                return Err(ExpectError {
                    line,
                    message: format!(
                        "`{text}` is not `key: value` (keys: tools, order, forbid, pattern, result)"
                    ),
                });
            };
            let value = value.trim();
            match key.trim().to_ascii_lowercase().as_str() {
                "tools" => {
                    for item in items(value) {
                        let tool = match item.split_once('(') {
                            Some((name, rest)) if rest.ends_with(')') => ToolPattern {
                                name: name.trim().to_owned(),
                                args: Some(regex(&rest[..rest.len() - 1], line)?),
                            },
                            Some(_) => {
                                return Err(ExpectError {
                                    line,
                                    message: format!("`{item}` has no closing parenthesis"),
                                });
                            }
                            None => ToolPattern {
                                name: item,
                                args: None,
                            },
                        };
                        e.tools.push(tool);
                    }
                }
                "order" => {
                    e.order = match value.to_ascii_lowercase().as_str() {
                        "any" => Order::Any,
                        "sequence" => Order::Sequence,
                        other => {
                            return Err(ExpectError {
                                line,
                                message: format!("order `{other}` is not `any` or `sequence`"),
                            });
                        }
                    };
                }
                "forbid" => e.forbid.extend(items(value)),
                "pattern" => e.patterns.push(regex(value, line)?),
                "result" => e.result = Some(value.to_owned()).filter(|v| !v.is_empty()),
                other => {
                    return Err(ExpectError {
                        line,
                        message: format!(
                            "unknown key `{other}` (keys: tools, order, forbid, pattern, result)"
                        ),
                    });
                }
            }
        }
        Ok(e)
    }

    /// The callout that reads back as `self`.
    pub fn to_callout(&self) -> Callout {
        let mut body = Vec::new();
        if !self.tools.is_empty() {
            let tools: Vec<String> = self.tools.iter().map(ToolPattern::text).collect();
            body.push(format!("tools: {}", tools.join(", ")));
        }
        if self.order == Order::Sequence {
            body.push("order: sequence".to_owned());
        }
        if !self.forbid.is_empty() {
            body.push(format!("forbid: {}", self.forbid.join(", ")));
        }
        for p in &self.patterns {
            body.push(format!("pattern: {}", p.as_str()));
        }
        if let Some(r) = &self.result {
            body.push(format!("result: {}", super::one_line(r)));
        }
        Callout::new("expect", "", body)
    }

    /// True when there is something to check without a model.
    pub fn has_checks(&self) -> bool {
        !self.tools.is_empty() || !self.forbid.is_empty() || !self.patterns.is_empty()
    }

    /// True when the expectation asks for the judge: it says in words what
    /// the result should be (`result:`).
    pub fn asks_judge(&self) -> bool {
        self.result.is_some()
    }
}

/// The phase's expectation: its first `[!expect]` callout, read.
pub fn expectation_of(p: &Phase) -> Option<Result<Expectation, ExpectError>> {
    p.blocks.iter().find_map(|b| match b {
        Block::Callout(c) if is_expect(c) => Some(Expectation::from_callout(c)),
        _ => None,
    })
}

fn is_expect(c: &Callout) -> bool {
    c.kind.eq_ignore_ascii_case("expect")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callout(lines: &[&str]) -> Callout {
        Callout::new(
            "expect",
            "",
            lines.iter().map(|s| (*s).to_owned()).collect(),
        )
    }

    #[test]
    fn reads_every_key_and_writes_it_back() {
        let c = callout(&[
            "tools: grep, run(git blame -L \\d+,\\d+)",
            "order: sequence",
            "forbid: write, delete_file",
            "pattern: parser\\.py",
            "pattern: (?i)oldest",
            "result: names the oldest TODO",
        ]);
        let e = Expectation::from_callout(&c).unwrap();
        assert_eq!(e.tools.len(), 2);
        assert_eq!(e.tools[1].text(), "run(git blame -L \\d+,\\d+)");
        assert!(e.tools[1].matches("RUN", "git blame -L 88,88 src/parser.py"));
        assert!(!e.tools[1].matches("run", "git log"));
        assert_eq!(e.order, Order::Sequence);
        assert_eq!(e.forbid, ["write", "delete_file"]);
        assert_eq!(e.patterns.len(), 2);
        assert_eq!(e.to_callout().body, c.body);
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = Expectation::from_callout(&callout(&["tools: grep", "when: later"])).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown key `when`"));
        let e = Expectation::from_callout(&callout(&["pattern: (unclosed"])).unwrap_err();
        assert!(e.message.contains("not a regular expression"), "{e}");
        let e = Expectation::from_callout(&callout(&["just words"])).unwrap_err();
        assert!(e.message.contains("is not `key: value`"), "{e}");
        let e = Expectation::from_callout(&callout(&["order: random"])).unwrap_err();
        assert!(e.message.contains("not `any` or `sequence`"), "{e}");
    }
}
