//! Tokens by kind, what they cost, and the views ccusage users know.
//!
//! Sessions say what they spent as [`crucible_core::UsageLine`]s (per phase,
//! model and UTC hour; `SessionLog::usage_lines` is the one attribution
//! rule). This crate prices them ([`pricing`]: LiteLLM's price list, shipped
//! as data, with overrides) and adds them up into reports ([`report`]:
//! daily, weekly, monthly, per session, and 5-hour billing blocks) whose
//! JSON uses ccusage's key names. It reads no file and no clock: callers
//! pass the lines, the price table and "now".

pub mod pricing;
pub mod report;

use crucible_core::UsageLine;

/// How a line's cost is found, as ccusage's `--mode` chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CostMode {
    /// The cost the source wrote when it wrote one, else computed.
    #[default]
    Auto,
    /// Always computed from tokens and the price table.
    Calculate,
    /// Only the cost the source wrote (0 where it wrote none).
    Display,
}

/// A cost in US dollars, and whether every token in it had a price.
///
/// The amount is kept exactly, in attodollars (10⁻¹⁸ USD: every price in
/// LiteLLM's list is a whole number of them per token), so that a sum is
/// the same whatever order its lines are added in and however they were
/// grouped before they were priced: a report answered from the index adds
/// the rows it kept and the rows read again after a change, a rebuilt one
/// adds them all at once, and both must say the same amount to the last
/// digit. It becomes a float only when it is shown ([`Cost::usd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cost {
    attos: i128,
    /// Tokens no price was found for (their model is not in the table, or
    /// their kind is unknown). A report shows these as unpriced, never as $0.
    pub unpriced_tokens: u64,
}

/// `usd` in attodollars, rounded to the nearest: a price per token (every
/// price of LiteLLM's list is a whole number of them).
pub(crate) fn attos(usd: f64) -> i128 {
    whole_units(usd, 1e18)
}

/// `usd` in units a dollar holds `per_usd` of, rounded to the nearest; 0
/// for what is not a number, and an amount beyond any cost (a price in
/// the config of 10²⁵ dollars a token, say) held at ±2¹²⁰ units: absurd
/// and shown, never wrapped round or taken as free.
fn whole_units(usd: f64, per_usd: f64) -> i128 {
    const LIMIT: f64 = 1_329_227_995_784_915_872_903_807_060_280_344_576.0; // 2¹²⁰
    let n = (usd * per_usd).round();
    if n.is_nan() {
        return 0;
    }
    #[allow(clippy::cast_possible_truncation)]
    let n = n.clamp(-LIMIT, LIMIT) as i128;
    n
}

impl Cost {
    /// A cost of `usd` dollars that a source wrote, read to the nearest
    /// nanodollar (as the index keeps written costs: summed as whole
    /// nanodollars, a sum does not depend on how lines were grouped), with
    /// `unpriced_tokens` without a price.
    pub fn from_usd(usd: f64, unpriced_tokens: u64) -> Self {
        Self {
            attos: whole_units(usd, 1e9).saturating_mul(1_000_000_000),
            unpriced_tokens,
        }
    }

    pub(crate) fn from_attos(attos: i128, unpriced_tokens: u64) -> Self {
        Self {
            attos,
            unpriced_tokens,
        }
    }

    /// The amount in US dollars: the float nearest the exact amount, so it
    /// prints as its decimal does (2.2783323, not 2.2783322999999998).
    pub fn usd(&self) -> f64 {
        let (whole, part) = (
            self.attos / 1_000_000_000_000_000_000,
            self.attos % 1_000_000_000_000_000_000,
        );
        let sign = if self.attos < 0 { "-" } else { "" };
        format!("{sign}{}.{:018}", whole.unsigned_abs(), part.unsigned_abs())
            .parse()
            .unwrap_or(0.0)
    }

    /// Whether the amount is zero (tokens without a price aside).
    pub fn is_zero(&self) -> bool {
        self.attos == 0
    }

    /// Orders two costs by their amounts.
    pub fn cmp_amount(&self, o: &Self) -> std::cmp::Ordering {
        self.attos.cmp(&o.attos)
    }

