//! Tokens by kind, where they were spent, and who is credited with them.
//!
//! A phase keeps one [`UsageRecord`] per model request the source reported
//! (`<!-- usage: ... -->` lines in the file): its time, model, the four token
//! kinds, the cost the source wrote (if any) and the source's request id.
//! [`SessionLog::usage_lines`] is the one rule that turns a session into
//! attributed figures, for the index and for every report:
//!
//! - a phase's records belong to that phase, its agent and its channel;
//! - a phase's `tokens=` is its whole count: the part its records do not
//!   cover (all of it in files from before tokens were split by kind) is
//!   counted, kind unknown;
//! - a session with no per-phase figure at all is credited to its main agent
//!   (the first participant) only, from the frontmatter's `usage` (by kind
//!   and model) or, failing that, `tokens_used`;
//! - a subagent's tokens are counted in the subagent's own session; the
//!   parent's `subagents[].tokens` are shown beside, never added.
//!
//! The session total is the sum of its lines, so group totals add up.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{AgentRef, Frontmatter, Phase, SessionLog, Timestamp};
use crate::yaml::{Mapping, Value};

/// The most tokens of one kind a count may hold: a thousand billion, far
/// beyond any model's context or a session's spend. A larger number is a
/// damaged file or a mistyped flag, and is refused where it comes in (a
/// usage line, `cru session log tokens`, an import), so that no sum of
/// counts comes near the largest `u64` (sums saturate there, and groups
/// would stop adding up to their total).
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// The most tokens a sum may hold: a phase's `tokens=`, a session's
/// `tokens_used` and the kinds of its frontmatter `usage` (a thousand of
/// the largest counts). A larger one is refused where it is read, as a
/// count above [`MAX_TOKENS`] is; cru's own sums stop there.
pub const MAX_SUM_TOKENS: u64 = 1_000 * MAX_TOKENS;

/// Why a text is no count of tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountError {
    /// Not a whole number (`lots`, `-5`, `1.5`).
    NotANumber,
    /// Digits, but more than [`MAX_TOKENS`].
    TooMany,
}

impl std::fmt::Display for CountError {
    /// What the text is not, after "`TEXT` is ".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotANumber => write!(f, "not a whole number"),
            Self::TooMany => write!(f, "more tokens than any count holds (at most {MAX_TOKENS})"),
        }
    }
}

/// One request's count of one kind, as written in text (a usage line, a
/// flag): a whole number up to [`MAX_TOKENS`].
pub fn parse_token_count(text: &str) -> Result<u64, CountError> {
    match text.parse::<u64>() {
        Ok(n) if n <= MAX_TOKENS => Ok(n),
        Ok(_) => Err(CountError::TooMany),
        // Digits too many for a u64 are a count too large, not no count.
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Err(CountError::TooMany)
        }
        Err(_) => Err(CountError::NotANumber),
    }
}

/// The most a written `cost_usd` may be, in dollars: far beyond any
/// request, phase or session. A larger one is a damaged value.
pub const MAX_COST_USD: f64 = 1_000_000.0;

/// Whether `usd` can be a written cost: finite, 0 or more (no request is
/// paid back), at most [`MAX_COST_USD`].
pub fn is_cost(usd: f64) -> bool {
    usd.is_finite() && (0.0..=MAX_COST_USD).contains(&usd)
}

