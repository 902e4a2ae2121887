//! cru's usage views against ccusage's on a Claude Code directory: each
//! of `cru usage daily|weekly|monthly|session --json -z UTC` against the
//! ccusage views that give the same rows, period by period (a session is
//! its transcript, see [`super::session_rows`]) and model by model, the
//! four token kinds equal and the cost equal to the cent.
//!
//! ccusage 20.0.24 does not count the same requests in every view: its
//! `claude daily` and all of its all-agents `daily|weekly|monthly` also
//! count the copies of a subagent's requests that Claude Code repeats in
//! the parent's `progress` lines; `claude weekly|monthly|session` and the
//! all-agents `session` count each request once, as cru does. So the
//! second kind must always agree, and the first may differ only where the
//! corpus has such lines and ccusage counts more, never less (each run
//! says so).
//!
//! A subagent with no file of its own and no side chain is known only by
//! those copies: cru counts its requests from them, once
//! ([`super::orphan_copies`]). The views that count no copies are then
//! compared with cru reading the corpus without those lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

use super::cru_import;
use super::report_rows::{Rows, differences, parse_rows, peer_only_counts_more};

/// One comparison: a cru view and the ccusage view of the same rows.
struct Pair {
    /// `cru usage` arguments (the view first).
    cru: &'static [&'static str],
    /// ccusage's view: `claude <view>` when true, else the all-agents
    /// view of the same name (all four read from one `--sections` run).
    claude: bool,
    /// True for the ccusage views that count progress-line copies again.
    counts_copies: bool,
}

const PAIRS: [Pair; 8] = [
    Pair {
        cru: &["daily"],
        claude: false,
        counts_copies: true,
    },
    Pair {
        cru: &["daily"],
        claude: true,
        counts_copies: true,
    },
    // ccusage 20's all-agents weeks start on Monday, its Claude view's on
    // Sunday (cru's default).
    Pair {
        cru: &["weekly", "--start-of-week", "monday"],
        claude: false,
        counts_copies: true,
    },
    Pair {
        cru: &["weekly"],
        claude: true,
        counts_copies: false,
    },
    Pair {
        cru: &["monthly"],
        claude: false,
        counts_copies: true,
    },
    Pair {
        cru: &["monthly"],
        claude: true,
        counts_copies: false,
    },
    Pair {
        cru: &["session"],
        claude: false,
        counts_copies: false,
    },
    Pair {
        cru: &["session"],
        claude: true,
        counts_copies: false,
    },
];

impl Pair {
    fn view(&self) -> &'static str {
        self.cru[0]
    }

    /// The array ccusage lists the view's rows under.
    fn peer_list(&self) -> &'static str {
        match (self.view(), self.claude) {
            ("session", true) => "sessions",
            (v, _) => v,
        }
    }

    fn peer_name(&self) -> String {
        let prefix = if self.claude { "claude " } else { "" };
        format!("ccusage {prefix}{}", self.view())
    }
}

pub(super) fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.is_dir() {
            jsonl_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

fn has_usage_key(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| k == "usage" || has_usage_key(v)),
        serde_json::Value::Array(a) => a.iter().any(has_usage_key),
        _ => false,
    }
}

/// True when some `progress` line under `projects` carries a usage.
fn has_progress_usage(projects: &Path) -> anyhow::Result<bool> {
    let mut files = Vec::new();
    jsonl_files(projects, &mut files)?;
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        for l in text.lines().filter(|l| l.contains("\"progress\"")) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(l)
                && v["type"] == "progress"
                && has_usage_key(&v)
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

pub(super) fn output(cmd: &mut Command, what: &str) -> anyhow::Result<Vec<u8>> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    anyhow::ensure!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}

/// `cru --dir sessions usage <args> --json -z UTC`, its JSON.
pub(super) fn cru_json(cru: &Path, sessions: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
    output(
        Command::new(cru)
            .arg("--dir")
            .arg(sessions)
            .arg("usage")
            .args(args)
            .args(["--json", "-z", "UTC"]),
        &format!("cru usage {}", args.join(" ")),
    )
}