    pub fn add(&mut self, o: Self) {
        self.attos = self.attos.saturating_add(o.attos);
        self.unpriced_tokens = self.unpriced_tokens.saturating_add(o.unpriced_tokens);
    }
}

/// The lines of one session, with what reports say of the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionUsage {
    pub session_id: String,
    /// The file, relative to the sessions directory.
    pub path: String,
    pub title: Option<String>,
    /// The git root of the session's `cwd`, else the `cwd` (see
    /// `crucible_core::project`); `None` when the session recorded none.
    pub project: Option<String>,
    /// The session's start, milliseconds since the epoch.
    pub started_ms: i64,
    pub lines: Vec<UsageLine>,
}

pub use report::{
    BlockOptions, BlocksReport, DateBoundError, Order, Period, PeriodReport, PriceFn,
    ReportOptions, SessionReport, TokenLimit, parse_date_bound,
};

#[cfg(test)]
mod cost_tests {
    use crucible_core::Tokens;

    use super::*;
    use crate::pricing::ModelPrice;

    #[test]
    fn a_sum_of_costs_is_the_same_in_any_order_and_grouping() {
        // Haiku's prices; the lines of one day, priced one by one, in two
        // orders, and priced as one line of their summed tokens.
        let price = ModelPrice::new(1e-6, 5e-6);
        let lines = [(12_749, 278), (3, 1), (219, 28), (7_001, 13)];
        let cost = |input: u64, output: u64| {
            let t = Tokens {
                input,
                output,
                ..Tokens::default()
            };
            Cost::from_attos(price.cost(t, &[]), 0)
        };
        let mut forward = Cost::default();
        for &(i, o) in &lines {
            forward.add(cost(i, o));
        }
        let mut backward = Cost::default();
        for &(i, o) in lines.iter().rev() {
            backward.add(cost(i, o));
        }
        let (i, o) = lines.iter().fold((0, 0), |(a, b), &(i, o)| (a + i, b + o));
        assert_eq!(forward, backward);
        assert_eq!(forward, cost(i, o));
        // As the decimal it is, not a float sum's neighbour of it.
        assert_eq!(forward.usd().to_string(), "0.021572");
        // Written costs, read to the nanodollar, add up the same way.
        let mut written = Cost::default();
        for usd in [0.1, 0.2, 0.000_000_000_4] {
            written.add(Cost::from_usd(usd, 0));
        }
        assert_eq!(written.usd().to_string(), "0.3");
        assert_eq!(Cost::from_usd(-0.25, 0).usd().to_string(), "-0.25");
        assert_eq!(Cost::from_usd(f64::NAN, 3), Cost::from_usd(0.0, 3));
    }

    #[test]
    fn an_absurd_price_gives_an_absurd_cost_never_a_wrapped_or_free_one() {
        // Review s6: a config price of 10^24 dollars a million tokens
        // wrapped round to a negative cost, 10^25 and up priced at $0.
        let tokens = Tokens {
            input: 1_000_000,
            output: 1_000_000,
            ..Tokens::default()
        };
        for per_token in [1e18, 1e19, 1e30, f64::MAX, f64::INFINITY] {
            let c = Cost::from_attos(ModelPrice::new(per_token, 1e-6).cost(tokens, &[]), 0);
            assert!(c.usd() > 1e18, "{per_token}: {}", c.usd());
        }
        let mut sum = Cost::from_attos(ModelPrice::new(f64::MAX, f64::MAX).cost(tokens, &[]), 0);
        sum.add(sum);
        assert!(sum.usd() > 1e18, "{}", sum.usd());
        // Review s6b: an absurd base price with a cheaper tier above it
        // came to -1 attodollar (the saturated step down cancelled it).
        let mut tiered = ModelPrice::new(1e19, 1.5e-5);
        tiered.tiers.push(crate::pricing::PriceTier {
            above: 200_000,
            input: Some(1e18),
            output: Some(2.25e-5),
            ..crate::pricing::PriceTier::default()
        });
        let over = Tokens {
            input: 100_000,
            ..Tokens::default()
        };
        let heavy = Tokens {
            input: 300_000,
            ..Tokens::default()
        };
        let c = Cost::from_attos(tiered.cost(heavy, &[(200_000, over)]), 0);
        assert!(c.usd() > 1e18, "{}", c.usd());
    }
}