/// Token counts by kind.
///
/// `input` is the input not read from a cache; `cache_read` and
/// `cache_creation` are the cached parts (an agent that reports cached input
/// inside its input count, as Codex does, is split when imported). `output`
/// includes `reasoning`, which is kept apart for those who want it.
/// `cache_creation` includes `cache_creation_1h`, the part written to the
/// one-hour cache, kept apart because it is priced higher (twice the input
/// price, against 1.25 times for the five-minute cache).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tokens {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_creation: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_1h: u64,
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Tokens {
    /// Every token counted once: input, output and both cache parts
    /// (ccusage's `totalTokens`).
    pub fn total(self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
    }

    pub fn is_zero(self) -> bool {
        self == Self::default()
    }

    pub fn add(&mut self, o: Self) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_creation = self.cache_creation.saturating_add(o.cache_creation);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.reasoning = self.reasoning.saturating_add(o.reasoning);
        self.cache_creation_1h = self.cache_creation_1h.saturating_add(o.cache_creation_1h);
    }

    /// Each kind's count less `o`'s (0 where `o` has more).
    #[must_use]
    pub fn minus(self, o: Self) -> Self {
        Self {
            input: self.input.saturating_sub(o.input),
            output: self.output.saturating_sub(o.output),
            cache_creation: self.cache_creation.saturating_sub(o.cache_creation),
            cache_read: self.cache_read.saturating_sub(o.cache_read),
            reasoning: self.reasoning.saturating_sub(o.reasoning),
            cache_creation_1h: self.cache_creation_1h.saturating_sub(o.cache_creation_1h),
        }
    }

    /// Each kind's part above `threshold` (0 where it is at or below). The
    /// two cache durations are priced apart, so each is measured against the
    /// threshold on its own: `cache_creation` is the five-minute part's
    /// excess plus the one-hour part's, `cache_creation_1h` the latter.
    #[must_use]
    pub fn above(self, threshold: u64) -> Self {
        let over = |n: u64| n.saturating_sub(threshold);
        let one_hour = self.cache_creation_1h.min(self.cache_creation);
        Self {
            input: over(self.input),
            output: over(self.output),
            cache_creation: over(self.cache_creation - one_hour).saturating_add(over(one_hour)),
            cache_read: over(self.cache_read),
            reasoning: 0,
            cache_creation_1h: over(one_hour),
        }
    }

    /// As the frontmatter writes it (`input`, `output`, `cache_creation`,
    /// `cache_read`, and `reasoning` and `cache_creation_1h` when there is
    /// any).
    pub fn to_mapping(self) -> Mapping {
        let mut m = Mapping::new();
        m.insert("input", self.input);
        m.insert("output", self.output);
        m.insert("cache_creation", self.cache_creation);
        m.insert("cache_read", self.cache_read);
        if self.reasoning > 0 {
            m.insert("reasoning", self.reasoning);
        }
        if self.cache_creation_1h > 0 {
            m.insert("cache_creation_1h", self.cache_creation_1h);
        }
        m
    }

    /// Reads what [`Tokens::to_mapping`] wrote; a missing kind is 0.
    pub fn from_mapping(m: &Mapping) -> Self {
        // A sum no session reaches (a damaged file) counts 0.
        let n = |k: &str| {
            m.get(k)
                .and_then(Value::as_u64)
                .filter(|&n| n <= MAX_SUM_TOKENS)
                .unwrap_or(0)
        };
        Self {
            input: n("input"),
            output: n("output"),
            cache_creation: n("cache_creation"),
            cache_read: n("cache_read"),
            reasoning: n("reasoning"),
            cache_creation_1h: n("cache_creation_1h"),
        }
    }
}

/// The context sizes above which a price list may charge another price per
/// token (LiteLLM's `*_above_<N>k_tokens` keys). The index keeps, per line,
/// each kind's tokens above each of them, so that a long-context price can be
/// applied per request without keeping every request.
pub const TIER_THRESHOLDS: [u64; 7] =
    [32_000, 100_000, 128_000, 200_000, 256_000, 272_000, 512_000];

/// One model request, as a phase records it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// When the response came (the source's time of the request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// The model that answered; else the phase's, else the session's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default)]
    pub tokens: Tokens,
    /// The cost the source itself wrote (Claude Code's `costUSD`), in US
    /// dollars; `None` when it wrote none (cru then computes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The source's id of the request (Claude Code: `message.id:requestId`).
    /// Importers count one id once across everything they import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Keys cru does not know, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<(String, String)>,
}

/// A session's tokens by the model that spent them: the frontmatter's
/// `usage` mapping.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct UsageByModel {
    pub models: BTreeMap<String, Tokens>,
}

/// The name under which tokens of a model nobody named are filed.
pub const UNKNOWN_MODEL: &str = "unknown";

impl UsageByModel {
    /// Adds `tokens` spent by `model` (`None`: a model the source did not name).
    pub fn add(&mut self, model: Option<&str>, tokens: Tokens) {
        self.models
            .entry(model.unwrap_or(UNKNOWN_MODEL).to_owned())
            .or_default()
            .add(tokens);
    }