/// `ccusage <args> --json --offline -z UTC` on `claude_dir`, its JSON.
pub(super) fn ccusage_json(
    ccusage: &Path,
    claude_dir: &Path,
    args: &[&str],
) -> anyhow::Result<Vec<u8>> {
    output(
        Command::new(ccusage)
            .args(args)
            .args(["--json", "--offline", "-z", "UTC"])
            .env("CLAUDE_CONFIG_DIR", claude_dir),
        &format!("ccusage {}", args.join(" ")),
    )
}

/// What one view's comparison found.
pub struct Outcome {
    /// `cru usage <view>` against which ccusage view.
    pub view: String,
    /// Rows compared (periods and models).
    pub rows: usize,
    /// The differing rows, as lines; empty when the two agree.
    pub diffs: Vec<String>,
    /// True when the differences are ccusage counting progress-line
    /// copies again, which this view of ccusage does.
    pub copies: bool,
    /// True when cru read the corpus without the copies of subagents that
    /// have no other record, which this view of ccusage leaves out.
    pub without_orphans: bool,
}

impl Outcome {
    pub fn failed(&self) -> bool {
        !self.diffs.is_empty() && !self.copies
    }
}

/// The reports of both tools, each view asked for once: cru's on its
/// import of `cru_dir`, ccusage's on `peer_dir` (the same directory, but
/// for a known difference's check).
struct Reports<'a> {
    cru: &'a Path,
    ccusage: &'a Path,
    cru_dir: &'a Path,
    peer_dir: &'a Path,
    sessions: &'a Path,
    cru_seen: BTreeMap<Vec<&'static str>, Vec<u8>>,
    sections: Option<Vec<u8>>,
    claude_seen: BTreeMap<&'static str, Vec<u8>>,
}

impl<'a> Reports<'a> {
    fn new(
        cru: &'a Path,
        ccusage: &'a Path,
        cru_dir: &'a Path,
        peer_dir: &'a Path,
        sessions: &'a Path,
    ) -> Self {
        Self {
            cru,
            ccusage,
            cru_dir,
            peer_dir,
            sessions,
            cru_seen: BTreeMap::new(),
            sections: None,
            claude_seen: BTreeMap::new(),
        }
    }

    fn ours(&mut self, p: &Pair) -> anyhow::Result<Rows> {
        if !self.cru_seen.contains_key(p.cru) {
            let j = cru_json(self.cru, self.sessions, p.cru)?;
            self.cru_seen.insert(p.cru.to_vec(), j);
        }
        let json = &self.cru_seen[p.cru];
        if p.view() == "session" {
            super::session_rows::by_source(json, self.sessions, &self.cru_dir.join("projects"))
        } else {
            parse_rows(json, p.view())
        }
    }

    fn theirs(&mut self, p: &Pair) -> anyhow::Result<Rows> {
        let json = if p.claude {
            if !self.claude_seen.contains_key(p.view()) {
                let j = ccusage_json(self.ccusage, self.peer_dir, &["claude", p.view()])?;
                self.claude_seen.insert(p.view(), j);
            }
            &self.claude_seen[p.view()]
        } else {
            if self.sections.is_none() {
                // One run gives all four all-agents views.
                let j = ccusage_json(
                    self.ccusage,
                    self.peer_dir,
                    &["daily", "--sections", "daily,weekly,monthly,session"],
                )?;
                self.sections = Some(j);
            }
            self.sections.as_ref().expect("just read")
        };
        parse_rows(json, p.peer_list())
    }
}

/// Imports `claude_dir/projects/` with cru and compares each of its usage
/// views with ccusage's on the same directory.
pub fn compare(cru: &Path, ccusage: &Path, claude_dir: &Path) -> anyhow::Result<Vec<Outcome>> {
    compare_dirs(cru, ccusage, claude_dir, claude_dir, |r| r)
}

