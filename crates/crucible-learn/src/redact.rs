//! Secrets out of everything a case says: API keys and tokens of the
//! common services, bearer headers, private key blocks, and `password=` /
//! `secret=` style assignments become `[REDACTED:<kind>]`.

use regex::Regex;

/// The patterns, compiled once.
#[derive(Debug)]
pub struct Redactor {
    rules: Vec<(Regex, &'static str, Replace)>,
    /// All the patterns at once: most text has no secret, and one pass of
    /// the set tells so without running each rule.
    any: regex::RegexSet,
}

/// How a match is replaced.
#[derive(Debug, Clone, Copy)]
enum Replace {
    /// The whole match.
    Whole,
    /// Only the value after the first capture group (the key is kept).
    AfterKey,
    /// The password of a `scheme://user:password@host` URL.
    UrlPassword,
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    pub fn new() -> Self {
        let rule = |re: &str, kind, how| {
            (
                Regex::new(re).expect("redaction patterns are valid"),
                kind,
                how,
            )
        };
        // Most specific first: an Anthropic key also looks like `sk-...`.
        let rules = vec![
            rule(
                r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----",
                "private-key",
                Replace::Whole,
            ),
            rule(
                r"sk-ant-[A-Za-z0-9_\-]{20,}",
                "anthropic-key",
                Replace::Whole,
            ),
            rule(
                r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}",
                "openai-key",
                Replace::Whole,
            ),
            rule(
                r"github_pat_[A-Za-z0-9_]{22,}",
                "github-token",
                Replace::Whole,
            ),
            rule(
                r"gh[pousr]_[A-Za-z0-9]{30,}",
                "github-token",
                Replace::Whole,
            ),
            rule(
                r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
                "aws-access-key",
                Replace::Whole,
            ),
            rule(
                r"(?i)(aws_secret_access_key\s*[=:]\s*)[A-Za-z0-9/+=]{20,}",
                "aws-secret-key",
                Replace::AfterKey,
            ),
            rule(
                r"(?i)(?-u:\b)([a-z][a-z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+@",
                "url-password",
                Replace::UrlPassword,
            ),
            rule(
                r"xox[abposr]-[A-Za-z0-9\-]{10,}",
                "slack-token",
                Replace::Whole,
            ),
            rule(
                r"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]{12,}",
                "bearer-token",
                Replace::AfterKey,
            ),
            rule(
                r#"(?i)((?-u:\b)(?:password|passwd|pwd|secret|client_secret|api_key|apikey|access_token|auth_token)(?-u:\b)["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"',;]+)"#,
                "secret",
                Replace::AfterKey,
            ),
        ];
        let any = regex::RegexSet::new(rules.iter().map(|(re, _, _)| re.as_str()))
            .expect("redaction patterns are valid");
        Self { rules, any }
    }

    /// Replaces the secrets in `text`, leaving it untouched (and
    /// unallocated) when it has none.
    pub fn redact_in_place(&self, text: &mut String) {
        if self.any.is_match(text) {
            *text = self.redact(text);
        }
    }

    /// `text` with every secret replaced.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (re, kind, how) in &self.rules {
            if !re.is_match(&out) {
                continue;
            }
            out = match how {
                Replace::Whole => re
                    .replace_all(&out, format!("[REDACTED:{kind}]").as_str())
                    .into_owned(),
                Replace::AfterKey => re
                    .replace_all(&out, |c: &regex::Captures<'_>| {
                        format!("{}[REDACTED:{kind}]", &c[1])
                    })
                    .into_owned(),
                Replace::UrlPassword => re
                    .replace_all(&out, |c: &regex::Captures<'_>| {
                        format!("{}[REDACTED:{kind}]@", &c[1])
                    })
                    .into_owned(),
            };
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_caught_and_the_text_around_kept() {
        let r = Redactor::new();
        let cases = [
            (
                "key sk-proj-abcdefghijklmnopqrstuvwxyz0123 here",
                "key [REDACTED:openai-key] here",
            ),
            (
                "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
                "[REDACTED:anthropic-key]",
            ),
            (
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "[REDACTED:github-token]",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijkl",
                "[REDACTED:github-token]",
            ),
            ("AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws-access-key]"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED:aws-secret-key]",
            ),
            ("xoxb-123456789012-abcdefghij", "[REDACTED:slack-token]"),
            (
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc",
                "Authorization: Bearer [REDACTED:bearer-token]",
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
                "[REDACTED:private-key]",
            ),
            ("db password=hunter2 ok", "db password=[REDACTED:secret] ok"),
            ("SECRET: \"s3cr3t value\"", "SECRET: [REDACTED:secret]"),
            ("nothing secret here", "nothing secret here"),
            (
                "psql postgres://app:pa55word@db:5432/app",
                "psql postgres://app:[REDACTED:url-password]@db:5432/app",
            ),
            (
                "see https://example.com/a:b@c",
                "see https://example.com/a:b@c",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r.redact(input), want, "{input}");
        }
    }
}