    /// All models together.
    pub fn total(&self) -> Tokens {
        let mut t = Tokens::default();
        for u in self.models.values() {
            t.add(*u);
        }
        t
    }

    /// Writes `usage` (the kinds, and `models` when more than one model
    /// spent tokens) and `tokens_used` into the frontmatter; nothing when
    /// no token was counted.
    pub fn store(&self, fm: &mut Frontmatter) {
        let total = self.total();
        if total.is_zero() {
            return;
        }
        fm.tokens_used = Some(total.total());
        let mut m = total.to_mapping();
        // One model is filed under the session's `model`; any other case
        // names them.
        let only_the_sessions = self.models.len() == 1
            && self.models.keys().next().map(String::as_str)
                == Some(fm.model.as_deref().unwrap_or(UNKNOWN_MODEL));
        if !only_the_sessions {
            let by: Mapping = self
                .models
                .iter()
                .map(|(k, u)| (k.clone(), u.to_mapping()))
                .collect();
            m.insert("models", by);
        }
        fm.extra.insert("usage", m);
    }

    /// Reads back what [`UsageByModel::store`] wrote (one model's usage is
    /// filed under the session's `model`).
    pub fn of(fm: &Frontmatter) -> Option<Self> {
        let m = fm.extra.get("usage")?.as_mapping()?;
        let mut out = Self::default();
        match m.get("models").and_then(Value::as_mapping) {
            Some(by) => {
                for (k, v) in by {
                    if let (Some(k), Some(v)) = (k.as_str(), v.as_mapping()) {
                        out.add(Some(k), Tokens::from_mapping(v));
                    }
                }
            }
            None => out.add(fm.model.as_deref(), Tokens::from_mapping(m)),
        }
        Some(out)
    }
}

/// Figures credited to one phase (or the session), model and UTC hour: what
/// the index keeps and every usage report adds up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageLine {
    /// The phase's number (`phase-N`); `None` for figures the session holds
    /// only in its frontmatter.
    pub phase: Option<u32>,
    /// The agent credited (`name@version` as written): the phase's, else the
    /// session's main agent.
    pub agent: Option<String>,
    pub channel: Option<String>,
    pub model: Option<String>,
    /// Start of the UTC hour the requests fell in, in seconds since the epoch.
    pub hour: i64,
    /// First and last request time in the hour, milliseconds since the epoch.
    pub first_ms: i64,
    pub last_ms: i64,
    /// Requests counted (0 for figures without records).
    pub requests: u64,
    pub tokens: Tokens,
    /// Tokens of unknown kind (`tokens=` of a phase, `tokens_used` of a
    /// session, from files that did not split them). Part of the total;
    /// cannot be priced.
    pub untyped: u64,
    /// True when every request of the line carried the cost its source
    /// wrote; `recorded_cost_usd` is then their sum.
    pub recorded: bool,
    pub recorded_cost_usd: f64,
    /// For each of [`TIER_THRESHOLDS`] that some request went over, each
    /// kind's tokens above it, summed over the line's requests.
    pub above: Vec<(u64, Tokens)>,
}

impl UsageLine {
    /// Every token of the line: the kinds and the untyped.
    pub fn total(&self) -> u64 {
        self.tokens.total().saturating_add(self.untyped)
    }

    fn add_record(&mut self, at_ms: i64, tokens: Tokens, cost: Option<f64>) {
        self.first_ms = self.first_ms.min(at_ms);
        self.last_ms = self.last_ms.max(at_ms);
        self.requests += 1;
        self.tokens.add(tokens);
        if let Some(c) = cost {
            self.recorded_cost_usd += c;
        }
        for t in TIER_THRESHOLDS {
            let over = tokens.above(t);
            if over.is_zero() {
                // Thresholds rise: nothing is above the next ones either.
                break;
            }
            self.add_above(t, over);
        }
    }
}

/// The key lines are grouped by.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct LineKey {
    phase: Option<u32>,
    model: Option<String>,
    hour: i64,
    recorded: bool,
}

