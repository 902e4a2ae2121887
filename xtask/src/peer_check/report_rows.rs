//! The rows of a ccusage-shaped report, whichever tool wrote it, and
//! where two such reports disagree: by period (day, week, month or
//! session) and model, the four token kinds equal and the cost equal to
//! the cent.

use std::collections::BTreeMap;

use anyhow::Context;

use super::Totals;

/// The model name of a period's own row (its totals over all models).
pub const ALL_MODELS: &str = "(all models)";

/// One row: tokens and cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub tokens: Totals,
    /// The part of the output that was reasoning, when the report says
    /// (cru's and ccusage's Codex `reasoningOutputTokens`); not compared,
    /// only used to read one tool's output in the other's terms.
    pub reasoning: u64,
    /// `None` when the report gives no cost for the row (ccusage's Codex
    /// view gives its models' tokens only).
    pub cost: Option<f64>,
}

/// A missing row is a row of zeros, costing nothing.
impl Default for Row {
    fn default() -> Self {
        Self {
            tokens: Totals::default(),
            reasoning: 0,
            cost: Some(0.0),
        }
    }
}

impl Row {
    pub fn add(&mut self, o: Self) {
        self.tokens.add(o.tokens);
        self.reasoning += o.reasoning;
        self.cost = self.cost.zip(o.cost).map(|(a, b)| a + b);
    }
}

/// Rows by (period, model); each period also has an [`ALL_MODELS`] row.
pub type Rows = BTreeMap<(String, String), Row>;

fn row_of(v: &serde_json::Value, cost_keys: &[&str]) -> Row {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    Row {
        tokens: Totals {
            input: n("inputTokens"),
            output: n("outputTokens"),
            cache_creation: n("cacheCreationTokens"),
            cache_read: n("cacheReadTokens"),
        },
        reasoning: n("reasoningOutputTokens"),
        cost: cost_keys.iter().find_map(|k| v[*k].as_f64()),
    }
}

/// The keys a row's period goes by: ccusage 20's all-agents views say
/// `period`, its `claude` views and cru's older keys the rest.
const PERIOD_KEYS: [&str; 5] = ["period", "date", "week", "month", "sessionId"];

/// The rows of a ccusage-shaped report (`{"daily": [...]}`,
/// `{"session": [...]}`, ...): `list` names the array. A row's models are
/// its `modelBreakdowns`, or the `models` object of ccusage's Codex view.
pub fn parse_rows(json: &[u8], list: &str) -> anyhow::Result<Rows> {
    let v: serde_json::Value = serde_json::from_slice(json).context("reading the report's JSON")?;
    let entries = v[list]
        .as_array()
        .with_context(|| format!("the report has no \"{list}\" list"))?;
    let mut rows = Rows::new();
    for (i, e) in entries.iter().enumerate() {
        let period = PERIOD_KEYS
            .iter()
            .find_map(|k| e[*k].as_str())
            .with_context(|| format!("{list}[{i}] has none of {PERIOD_KEYS:?}"))?
            .to_owned();
        // ccusage's Codex view calls the row's cost `costUSD`.
        rows.insert(
            (period.clone(), ALL_MODELS.into()),
            row_of(e, &["totalCost", "costUSD"]),
        );
        for m in e["modelBreakdowns"].as_array().into_iter().flatten() {
            let model = m["modelName"]
                .as_str()
                .with_context(|| format!("{list}[{i}] has a model breakdown without modelName"))?;
            rows.insert((period.clone(), model.to_owned()), row_of(m, &["cost"]));
        }
        for (model, m) in e["models"].as_object().into_iter().flatten() {
            rows.insert((period.clone(), model.clone()), row_of(m, &["cost"]));
        }
    }
    Ok(rows)
}

/// Equal tokens, and costs equal to the cent where both give one.
fn same(a: Row, b: Row) -> bool {
    a.tokens == b.tokens
        && a.cost
            .zip(b.cost)
            .is_none_or(|(a, b)| (a - b).abs() < 0.005)
}

fn dollars(c: Option<f64>) -> String {
    c.map_or_else(|| "(no cost)".into(), |c| format!("${c:.4}"))
}

/// The rows where the two disagree (a missing row counts as zero), as
/// lines to print.
pub fn differences(cru: &Rows, peer: &Rows) -> Vec<String> {
    let keys: std::collections::BTreeSet<&(String, String)> =
        cru.keys().chain(peer.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let a = cru.get(k).copied().unwrap_or_default();
        let b = peer.get(k).copied().unwrap_or_default();
        if !same(a, b) {
            out.push(format!(
                "{} {}: cru {:?} {}, ccusage {:?} {}",
                k.0,
                k.1,
                a.tokens,
                dollars(a.cost),
                b.tokens,
                dollars(b.cost)
            ));
        }
    }
    out
}