/// [`compare`] with cru reading `cru_dir` and ccusage `peer_dir`, and
/// ccusage's rows passed through `adjust` first.
pub(super) fn compare_dirs(
    cru: &Path,
    ccusage: &Path,
    cru_dir: &Path,
    peer_dir: &Path,
    adjust: fn(Rows) -> Rows,
) -> anyhow::Result<Vec<Outcome>> {
    let sessions = tempfile::tempdir()?;
    cru_import(cru, None, &cru_dir.join("projects"), sessions.path())?;
    let progress = has_progress_usage(&peer_dir.join("projects"))?;
    let mut reports = Reports::new(cru, ccusage, cru_dir, peer_dir, sessions.path());
    // The corpus without the copies of subagents that have no other
    // record, for the views of ccusage that count no copies.
    let stripped = super::orphan_copies::without_orphan_copies(&cru_dir.join("projects"))?;
    let stripped_sessions = tempfile::tempdir()?;
    let mut stripped_reports = match &stripped {
        Some(dir) => {
            cru_import(
                cru,
                None,
                &dir.path().join("projects"),
                stripped_sessions.path(),
            )?;
            Some(Reports::new(
                cru,
                ccusage,
                dir.path(),
                peer_dir,
                stripped_sessions.path(),
            ))
        }
        None => None,
    };
    let mut out = Vec::new();
    for p in &PAIRS {
        let ours = match &mut stripped_reports {
            Some(r) if !p.counts_copies => r.ours(p)?,
            _ => reports.ours(p)?,
        };
        let theirs = adjust(reports.theirs(p)?);
        let diffs = differences(&ours, &theirs);
        let copies = !diffs.is_empty()
            && p.counts_copies
            && progress
            && peer_only_counts_more(&ours, &theirs);
        out.push(Outcome {
            view: format!("cru usage {} against {}", p.cru.join(" "), p.peer_name()),
            rows: ours.len().max(theirs.len()),
            diffs,
            copies,
            without_orphans: stripped.is_some() && !p.counts_copies,
        });
    }
    Ok(out)
}

/// Prints each view's outcome under `name`: the differences of a view
/// that fails, one line for one that differs only by progress copies.
pub(super) fn report(name: &str, outcomes: &[Outcome], show_failures: bool) {
    for o in outcomes {
        println!(
            "{name}: {}: {} rows ({} differences)",
            o.view,
            o.rows,
            o.diffs.len()
        );
        if o.without_orphans {
            println!(
                "  compared with cru reading the corpus without the progress-line copies of subagents that have no file or side chain (cru counts them, this view of ccusage does not)"
            );
        }
        if o.copies {
            println!(
                "  ccusage counts the subagent requests repeated in progress lines again (counting more in every differing row)"
            );
        } else if show_failures {
            for d in o.diffs.iter().take(40) {
                println!("  {d}");
            }
        }
    }
}

/// One corpus compared; fails with the differing rows listed.
pub fn check(cru: &Path, ccusage: &Path, name: &str, claude_dir: &Path) -> anyhow::Result<()> {
    let outcomes = compare(cru, ccusage, claude_dir)?;
    report(name, &outcomes, true);
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.failed())
        .map(|o| o.view.as_str())
        .collect();
    anyhow::ensure!(failed.is_empty(), "{name}: {}", failed.join("; "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_is_compared_with_a_view_that_counts_each_request_once() {
        for view in ["weekly", "monthly", "session"] {
            assert!(
                PAIRS.iter().any(|p| p.view() == view && !p.counts_copies),
                "{view}"
            );
        }
        // daily has none in ccusage 20.0.24: both its daily views count
        // copies, which the weekly and monthly views bound.
        assert!(
            PAIRS
                .iter()
                .filter(|p| p.view() == "daily")
                .all(|p| p.counts_copies)
        );
        let claude_session = PAIRS.iter().find(|p| p.view() == "session" && p.claude);
        assert_eq!(claude_session.map(Pair::peer_list), Some("sessions"));
        assert_eq!(PAIRS[2].peer_name(), "ccusage weekly");
    }

    #[test]
    fn only_a_view_counting_copies_may_differ() {
        let o = |diffs: usize, copies| Outcome {
            view: String::new(),
            rows: 3,
            diffs: vec!["x".into(); diffs],
            copies,
            without_orphans: false,
        };
        assert!(!o(0, false).failed());
        assert!(o(1, false).failed());
        assert!(!o(1, true).failed());
    }

    #[test]
    fn progress_usage_is_found_only_in_progress_lines() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a/s.jsonl");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(
            &f,
            "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n",
        )
        .unwrap();
        assert!(!has_progress_usage(dir.path()).unwrap());
        std::fs::write(
            &f,
            "{\"type\":\"progress\",\"data\":{\"message\":{\"message\":{\"usage\":{}}}}}\n",
        )
        .unwrap();
        assert!(has_progress_usage(dir.path()).unwrap());
    }
}