fn hour_of(ms: i64) -> i64 {
    ms.div_euclid(3_600_000) * 3_600
}

/// What the attribution rule needs of one phase: the same from a parsed
/// session and from a summary read fast.
#[derive(Debug, Clone, Copy)]
pub struct PhaseFigures<'a> {
    /// `phase-N`'s N.
    pub number: u32,
    pub agent: Option<&'a AgentRef>,
    pub channel: Option<&'a String>,
    pub started: Option<&'a Timestamp>,
    pub model: Option<&'a String>,
    /// The metadata's `tokens=` (kind unknown), used when there is no record.
    pub tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub records: &'a [UsageRecord],
}

impl<'a> PhaseFigures<'a> {
    pub fn of(number: u32, p: &'a Phase) -> Self {
        Self {
            number,
            agent: p.agent.as_ref(),
            channel: p.channel.as_ref(),
            started: p.meta.started.as_ref(),
            model: p.meta.model.as_ref(),
            tokens: p.meta.tokens,
            cost_usd: p.meta.cost_usd,
            records: &p.usage,
        }
    }
}

/// The one attribution rule (this module's doc), one line per (phase,
/// model, UTC hour, cost written or not), in that order.
pub fn attribute<'a>(
    fm: &Frontmatter,
    phases: impl IntoIterator<Item = PhaseFigures<'a>>,
) -> Vec<UsageLine> {
    let main_agent = fm.participants.first().map(ToString::to_string);
    let started_ms = fm.started.unix_ms();
    let mut lines: BTreeMap<LineKey, UsageLine> = BTreeMap::new();
    let mut any_phase_figure = false;
    for p in phases {
        let agent = p.agent.map(ToString::to_string).or(main_agent.clone());
        let channel = p.channel.or(fm.channel.as_ref()).cloned();
        let phase_ms = p.started.map_or(started_ms, Timestamp::unix_ms);
        let phase_model = p.model.or(fm.model.as_ref());
        if p.records.is_empty() && p.tokens.is_none() {
            continue;
        }
        any_phase_figure = true;
        for r in p.records {
            let at = r.at.as_ref().map_or(phase_ms, Timestamp::unix_ms);
            let key = LineKey {
                phase: Some(p.number),
                model: r.model.as_ref().or(phase_model).cloned(),
                hour: hour_of(at),
                recorded: r.cost_usd.is_some(),
            };
            new_line(&mut lines, key, agent.as_ref(), channel.as_ref(), at)
                .add_record(at, r.tokens, r.cost_usd);
        }
        // `tokens=` is the phase's whole count: what its records do not
        // cover (all of it, in a phase without records) was counted without
        // kinds, and the phase's written `cost_usd` is that part's (the
        // records carry their own).
        let rest = p
            .tokens
            .unwrap_or(0)
            .saturating_sub(records_total(p.records));
        if rest > 0 || p.records.is_empty() {
            let key = LineKey {
                phase: Some(p.number),
                model: phase_model.cloned(),
                hour: hour_of(phase_ms),
                recorded: p.cost_usd.is_some(),
            };
            let line = new_line(&mut lines, key, agent.as_ref(), channel.as_ref(), phase_ms);
            line.untyped = line.untyped.saturating_add(rest);
            line.recorded_cost_usd += p.cost_usd.unwrap_or(0.0);
        }
    }
    if !any_phase_figure {
        frontmatter_lines(fm, &mut lines, main_agent.as_ref());
    }
    lines.into_values().collect()
}

/// Every token of `lines` (saturating, as every sum of counts is).
pub fn lines_total(lines: &[UsageLine]) -> u64 {
    lines.iter().fold(0u64, |n, l| n.saturating_add(l.total()))
}

/// Every token of `records`.
pub fn records_total(records: &[UsageRecord]) -> u64 {
    records
        .iter()
        .fold(0u64, |n, r| n.saturating_add(r.tokens.total()))
}

impl SessionLog {
    /// The session's usage, attributed by [`attribute`].
    pub fn usage_lines(&self) -> Vec<UsageLine> {
        attribute(
            &self.frontmatter,
            self.phases()
                .map(|(id, p)| PhaseFigures::of(id.number(), p)),
        )
    }

