//! `cargo xtask`: project chores that are code, not shell.
//!
//! - `docs [--check]`: man pages, shell completions and the command
//!   reference of docs/cli.md, from the clap command tree; `--check` fails
//!   when the committed files are stale.
//! - `deps`: the crates' dependency arrows against docs/architecture.md's
//!   crate table.
//! - `bench`: generates a deterministic synthetic corpus and prints a table of
//!   parse throughput against plain pulldown-cmark over the same files.
//! - `learn-check`: the learning-case exports loaded by Hugging Face
//!   `datasets`, the reader training tools use.
//! - `peer-check`: Claude Code token totals against ccusage's.
//! - `messages-check`: `resume --format messages` validated by the `openai`
//!   Python package's chat message types.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use xtask::{
    bench, capture_bench, claude_corpus, corpus, cru_binary, deps, docs, import_bench, index_bench,
    learn_bench, learn_check, mcp_bench, messages_check, otlp_bench, peer_check, record_bench,
    screenshots, search_bench, site_bench,
};

// The allocator `cru` itself uses, so the benchmarks measure what users get.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(name = "cargo xtask")]
struct Args {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Only {
    All,
    Parse,
    Record,
    Index,
    Learn,
    Import,
    Search,
    Capture,
    Site,
    Otlp,
    Mcp,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Write man pages, completions and docs/cli.md's command reference
    /// into docs/ (or check them).
    Docs {
        /// Fail if the files in docs/ differ from what would be written.
        #[arg(long)]
        check: bool,
    },
    /// Fail when a crate depends on a workspace crate that
    /// docs/architecture.md's crate table does not draw (or the other way).
    Deps,
    /// Load every learning-case JSONL schema with Hugging Face `datasets`
    /// (python3 with the package installed).
    LearnCheck,
    /// The README's pictures from the fixtures (docs/images/): a session
    /// page and the site's index by headless Chromium, the picker's screen
    /// from a tmux pane.
    Screenshots,
    /// Validate `resume --format messages` of every fixture session and of
    /// imported real sessions with the `openai` Python package's types.
    MessagesCheck,
    /// Compare cru's token totals for Claude Code transcripts with
    /// ccusage's (installs ccusage@20.0.24 with npm under target/peer/).
    PeerCheck {
        /// Generated transcripts, besides the fixtures.
        #[arg(long, default_value_t = 200)]
        transcripts: usize,
    },
    /// Generate a synthetic corpus and measure the parser on it.
    Bench {
        /// Number of sessions in the corpus.
        #[arg(long, default_value_t = 10_000)]
        sessions: usize,
        /// Smallest session, in KB.
        #[arg(long, default_value_t = 2)]
        min_kb: usize,
        /// Largest session, in KB.
        #[arg(long, default_value_t = 50)]
        max_kb: usize,
        /// Seed of the generator; the same seed gives the same files.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the corpus lives (reused when it matches the spec).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Sessions in the index benchmark's corpus (2–12 KB each).
        #[arg(long, default_value_t = 100_000)]
        index_sessions: usize,
        /// Which benchmarks to run.
        #[arg(long, value_enum, default_value = "all")]
        only: Only,
    },
}

/// The import and capture benchmarks' Claude Code transcripts: 1,000 of
/// about 250 MB in all, the corpus.
fn claude_spec(seed: u64) -> claude_corpus::ClaudeCorpus {
    claude_corpus::ClaudeCorpus {
        transcripts: 1_000,
        bytes_each: 320 * 1024,
        seed,
    }
}

/// The benchmarks of what reads the index benchmark's corpus to show it:
/// search and the site.
fn views_benches<'a>(
    root: &std::path::Path,
    cru: impl Fn() -> &'a std::path::Path,
    only: Only,
    index_sessions: usize,
    seed: u64,
) -> anyhow::Result<()> {
    if matches!(only, Only::All | Only::Search) {
        let dir = corpus::recorded_size(root, index_sessions, seed)?;
        let scratch = root.join("target/bench-search");
        print!("{}", search_bench::run(cru(), &dir, &scratch, 3)?);
        println!();
    }
    if matches!(only, Only::All | Only::Site) {
        let dir = corpus::recorded_size(root, index_sessions, seed)?;
        let scratch = root.join("target/bench-site");
        print!("{}", site_bench::run(cru(), &dir, &scratch, 2)?);
        println!();
    }
    if matches!(only, Only::All | Only::Mcp) {
        let dir = corpus::recorded_size(root, index_sessions, seed)?;
        // The sessions linked, not copied, into a folder of their own: the
        // benchmark records a session and builds indexes there, and the
        // corpus the other benchmarks read stays as it is.
        let scratch = root.join("target/bench-mcp");
        mcp_bench::link_sessions(&dir, &scratch)?;
        print!("{}", mcp_bench::run(cru(), &scratch, 3)?);
        println!();
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_owned();
    match Args::parse().task {
        Task::Docs { check } => docs::run(&root, check),
        Task::Deps => deps::run(&root),
        Task::LearnCheck => learn_check::run(&root),
        Task::MessagesCheck => messages_check::run(&root),
        Task::Screenshots => screenshots::run(&root),
        Task::PeerCheck { transcripts } => peer_check::run(&root, transcripts),
        Task::Bench {
            sessions,
            min_kb,
            max_kb,
            seed,
            dir,
            only,
            index_sessions,
        } => {
            let spec = corpus::CorpusSpec {
                sessions,
                min_bytes: min_kb * 1024,
                max_bytes: max_kb * 1024,
                seed,
            };
            // Release: the figures are what users get. Built once, and only
            // when a benchmark runs the binary.
            let cru = match only {
                Only::Parse => None,
                _ => Some(cru_binary::release(&root)?),
            };
            let cru = || cru.as_deref().expect("built for every benchmark but parse");
            if matches!(only, Only::All | Only::Parse) {
                let dir = dir.unwrap_or_else(|| root.join("target").join(spec.dir_name()));
                corpus::ensure(&dir, &spec)?;
                print!("{}", bench::run(&dir, 5)?);
                println!();
            }
            if matches!(only, Only::All | Only::Index) {
                let dir = corpus::recorded_size(&root, index_sessions, seed)?;
                print!("{}", index_bench::run(cru(), &dir, 3)?);
                println!();
            }
            if matches!(only, Only::All | Only::Learn) {
                let dir = corpus::recorded_size(&root, 10_000, seed)?;
                print!("{}", learn_bench::run(cru(), &dir, 10_000, 3)?);
                println!();
            }
            if matches!(only, Only::All | Only::Otlp) {
                let dir = corpus::recorded_size(&root, 10_000, seed)?;
                print!("{}", otlp_bench::run(cru(), &dir, 10_000, 3)?);
                println!();
            }
            if matches!(only, Only::All | Only::Import) {
                // ccusage beside cru when it can be installed (npm).
                let ccusage = peer_check::install_ccusage(&root)
                    .inspect_err(|e| eprintln!("warning: no ccusage to compare with: {e}"))
                    .ok();
                let spec = claude_spec(seed);
                print!(
                    "{}",
                    import_bench::run(&root, cru(), ccusage.as_deref(), &spec, 3)?
                );
                println!();
            }
            views_benches(&root, cru, only, index_sessions, seed)?;
            if matches!(only, Only::All | Only::Capture) {
                let (claude, _) = import_bench::corpus(&root, &claude_spec(seed))?;
                let scratch = root.join("target/bench-capture");
                print!("{}", capture_bench::run(cru(), &claude, &scratch, 20, 200)?);
                println!();
            }
            if matches!(only, Only::All | Only::Record) {
                let scratch = root.join("target/bench-record");
                print!("{}", record_bench::run(cru(), &scratch, 1_000, 10_000, 51)?);
            }
            Ok(())
        }
    }
}
