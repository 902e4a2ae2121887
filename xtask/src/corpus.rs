//! Deterministic synthetic session corpora for benchmarks and smoke tests.
//!
//! Every file is built as a [`SessionLog`] and written with the real writer,
//! so a corpus is always valid, canonical markdown: the benchmarks measure the
//! parser on what cru itself produces, with every construct of the format.

mod usage;

use std::path::Path;

use anyhow::Context;
use crucible_core::{
    AgentRef, Block, Callout, Frontmatter, Phase, PhaseId, PhaseMeta, Section, SessionId,
    SessionLog, SessionStatus, SubagentEntry, SubagentMode, SubagentRef, Task, TaskStatus,
    Timestamp, ToolCall,
};

/// The generator's version: bumped when the same spec makes other files
/// (2: phases carry per-request usage records).
const GENERATOR: u32 = 2;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusSpec {
    pub sessions: usize,
    pub min_bytes: usize,
    pub max_bytes: usize,
    pub seed: u64,
}

impl CorpusSpec {
    /// A folder name that says which corpus it holds.
    pub fn dir_name(&self) -> String {
        format!(
            "bench-corpus-n{}-{}-{}k-s{}",
            self.sessions,
            self.min_bytes / 1024,
            self.max_bytes / 1024,
            self.seed
        )
    }

    /// What a generated folder was made from; a folder whose marker differs
    /// (another spec, or another version of the generator) is made again.
    fn marker(&self) -> String {
        format!("{self:?} generator {GENERATOR}\n")
    }
}

/// A small, fast, seedable generator (SplitMix64); quality is ample for
/// choosing words and sizes, and it keeps xtask free of a `rand` dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len())]
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

const WORDS: &[&str] = &[
    "parser",
    "session",
    "index",
    "phase",
    "agent",
    "the",
    "a",
    "of",
    "to",
    "and",
    "cache",
    "fixture",
    "timeout",
    "retry",
    "build",
    "config",
    "schema",
    "token",
    "budget",
    "resume",
    "decision",
    "error",
    "module",
    "test",
    "flaky",
    "lock",
    "atomic",
    "rename",
    "store",
    "review",
    "migration",
    "column",
    "endpoint",
    "handler",
    "request",
    "latency",
    "failure",
    "because",
    "instead",
    "works",
    "broke",
    "again",
    "fixed",
    "→",
    "`cargo`",
    "naïve",
    "über",
    "日本",
];
const AGENTS: &[&str] = &[
    "orchestrator",
    "coder",
    "researcher",
    "tester",
    "reviewer",
    "debugger",
];
const MODELS: &[&str] = &[
    "claude-sonnet-4-20250514",
    "gpt-4o",
    "claude-opus-4-5-20251101",
    "llama3.1:70b",
];
const CHANNELS: &[&str] = &["dev", "ops", "data", "docs", "ci"];
const TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "grep",
    "bash",
    "glob",
    "web_search",
];

pub fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        let word: &&str = rng.pick(WORDS);
        s.push_str(word);
    }
    s
}

fn sentence(rng: &mut Rng) -> String {
    let n = rng.range(6, 16);
    let mut s = words(rng, n);
    s.replace_range(0..0, "Then ");
    s.push('.');
    s
}

fn agent(rng: &mut Rng) -> AgentRef {
    AgentRef::new(*rng.pick(AGENTS), Some(format!("1.{}", rng.range(0, 4))))
}

fn tool_call(rng: &mut Rng) -> ToolCall {
    let tool = *rng.pick(TOOLS);
    let args = format!(
        "src/{}/{}.rs",
        rng.pick(WORDS).trim_matches('`'),
        rng.range(0, 99)
    );
    let n = rng.range(2, 9);
    let mut call = ToolCall::new(tool, args).with_summary(words(rng, n));
    if rng.chance(8) {
        call.failed = true;
    }
    call
}

/// One phase and roughly how many bytes it adds.
fn phase(rng: &mut Rng, index: usize, started: i64) -> (Phase, usize) {
    let mut p = Phase::new(
        format!("Step {} {}", index + 1, words(rng, 2)),
        Some(agent(rng)),
        Some((*rng.pick(CHANNELS)).to_owned()),
    );
    p.meta = PhaseMeta {
        started: Some(Timestamp::from_unix_ms(started)),
        duration_ms: Some(rng.range(1_000, 900_000) as u64),
        tokens: Some(rng.range(100, 9_000) as u64),
        ..PhaseMeta::default()
    };
    let mut prose = sentence(rng);
    for _ in 0..rng.range(0, 3) {
        prose.push(' ');
        prose.push_str(&sentence(rng));
    }
    p.blocks.push(Block::prose(prose));
    let calls: Vec<ToolCall> = (0..rng.range(2, 9)).map(|_| tool_call(rng)).collect();
    p.blocks.push(Block::ToolCalls { calls });
    if rng.chance(50) {
        p.blocks
            .push(Block::Callout(Callout::decision(&sentence(rng))));
    }
    if rng.chance(20) {
        let resolution = rng.chance(70).then(|| sentence(rng));
        p.blocks.push(Block::Callout(Callout::error(
            &sentence(rng),
            resolution.as_deref(),
        )));
    }
    if rng.chance(10) {
        p.blocks.push(Block::Callout(Callout::user(
            &words(rng, 8),
            Some(&sentence(rng)),
        )));
    }
    if rng.chance(5) {
        let sub = SubagentRef {
            agent: Some(agent(rng)),
            model: Some((*rng.pick(MODELS)).to_owned()),
            mode: SubagentMode::Link,
            target: SessionId::new(&format!("sub-{}", rng.next_u64() % 1_000_000)).ok(),
            description: vec![sentence(rng)],
            content: Vec::new(),
            summary: Some(sentence(rng)),
        };
        p.blocks.push(Block::Callout(Callout::from_subagent(&sub)));
    }
    let approx = p
        .blocks
        .iter()
        .map(|b| match b {
            Block::Prose { text } => text.len(),
            Block::ToolCalls { calls } => calls.len() * 70,
            _ => 120,
        })
        .sum::<usize>()
        + 120;
    (p, approx)
}