    /// The records of every phase, in document order.
    pub fn usage_records(&self) -> impl Iterator<Item = &UsageRecord> {
        self.phases().flat_map(|(_, p)| p.usage.iter())
    }

    /// Sets the frontmatter's `usage` to the sum of the phases' records and
    /// `tokens_used` to the session's total by the attribution rule (the
    /// records, and the `tokens=` of phases without records), so a reader of
    /// the frontmatter alone sees the same totals. Does nothing when no
    /// phase has a record.
    pub fn refresh_usage_totals(&mut self) {
        let mut by = UsageByModel::default();
        let mut any = false;
        let fm_model = self.frontmatter.model.clone();
        for (_, p) in self.phases() {
            let model = p.meta.model.as_ref().or(fm_model.as_ref());
            for r in &p.usage {
                any = true;
                by.add(r.model.as_ref().or(model).map(String::as_str), r.tokens);
            }
        }
        if !any {
            return;
        }
        self.frontmatter.extra.remove("usage");
        by.store(&mut self.frontmatter);
        let total = lines_total(&self.usage_lines());
        self.frontmatter.tokens_used = Some(total.min(MAX_SUM_TOKENS));
    }

    /// Before a phase gets its first figure: moves figures the session
    /// holds only in its frontmatter (tokens logged before its first phase,
    /// or a file that never split them by phase) into its first phase. The
    /// attribution rule reads the frontmatter's figures only while no phase
    /// has any, and the totals written from the phases afterwards would
    /// drop them. The frontmatter's `usage` becomes records (by model, at
    /// the session's start), and what `tokens_used` holds beyond them the
    /// phase's untyped part of `tokens=`. Does nothing once a phase has
    /// figures.
    pub fn carry_session_figures(&mut self) {
        if self
            .phases()
            .any(|(_, p)| !p.usage.is_empty() || p.meta.tokens.is_some())
        {
            return;
        }
        let by = UsageByModel::of(&self.frontmatter);
        let typed = by.as_ref().map_or(0, |b| b.total().total());
        let untyped = self
            .frontmatter
            .tokens_used
            .unwrap_or(0)
            .saturating_sub(typed);
        if typed == 0 && untyped == 0 {
            return;
        }
        let at = self.frontmatter.started.clone();
        // The session's written cost goes with its figures, as rule 3 read
        // it: all of it on the first model's, none on the others'.
        let mut cost = self.frontmatter.cost_usd;
        let written = cost.is_some();
        let Some(first) = self.phases_mut().next() else {
            return;
        };
        first.usage = by
            .map(|b| b.models.into_iter())
            .into_iter()
            .flatten()
            .filter(|(_, t)| !t.is_zero())
            .map(|(model, tokens)| UsageRecord {
                at: Some(at.clone()),
                model: (model != UNKNOWN_MODEL).then_some(model),
                tokens,
                cost_usd: written.then(|| cost.take().unwrap_or(0.0)),
                ..UsageRecord::default()
            })
            .collect();
        if untyped > 0 {
            first.meta.tokens = Some(typed.saturating_add(untyped));
            if first.usage.is_empty() {
                first.meta.cost_usd = first.meta.cost_usd.or(cost);
            }
        }
        self.frontmatter.extra.remove("usage");
    }
}

