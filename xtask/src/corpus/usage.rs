//! Per-request usage records for a generated session, shaped like what
//! Claude Code and Codex report: a few requests per phase, mostly the
//! session's model with a smaller one for side tasks, every token kind
//! (cache reads dominate, as they do in real transcripts), some requests
//! over the 200k long-context threshold, and a cost written by the source
//! in about a third of the sessions (older Claude Code versions wrote
//! `costUSD`). Without them `cru usage` over the index corpus would have
//! nothing to add up.
//!
//! Drawn from a generator of their own, so the rest of a session is the
//! same bytes as before records were added.

use crucible_core::{Section, SessionLog, Timestamp, Tokens, UsageRecord};

use super::Rng;

/// The models requests name: priced ones (dated and plain names, as the
/// agents write them) and one the table has no price for.
const REQUEST_MODELS: &[&str] = &[
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-5-20251101",
    "claude-haiku-4-5-20251001",
    "claude-sonnet-4-20250514",
    "gpt-5-codex",
    "gpt-5.1-codex-max",
    "llama3.1:70b",
];

/// Percent of sessions left as files from before records (phase `tokens=`
/// only): their figures are untyped, as such files are.
const WITHOUT_RECORDS: u64 = 10;

/// Adds records to the phases of `log` (session number `n` of a corpus of
/// seed `seed`) and sets the frontmatter's totals from them.
pub fn add(log: &mut SessionLog, seed: u64, n: usize) {
    let mut rng = Rng::new(
        seed.wrapping_mul(7_919)
            .wrapping_add(n as u64)
            .wrapping_add(0x005e_ed0f_u64 << 32),
    );
    if rng.chance(WITHOUT_RECORDS) {
        return;
    }
    let main = *rng.pick(REQUEST_MODELS);
    let side = *rng.pick(REQUEST_MODELS);
    let writes_cost = rng.chance(33);
    let mut request = 0u64;
    for section in &mut log.sections {
        let Section::Phase(p) = section else { continue };
        let start = p.meta.started.as_ref().map_or(0, Timestamp::unix_ms);
        let span = p.meta.duration_ms.unwrap_or(60_000).max(1);
        p.meta.tokens = None;
        for i in 0..rng.range(1, 7) {
            request += 1;
            let model = if rng.chance(80) { main } else { side };
            let tokens = tokens(&mut rng);
            p.usage.push(UsageRecord {
                at: Some(Timestamp::from_unix_ms(
                    start + (span as i64) * i64::try_from(i).unwrap_or(0) / 6,
                )),
                model: Some(model.to_owned()),
                tokens,
                cost_usd: writes_cost.then(|| written_cost(tokens)),
                id: Some(format!("msg_{n:06}_{request}:req_{:x}", rng.next_u64())),
                extra: Vec::new(),
            });
        }
    }
    log.refresh_usage_totals();
}

/// One request's tokens: every kind, cache reads the most, now and then a
/// long context (over 200k) or a one-hour cache write.
fn tokens(rng: &mut Rng) -> Tokens {
    let long = rng.chance(3);
    let cache_creation = rng.range(0, 30_000) as u64;
    Tokens {
        input: rng.range(1, 5_000) as u64,
        output: rng.range(20, 8_000) as u64,
        cache_creation,
        cache_read: if long {
            rng.range(200_000, 400_000)
        } else {
            rng.range(0, 180_000)
        } as u64,
        reasoning: if rng.chance(20) {
            rng.range(0, 2_000) as u64
        } else {
            0
        },
        cache_creation_1h: if rng.chance(10) {
            cache_creation / 2
        } else {
            0
        },
    }
}

/// A cost as a source writes it: about Sonnet's prices, rounded to the
/// micro-dollar as Claude Code writes `costUSD`.
fn written_cost(t: Tokens) -> f64 {
    let usd = (t.input as f64) * 3e-6
        + (t.output as f64) * 15e-6
        + (t.cache_creation as f64) * 3.75e-6
        + (t.cache_read as f64) * 0.3e-6;
    (usd * 1e6).round() / 1e6
}
