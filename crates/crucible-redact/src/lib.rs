//! The one redactor of cru: takes secrets out of every text that leaves the
//! machine (learning exports, codified workflows, prompts sent to an agent,
//! `export --redact`, session ids built from titles, agent error messages).
//!
//! [`Redactor::redact`] replaces each secret with `[REDACTED:<kind>]` and
//! keeps the text around it. It knows the token shapes of the common
//! services (the kinds gitleaks' default rules cover), key-like names
//! (`*_KEY`, `*_SECRET`, `*_TOKEN`, `*PASSWORD*`, ...) followed by a value
//! that looks like a secret, in env dumps, shell, YAML, JSON (also
//! JSON-escaped) and command-line flags, authorization headers, URLs with a
//! password, and private key blocks. A known prefix followed by 8 or more
//! token characters is enough: a secret cut in half by a summary is still
//! taken out. Text without a secret is returned as it is, after one pass of
//! an Aho-Corasick search for the rules' keywords (`sk-`, `ghp_`, `key`,
//! `pass`, `bearer`, `://`, ...): a rule runs only on text holding one of
//! its keywords.

mod rules;
mod value;

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{Captures, Regex};

use crate::rules::{Check, RULES};

/// The patterns, compiled once (see [`Redactor::shared`]).
#[derive(Debug)]
pub struct Redactor {
    rules: Vec<Rule>,
    /// Every rule's keywords at once: most text holds none, and one pass
    /// says so without running any pattern.
    keywords: AhoCorasick,
    /// The rules each keyword (by its index in `keywords`) stands for.
    rules_of: Vec<Vec<usize>>,
}

#[derive(Debug)]
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    /// Compiled the first time one of the rule's keywords is seen: most
    /// runs need a few of the rules, and compiling all of them would be
    /// most of the start-up cost of every command that redacts a title.
    re: OnceLock<Regex>,
    check: Check,
}

impl Rule {
    fn regex(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(self.pattern).expect("redaction patterns are valid"))
    }
}

/// A part of the text to replace.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

static SHARED: LazyLock<Redactor> = LazyLock::new(Redactor::new);

impl Redactor {
    pub fn new() -> Self {
        let rules: Vec<Rule> = RULES
            .iter()
            .map(|r| Rule {
                kind: r.kind,
                pattern: r.pattern,
                re: OnceLock::new(),
                check: r.check,
            })
            .collect();
        let mut words: Vec<&'static str> = Vec::new();
        let mut rules_of: Vec<Vec<usize>> = Vec::new();
        for (i, r) in RULES.iter().enumerate() {
            for &k in r.keywords {
                if let Some(at) = words.iter().position(|w| w.eq_ignore_ascii_case(k)) {
                    rules_of[at].push(i);
                } else {
                    words.push(k);
                    rules_of.push(vec![i]);
                }
            }
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            // A few hundred states: the DFA is small and the fastest scan.
            .kind(Some(AhoCorasickKind::DFA))
            .build(&words)
            .expect("redaction keywords are valid");
        Self {
            rules,
            keywords,
            rules_of,
        }
    }

    /// One redactor for the whole process: compiling the patterns costs
    /// milliseconds, which a command that redacts one title should pay once.
    pub fn shared() -> &'static Redactor {
        &SHARED
    }

    /// `text` with every secret replaced by `[REDACTED:<kind>]`; borrowed
    /// when it holds none.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut candidate = vec![false; self.rules.len()];
        let mut any = false;
        for m in self.keywords.find_overlapping_iter(text) {
            for &i in &self.rules_of[m.pattern().as_usize()] {
                candidate[i] = true;
                any = true;
            }
        }
        if !any {
            return Cow::Borrowed(text);
        }
        let mut spans = Vec::new();
        for (rule, _) in self.rules.iter().zip(&candidate).filter(|(_, c)| **c) {
            for caps in rule.regex().captures_iter(text) {
                if let Some((start, end)) = secret_of(&caps)
                    && rule.check.accepts(
                        caps.name("name").map(|m| m.as_str()),
                        &text[start..end],
                        &text[end..],
                    )
                {
                    spans.push(Span {
                        start,
                        end,
                        kind: rule.kind,
                    });
                }
            }
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(replace(text, spans))
    }

    /// Replaces the secrets in `text`, leaving it untouched (and
    /// unallocated) when it has none.
    pub fn redact_in_place(&self, text: &mut String) {
        if let Cow::Owned(red) = self.redact(text) {
            *text = red;
        }
    }

    /// Whether `text` holds something [`Redactor::redact`] would replace.
    pub fn finds_secret(&self, text: &str) -> bool {
        matches!(self.redact(text), Cow::Owned(_))
    }
}

/// The secret's byte range in a match: the first of the groups `s`, `s1`,
/// `s2`, ... that took part, else the whole match.
fn secret_of(caps: &Captures<'_>) -> Option<(usize, usize)> {
    const GROUPS: [&str; 5] = ["s", "s1", "s2", "s3", "s4"];
    let m = GROUPS
        .iter()
        .find_map(|g| caps.name(g))
        .unwrap_or_else(|| caps.get(0).expect("group 0 is the match"));
    (!m.is_empty()).then(|| (m.start(), m.end()))
}

/// `text` with the spans replaced; overlapping spans become one (the first
/// one's kind), so no piece of a secret that two rules saw survives between
/// them.
fn replace(text: &str, mut spans: Vec<Span>) -> String {
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(last) if s.start < last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in merged {
        out.push_str(&text[at..s.start]);
        out.push_str("[REDACTED:");
        out.push_str(s.kind);
        out.push(']');
        at = s.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests;