/// A session without per-phase figures: its frontmatter's, credited to
/// the main agent at the session's start.
fn frontmatter_lines(
    fm: &Frontmatter,
    lines: &mut BTreeMap<LineKey, UsageLine>,
    agent: Option<&String>,
) {
    {
        let at = fm.started.unix_ms();
        let agent = agent.cloned();
        let recorded = fm.cost_usd.is_some();
        let mut cost = fm.cost_usd;
        if let Some(by) = UsageByModel::of(fm) {
            // Tokens counted without kinds (`tokens_used` above the kinds'
            // sum) stay in the total, kind unknown.
            let rest = fm
                .tokens_used
                .unwrap_or(0)
                .saturating_sub(by.total().total());
            if rest > 0 {
                let key = LineKey {
                    phase: None,
                    model: fm.model.clone(),
                    hour: hour_of(at),
                    recorded: false,
                };
                let line = new_line(lines, key, agent.as_ref(), fm.channel.as_ref(), at);
                line.untyped = line.untyped.saturating_add(rest);
            }
            for (model, tokens) in by.models {
                let key = LineKey {
                    phase: None,
                    model: (model != UNKNOWN_MODEL).then_some(model),
                    hour: hour_of(at),
                    recorded,
                };
                let line = new_line(lines, key, agent.as_ref(), fm.channel.as_ref(), at);
                line.tokens.add(tokens);
                // The session's written cost is credited once, to its first model.
                line.recorded_cost_usd += cost.take().unwrap_or(0.0);
            }
        } else if let Some(n) = fm.tokens_used {
            let key = LineKey {
                phase: None,
                model: fm.model.clone(),
                hour: hour_of(at),
                recorded,
            };
            let line = new_line(lines, key, agent.as_ref(), fm.channel.as_ref(), at);
            line.untyped = line.untyped.saturating_add(n);
            line.recorded_cost_usd += cost.unwrap_or(0.0);
        }
    }
}

/// `lines` with their phase left out, merged where they then agree (agent,
/// channel, model, hour, cost written or not): a session's figures as the
/// index's session row keeps them.
pub fn without_phases(lines: &[UsageLine]) -> Vec<UsageLine> {
    type Key<'a> = (
        Option<&'a String>,
        Option<&'a String>,
        Option<&'a String>,
        i64,
        bool,
    );
    let mut merged: BTreeMap<Key<'_>, UsageLine> = BTreeMap::new();
    for l in lines {
        let key = (
            l.agent.as_ref(),
            l.channel.as_ref(),
            l.model.as_ref(),
            l.hour,
            l.recorded,
        );
        match merged.get_mut(&key) {
            Some(m) => m.merge(l),
            None => {
                merged.insert(
                    key,
                    UsageLine {
                        phase: None,
                        ..l.clone()
                    },
                );
            }
        }
    }
    merged.into_values().collect()
}

impl UsageLine {
    /// Adds `o`'s figures to this line's (same agent, model and hour).
    pub fn merge(&mut self, o: &UsageLine) {
        // Lines of other hours merged (by model, for pricing) keep the
        // earliest: the result does not depend on the order of merging.
        self.hour = self.hour.min(o.hour);
        self.first_ms = self.first_ms.min(o.first_ms);
        self.last_ms = self.last_ms.max(o.last_ms);
        self.requests += o.requests;
        self.tokens.add(o.tokens);
        self.untyped = self.untyped.saturating_add(o.untyped);
        self.recorded_cost_usd += o.recorded_cost_usd;
        for &(t, a) in &o.above {
            self.add_above(t, a);
        }
    }

    /// Adds tokens above threshold `t`, keeping `above` sorted by threshold.
    fn add_above(&mut self, t: u64, tokens: Tokens) {
        if let Some((_, sum)) = self.above.iter_mut().find(|(at, _)| *at == t) {
            sum.add(tokens);
        } else {
            self.above.push((t, tokens));
            self.above.sort_by_key(|(at, _)| *at);
        }
    }
}

impl Frontmatter {
    /// The session's project: its `project` key (the git root of its
    /// working directory, found by [`crate::project::project_of`] when it
    /// was recorded or imported, and written only when it differs from the
    /// `cwd`), else its `cwd`.
    pub fn project(&self) -> Option<&str> {
        [crate::project::PROJECT_KEY, crate::project::CWD_KEY]
            .into_iter()
            .find_map(|k| self.extra.get(k).and_then(Value::as_str))
            .filter(|p| !p.is_empty())
    }
}