/// True when ccusage's rows count at least cru's tokens in every row and
/// kind: what counting repeated lines again gives, and nothing else.
pub fn peer_only_counts_more(cru: &Rows, peer: &Rows) -> bool {
    cru.iter().all(|(k, a)| {
        let b = peer.get(k).copied().unwrap_or_default().tokens;
        let a = a.tokens;
        b.input >= a.input
            && b.output >= a.output
            && b.cache_creation >= a.cache_creation
            && b.cache_read >= a.cache_read
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"daily": [
        {"period": "2025-10-02", "inputTokens": 10, "outputTokens": 5,
         "cacheCreationTokens": 3, "cacheReadTokens": 100, "totalCost": 0.25,
         "modelBreakdowns": [
           {"modelName": "claude-opus-4-1", "inputTokens": 6, "outputTokens": 4,
            "cacheCreationTokens": 3, "cacheReadTokens": 100, "cost": 0.2},
           {"modelName": "claude-sonnet-4-5", "inputTokens": 4, "outputTokens": 1,
            "cacheCreationTokens": 0, "cacheReadTokens": 0, "cost": 0.05}]}]}"#;

    pub(crate) fn rows() -> Rows {
        parse_rows(REPORT.as_bytes(), "daily").unwrap()
    }

    fn key(period: &str, model: &str) -> (String, String) {
        (period.to_owned(), model.to_owned())
    }

    #[test]
    fn reads_periods_and_models() {
        let r = rows();
        assert_eq!(r.len(), 3);
        let opus = r[&key("2025-10-02", "claude-opus-4-1")];
        assert_eq!(opus.tokens.cache_read, 100);
        assert!((opus.cost.unwrap() - 0.2).abs() < 1e-9);
        // ccusage's `claude` views name the period `date`, `week`, `month`
        // or `sessionId`.
        for k in ["date", "week", "month", "sessionId"] {
            let claude = REPORT.replace("\"period\"", &format!("\"{k}\""));
            assert_eq!(parse_rows(claude.as_bytes(), "daily").unwrap(), r, "{k}");
        }
        assert!(parse_rows(b"{}", "daily").is_err());
        assert!(parse_rows(br#"{"daily": [{"inputTokens": 1}]}"#, "daily").is_err());
    }

    #[test]
    fn reads_the_codex_views_models_without_cost() {
        let codex = br#"{"daily": [{"date": "2025-09-25", "inputTokens": 7,
            "outputTokens": 3, "reasoningOutputTokens": 2, "cacheCreationTokens": 0,
            "cacheReadTokens": 40, "costUSD": 0.5,
            "models": {"gpt-5-codex": {"inputTokens": 7, "outputTokens": 3,
              "reasoningOutputTokens": 2, "cacheCreationTokens": 0,
              "cacheReadTokens": 40, "isFallback": false}}}]}"#;
        let r = parse_rows(codex, "daily").unwrap();
        let day = r[&key("2025-09-25", ALL_MODELS)];
        assert_eq!((day.cost, day.reasoning), (Some(0.5), 2));
        let model = r[&key("2025-09-25", "gpt-5-codex")];
        assert_eq!(model.cost, None);
        assert_eq!(model.tokens.cache_read, 40);
        // A row without a cost is compared on its tokens alone...
        let mut ours = r.clone();
        ours.get_mut(&key("2025-09-25", "gpt-5-codex"))
            .unwrap()
            .cost = Some(9.0);
        assert_eq!(differences(&ours, &r), Vec::<String>::new());
        // ...and its tokens still count.
        ours.get_mut(&key("2025-09-25", "gpt-5-codex"))
            .unwrap()
            .tokens
            .input += 1;
        assert_eq!(differences(&ours, &r).len(), 1);
    }

    #[test]
    fn equal_rows_pass_and_float_noise_is_no_difference() {
        let mut peer = rows();
        for r in peer.values_mut() {
            r.cost = r.cost.map(|c| c + 0.000_000_01);
        }
        assert_eq!(differences(&rows(), &peer), Vec::<String>::new());
    }

    #[test]
    fn a_cent_off_in_cost_fails() {
        let mut peer = rows();
        let sonnet = peer
            .get_mut(&key("2025-10-02", "claude-sonnet-4-5"))
            .unwrap();
        sonnet.cost = sonnet.cost.map(|c| c + 0.01);
        let d = differences(&rows(), &peer);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].contains("claude-sonnet-4-5"), "{d:?}");
    }

    #[test]
    fn a_token_off_fails_and_a_missing_row_counts() {
        let mut peer = rows();
        peer.get_mut(&key("2025-10-02", ALL_MODELS))
            .unwrap()
            .tokens
            .output += 1;
        assert_eq!(differences(&rows(), &peer).len(), 1);
        let mut fewer = rows();
        fewer.remove(&key("2025-10-02", "claude-opus-4-1"));
        assert_eq!(differences(&rows(), &fewer).len(), 1);
        assert_eq!(differences(&fewer, &rows()).len(), 1);
        // A zero row and no row are the same; a zero row that costs is not.
        let mut zero = rows();
        zero.insert(key("2025-10-03", ALL_MODELS), Row::default());
        assert_eq!(differences(&rows(), &zero), Vec::<String>::new());
        zero.get_mut(&key("2025-10-03", ALL_MODELS)).unwrap().cost = Some(0.02);
        assert_eq!(differences(&rows(), &zero).len(), 1);
    }

    #[test]
    fn rows_add_up_and_an_unknown_cost_stays_unknown() {
        let r = rows();
        let mut sum = r[&key("2025-10-02", "claude-opus-4-1")];
        sum.add(r[&key("2025-10-02", "claude-sonnet-4-5")]);
        assert!(same(sum, r[&key("2025-10-02", ALL_MODELS)]));
        sum.add(Row {
            cost: None,
            ..Row::default()
        });
        assert_eq!(sum.cost, None);
    }

    #[test]
    fn only_counting_more_is_the_progress_lines_pattern() {
        let mut more = rows();
        for r in more.values_mut() {
            r.tokens.cache_read += 7;
        }
        assert!(peer_only_counts_more(&rows(), &more));
        assert!(!peer_only_counts_more(&more, &rows()));
    }
}
