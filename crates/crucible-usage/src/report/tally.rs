//! The figures of one report row: tokens by kind, cost, and the same per
//! model, added up line by line.

use crucible_core::{Tokens, UsageLine};

use crate::Cost;

/// Names under which a line is counted in a row's totals but listed under
/// no model, as ccusage does: a line whose model nobody named, and Claude
/// Code's `<synthetic>` messages (written by the client, not a model).
fn listed_model(line: &UsageLine) -> Option<&str> {
    line.model
        .as_deref()
        .filter(|m| !m.is_empty() && *m != "<synthetic>")
}

/// What one model spent within a row.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelUsage {
    pub model: String,
    /// Its first request within the row, milliseconds since the epoch.
    pub first_ms: i64,
    pub tokens: Tokens,
    /// Tokens of unknown kind (old files); part of the total, never priced.
    pub untyped: u64,
    pub cost: Cost,
}

impl ModelUsage {
    pub fn total_tokens(&self) -> u64 {
        self.tokens.total().saturating_add(self.untyped)
    }
}

/// The figures of a row: a day, a week, a month, a session or a block.
///
/// Costs are summed as they come, unrounded; rounding is the renderer's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub tokens: Tokens,
    pub untyped: u64,
    pub cost: Cost,
    /// Each model, in the order it was first used within the row (equal
    /// times by name), whatever order the lines were added in.
    pub models: Vec<ModelUsage>,
}

impl Usage {
    /// Counts a line whose cost the pricing function gave as `cost`.
    pub fn add_line(&mut self, line: &UsageLine, cost: Cost) {
        self.tokens.add(line.tokens);
        self.untyped = self.untyped.saturating_add(line.untyped);
        self.cost.add(cost);
        let Some(name) = listed_model(line) else {
            return;
        };
        let found = self.models.iter().position(|m| m.model == name);
        let model = match found {
            // The common case: a model already listed, used again later.
            Some(i) if self.models[i].first_ms <= line.first_ms => &mut self.models[i],
            _ => {
                let mut model = match found {
                    Some(i) => self.models.remove(i),
                    None => ModelUsage {
                        model: name.to_owned(),
                        first_ms: line.first_ms,
                        tokens: Tokens::default(),
                        untyped: 0,
                        cost: Cost::default(),
                    },
                };
                model.first_ms = model.first_ms.min(line.first_ms);
                // Kept in order of first use however the lines come, so
                // that no view has to sort its lines by time first.
                let key = (model.first_ms, model.model.as_str());
                let at = self
                    .models
                    .partition_point(|m| (m.first_ms, m.model.as_str()) < key);
                self.models.insert(at, model);
                &mut self.models[at]
            }
        };
        model.tokens.add(line.tokens);
        model.untyped = model.untyped.saturating_add(line.untyped);
        model.cost.add(cost);
    }

    /// Every token: the four kinds and the untyped (ccusage's `totalTokens`).
    pub fn total_tokens(&self) -> u64 {
        self.tokens.total().saturating_add(self.untyped)
    }

    /// The models in the order they were first used (`modelsUsed`).
    pub fn models_used(&self) -> impl Iterator<Item = &str> {
        self.models.iter().map(|m| m.model.as_str())
    }

    /// The models by cost, dearest first; equal costs keep the order of
    /// first use (`modelBreakdowns`, as ccusage sorts them).
    pub fn breakdowns(&self) -> Vec<&ModelUsage> {
        let mut by_cost: Vec<&ModelUsage> = self.models.iter().collect();
        by_cost.sort_by(|a, b| b.cost.cmp_amount(&a.cost));
        by_cost
    }
}

/// The sum of a report's rows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub tokens: Tokens,
    pub untyped: u64,
    pub cost: Cost,
}

impl Totals {
    pub fn add(&mut self, usage: &Usage) {
        self.tokens.add(usage.tokens);
        self.untyped = self.untyped.saturating_add(usage.untyped);
        self.cost.add(usage.cost);
    }

    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Usage>) -> Self {
        let mut totals = Self::default();
        for usage in rows {
            totals.add(usage);
        }
        totals
    }

    pub fn total_tokens(&self) -> u64 {
        self.tokens.total().saturating_add(self.untyped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(model: Option<&str>, input: u64) -> UsageLine {
        at(model, input, 0)
    }

    fn at(model: Option<&str>, input: u64, first_ms: i64) -> UsageLine {
        UsageLine {
            model: model.map(str::to_owned),
            first_ms,
            last_ms: first_ms,
            tokens: Tokens {
                input,
                ..Tokens::default()
            },
            ..UsageLine::default()
        }
    }

    fn usd(usd: f64) -> Cost {
        Cost::from_usd(usd, 0)
    }

    #[test]
    fn models_keep_first_use_order_and_breakdowns_go_by_cost() {
        // Lines come in any order; first use is by time.
        let mut u = Usage::default();
        u.add_line(&at(Some("tie"), 10, 30), usd(0.1));
        u.add_line(&at(Some("dear"), 10, 20), usd(2.0));
        u.add_line(&at(Some("cheap"), 5, 40), usd(0.05));
        u.add_line(&at(Some("cheap"), 10, 10), usd(0.1));
        assert_eq!(
            u.models_used().collect::<Vec<_>>(),
            ["cheap", "dear", "tie"]
        );
        let by_cost: Vec<&str> = u.breakdowns().iter().map(|m| m.model.as_str()).collect();
        assert_eq!(by_cost, ["dear", "cheap", "tie"]);
        assert_eq!(u.models[0].tokens.input, 15);
        assert_eq!(u.cost, Cost::from_usd(2.25, 0));
    }

    #[test]
    fn unnamed_and_synthetic_models_count_in_the_row_but_are_not_listed() {
        let mut u = Usage::default();
        u.add_line(&line(None, 7), Cost::default());
        u.add_line(&line(Some("<synthetic>"), 3), Cost::default());
        let mut old = line(Some("m"), 0);
        old.untyped = 100;
        u.add_line(&old, Cost::from_usd(0.0, 100));
        assert_eq!(u.total_tokens(), 110);
        assert_eq!(u.models_used().collect::<Vec<_>>(), ["m"]);
        assert_eq!(u.models[0].total_tokens(), 100);
        assert_eq!(u.cost.unpriced_tokens, 100);
    }
}
