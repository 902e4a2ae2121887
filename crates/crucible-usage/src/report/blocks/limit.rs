//! `--token-limit`: how the active block's projected use compares with a
//! limit, a number or `max` (the largest finished block).

/// The limit the projection of the active block is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    /// The most tokens any finished block of the range used.
    Max,
    Tokens(u64),
}

/// A `--token-limit` that is neither a number nor `max`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("token limit `{input}` is not a number of tokens or `max` (e.g. 500000, max)")]
pub struct TokenLimitError {
    pub input: String,
}

pub(super) fn parse(s: &str) -> Result<TokenLimit, TokenLimitError> {
    let text = s.trim();
    // ccusage takes an empty value as `max`.
    if text.is_empty() || text.eq_ignore_ascii_case("max") {
        return Ok(TokenLimit::Max);
    }
    text.replace('_', "")
        .parse()
        .map(TokenLimit::Tokens)
        .map_err(|_| TokenLimitError {
            input: s.to_owned(),
        })
}

/// How the projection stands against the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitStatus {
    Ok,
    /// Above 80% of the limit.
    Warning,
    Exceeds,
}

impl LimitStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Warning => "warning",
            Self::Exceeds => "exceeds",
        }
    }
}

/// The active block's projected use against the limit (ccusage's
/// `tokenLimitStatus`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenLimitStatus {
    pub limit: u64,
    pub projected: u64,
    pub percent_used: f64,
    pub status: LimitStatus,
}

/// Past this share of the limit the status is a warning (ccusage's 0.8).
const WARNING_SHARE: f64 = 0.8;

impl TokenLimitStatus {
    /// `None` when the limit is `max` and no finished block gives one, or
    /// the limit is 0.
    pub fn of(projected: u64, limit: TokenLimit, max_tokens: u64) -> Option<Self> {
        let limit = match limit {
            TokenLimit::Max => max_tokens,
            TokenLimit::Tokens(n) => n,
        };
        if limit == 0 {
            return None;
        }
        let status = if projected > limit {
            LimitStatus::Exceeds
        } else if projected as f64 > limit as f64 * WARNING_SHARE {
            LimitStatus::Warning
        } else {
            LimitStatus::Ok
        };
        Some(Self {
            limit,
            projected,
            percent_used: projected as f64 / limit as f64 * 100.0,
            status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_numbers_or_max() {
        assert_eq!(parse("500000"), Ok(TokenLimit::Tokens(500_000)));
        assert_eq!(parse("500_000"), Ok(TokenLimit::Tokens(500_000)));
        assert_eq!(parse("MAX"), Ok(TokenLimit::Max));
        assert_eq!(parse(""), Ok(TokenLimit::Max));
        let err = parse("lots").unwrap_err();
        assert_eq!(
            err.to_string(),
            "token limit `lots` is not a number of tokens or `max` (e.g. 500000, max)"
        );
    }

    #[test]
    fn status_by_share_of_the_limit() {
        let at = |p| {
            TokenLimitStatus::of(p, TokenLimit::Tokens(1000), 0)
                .unwrap()
                .status
        };
        assert_eq!(at(800), LimitStatus::Ok);
        assert_eq!(at(801), LimitStatus::Warning);
        assert_eq!(at(1001), LimitStatus::Exceeds);
        assert_eq!(TokenLimitStatus::of(5, TokenLimit::Max, 0), None);
        let max = TokenLimitStatus::of(1500, TokenLimit::Max, 1000).unwrap();
        assert_eq!((max.limit, max.status), (1000, LimitStatus::Exceeds));
        assert!((max.percent_used - 150.0).abs() < 1e-9);
    }
}