fn new_line<'a>(
    lines: &'a mut BTreeMap<LineKey, UsageLine>,
    key: LineKey,
    agent: Option<&String>,
    channel: Option<&String>,
    at_ms: i64,
) -> &'a mut UsageLine {
    let (phase, model, hour, recorded) = (key.phase, key.model.clone(), key.hour, key.recorded);
    lines.entry(key).or_insert_with(|| UsageLine {
        phase,
        agent: agent.cloned(),
        channel: channel.cloned(),
        model,
        hour,
        first_ms: at_ms,
        last_ms: at_ms,
        recorded,
        ..UsageLine::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentRef, Phase, Section, SessionId};

    fn log() -> SessionLog {
        let mut fm = Frontmatter::new(
            SessionId::new("s").unwrap(),
            "2025-01-01T10:00:00Z".parse().unwrap(),
        );
        fm.participants = vec![AgentRef::new("lead", None), AgentRef::new("helper", None)];
        fm.tokens_used = Some(999);
        SessionLog::new(fm)
    }

    fn record(at: &str, model: &str, input: u64, output: u64) -> UsageRecord {
        UsageRecord {
            at: Some(at.parse().unwrap()),
            model: Some(model.into()),
            tokens: Tokens {
                input,
                output,
                ..Tokens::default()
            },
            ..UsageRecord::default()
        }
    }

    #[test]
    fn a_session_without_phase_figures_is_credited_to_its_main_agent_only() {
        let lines = log().usage_lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].agent.as_deref(), Some("lead"));
        assert_eq!(lines[0].untyped, 999);
        assert_eq!(lines[0].phase, None);
    }

    #[test]
    fn records_belong_to_their_phase_and_split_by_model_and_hour() {
        let mut s = log();
        let mut p = Phase::new("a", Some(AgentRef::new("helper", None)), Some("dev".into()));
        p.usage = vec![
            record("2025-01-01T10:05:00Z", "m1", 10, 1),
            record("2025-01-01T10:55:00Z", "m1", 20, 2),
            record("2025-01-01T11:01:00Z", "m1", 5, 0),
            record("2025-01-01T10:06:00Z", "m2", 1, 1),
        ];
        s.sections.push(Section::Phase(p));
        s.sections.push(Section::Phase(Phase::new("b", None, None)));
        let lines = s.usage_lines();
        assert_eq!(lines.len(), 3, "{lines:#?}");
        let total: u64 = lines.iter().map(UsageLine::total).sum();
        assert_eq!(total, 40, "the frontmatter's tokens_used is not added");
        assert!(lines.iter().all(|l| l.agent.as_deref() == Some("helper")));
        let first = &lines[0];
        assert_eq!((first.requests, first.tokens.input), (2, 30));
        assert_eq!(first.last_ms - first.first_ms, 50 * 60_000);
    }

    #[test]
    fn long_requests_keep_their_part_above_each_threshold() {
        let mut s = log();
        let mut p = Phase::new("a", None, None);
        let mut big = record("2025-01-01T10:05:00Z", "m", 0, 10);
        big.tokens.cache_read = 250_000;
        p.usage = vec![big, record("2025-01-01T10:06:00Z", "m", 100, 1)];
        s.sections.push(Section::Phase(p));
        let l = &s.usage_lines()[0];
        let above_200k = l.above.iter().find(|(t, _)| *t == 200_000).unwrap().1;
        assert_eq!(above_200k.cache_read, 50_000);
        assert!(l.above.iter().all(|(t, _)| *t < 256_000));
    }

    #[test]
    fn the_one_hour_cache_part_is_measured_against_thresholds_on_its_own() {
        let t = Tokens {
            cache_creation: 250_000,
            cache_creation_1h: 210_000,
            ..Tokens::default()
        };
        let over = t.above(200_000);
        assert_eq!(
            (over.cache_creation, over.cache_creation_1h),
            (10_000, 10_000)
        );
        assert_eq!(
            t.total(),
            250_000,
            "the one-hour part is inside cache_creation"
        );
        assert_eq!(Tokens::from_mapping(&t.to_mapping()), t);
    }

    #[test]
    fn totals_are_refreshed_from_the_records() {
        let mut s = log();
        let mut p = Phase::new("a", None, None);
        p.usage = vec![record("2025-01-01T10:05:00Z", "m1", 10, 1)];
        s.sections.push(Section::Phase(p));
        s.refresh_usage_totals();
        assert_eq!(s.frontmatter.tokens_used, Some(11));
        let by = UsageByModel::of(&s.frontmatter).unwrap();
        assert_eq!(by.models.len(), 1);
    }
}