/// The session with number `n` of a corpus.
pub fn session(spec: &CorpusSpec, n: usize) -> SessionLog {
    let mut rng = Rng::new(spec.seed.wrapping_mul(1_000_003).wrapping_add(n as u64));
    let target = rng.range(spec.min_bytes, spec.max_bytes.max(spec.min_bytes + 1));
    let started_ms = 1_735_689_600_000 + (rng.range(0, 365 * 24 * 60) as i64) * 60_000;
    let started = Timestamp::from_unix_ms(started_ms);
    let id = SessionId::new(&format!("{}-synthetic-{n:06}", started.utc_day()))
        .expect("a valid generated id");
    let mut fm = Frontmatter::new(id, started);
    fm.status = match rng.range(0, 100) {
        0..5 => SessionStatus::Paused,
        5..15 => SessionStatus::Failed,
        15..20 => SessionStatus::Active,
        _ => SessionStatus::Completed,
    };
    fm.title = Some(format!("Synthetic task {n}: {}", words(&mut rng, 4)));
    fm.channel = Some((*rng.pick(CHANNELS)).to_owned());
    fm.participants = (0..rng.range(1, 4)).map(|_| agent(&mut rng)).collect();
    fm.participants.dedup();
    fm.model = Some((*rng.pick(MODELS)).to_owned());
    if rng.chance(10) {
        fm.subagents.push(SubagentEntry {
            session: SessionId::new(&format!("sub-{n}")).expect("a valid generated id"),
            agent: Some(agent(&mut rng)),
            model: Some((*rng.pick(MODELS)).to_owned()),
            tokens: Some(rng.range(100, 5000) as u64),
            extra: Default::default(),
        });
    }
    let mut log = SessionLog::new(fm);
    log.preamble.push(Block::Heading {
        level: 1,
        text: log.frontmatter.title.clone().unwrap_or_default(),
    });
    log.preamble.push(Block::prose(sentence(&mut rng)));
    log.preamble.push(Block::Tasks {
        tasks: (0..rng.range(1, 5))
            .map(|i| Task {
                id: (i + 1).to_string(),
                content: words(&mut rng, 5),
                status: *rng.pick(&[
                    TaskStatus::Pending,
                    TaskStatus::InProgress,
                    TaskStatus::Completed,
                ]),
                priority: Some((*rng.pick(&["high", "medium", "low"])).to_owned()),
                extra: Default::default(),
            })
            .collect(),
    });
    let mut size = 700;
    let mut at = started_ms;
    let mut tokens = 0;
    while size < target {
        let (p, bytes) = phase(&mut rng, log.phase_count(), at);
        at += p.meta.duration_ms.unwrap_or(0) as i64;
        tokens += p.meta.tokens.unwrap_or(0);
        size += bytes;
        log.sections.push(Section::Phase(p));
    }
    log.frontmatter.tokens_used = Some(tokens);
    match log.frontmatter.status {
        SessionStatus::Paused => {
            log.frontmatter.resume_point =
                Some(PhaseId::from_index(log.phase_count().saturating_sub(1)));
        }
        SessionStatus::Completed | SessionStatus::Failed => {
            log.frontmatter.ended = Some(Timestamp::from_unix_ms(at));
        }
        SessionStatus::Active => {}
    }
    usage::add(&mut log, spec.seed, n);
    log
}

/// `sessions` generated sessions of 2–12 KB (median ~7 KB, the size of
/// sessions people record), under `target/`, generated once: the corpus of
/// the index and learn benchmarks.
pub fn recorded_size(
    root: &Path,
    sessions: usize,
    seed: u64,
) -> anyhow::Result<std::path::PathBuf> {
    let spec = CorpusSpec {
        sessions,
        min_bytes: 2 * 1024,
        max_bytes: 12 * 1024,
        seed,
    };
    let dir = root.join("target").join(spec.dir_name());
    ensure(&dir, &spec)?;
    Ok(dir)
}

/// Writes the corpus into `dir` unless it is already there.
pub fn ensure(dir: &Path, spec: &CorpusSpec) -> anyhow::Result<()> {
    let marker = dir.join(".corpus-spec");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(spec.marker().as_str()) {
        return Ok(());
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir)?;
    eprintln!("generating {} sessions in {}", spec.sessions, dir.display());
    for n in 0..spec.sessions {
        let log = session(spec, n);
        let path = dir.join(log.id().file_name());
        std::fs::write(&path, crucible_parser::write_session(&log))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    std::fs::write(marker, spec.marker())?;
    Ok(())
}
/// A corpus of `sessions` files of `min_kb` to `max_kb` KB in a new
/// temporary folder: the setup of every harness's smoke test.
#[cfg(test)]
pub fn small(sessions: usize, min_kb: usize, max_kb: usize, seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder for the corpus");
    let spec = CorpusSpec {
        sessions,
        min_bytes: min_kb * 1024,
        max_bytes: max_kb * 1024,
        seed,
    };
    ensure(dir.path(), &spec).expect("the corpus is written");
    dir
}
