//! `cru usage daily|monthly|session` against ccusage's own views of each other
//! agent cru imports and ccusage reads (Codex, Gemini CLI, OpenCode,
//! Copilot CLI): the agent's files laid out where ccusage looks for them
//! (the directory its environment variable names), imported by cru from
//! that same layout, and compared period by period and model by model,
//! tokens by kind and cost to the cent, against both `ccusage <agent>
//! daily|monthly|session` and the all-agents views of the same name (which
//! give each model's cost; the Codex views give only the period's). A
//! session is named as ccusage names it ([`session_name`]).
//!
//! One rule reads cru's figures in ccusage's terms: for Gemini CLI and
//! OpenCode, ccusage's `outputTokens` leave the reasoning out (it is in
//! their cost and `totalTokens` only); cru's output holds it and says how
//! much with `reasoningOutputTokens`, so cru's output less that is compared.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

use super::report_rows::{ALL_MODELS, Rows, differences, parse_rows};
use super::usage_views::{cru_json, output};

/// An agent both tools read, and where ccusage finds its data.
#[derive(Debug, Clone, Copy)]
pub struct Agent {
    /// cru's `--from` name, and ccusage's command for the agent.
    pub name: &'static str,
    /// The variable ccusage takes the agent's data directory from.
    pub env: &'static str,
    /// True when ccusage's output leaves the reasoning out.
    pub output_without_reasoning: bool,
}

pub const CODEX: Agent = Agent {
    name: "codex",
    env: "CODEX_HOME",
    output_without_reasoning: false,
};
pub const GEMINI: Agent = Agent {
    name: "gemini",
    env: "GEMINI_DATA_DIR",
    output_without_reasoning: true,
};
pub const OPENCODE: Agent = Agent {
    name: "opencode",
    env: "OPENCODE_DATA_DIR",
    output_without_reasoning: true,
};
pub const COPILOT: Agent = Agent {
    name: "copilot",
    env: "COPILOT_HOME",
    output_without_reasoning: false,
};

/// The files under `dir` whose names end in one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A relative path as one file name (`a/b.json` → `a_b.json`).
fn flat(rel: &Path) -> String {
    rel.to_string_lossy().replace(['/', '\\'], "_")
}

fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to.parent().context("a file's folder")?)?;
    std::fs::copy(from, to).with_context(|| format!("copying {}", from.display()))?;
    Ok(())
}

/// `sources` (files of `agent` under `base`) laid out under `data` as
/// ccusage expects the agent's directory: Codex's `sessions/`, Gemini
/// CLI's `<project>/chats/`, Copilot CLI's `session-state/<id>/events.jsonl`.
/// OpenCode's data folder is read where it is (see [`compare`]).
pub fn lay_out(agent: Agent, base: &Path, sources: &[PathBuf], data: &Path) -> anyhow::Result<()> {
    for f in sources {
        let rel = f.strip_prefix(base)?;
        let to = match agent.name {
            "codex" => data.join("sessions").join(rel),
            "gemini" => data.join("project/chats").join(flat(rel)),
            "copilot" => data
                .join("session-state")
                .join(flat(rel.with_extension("").as_path()))
                .join("events.jsonl"),
            other => anyhow::bail!("no layout for {other}"),
        };
        copy(f, &to)?;
    }
    Ok(())
}

/// cru's rows in ccusage's terms for `agent`.
pub fn in_peer_terms(agent: Agent, mut rows: Rows) -> Rows {
    if agent.output_without_reasoning {
        for r in rows.values_mut() {
            r.tokens.output -= r.reasoning.min(r.tokens.output);
        }
    }
    rows
}

/// `ccusage <view...> --json --offline -z UTC` with the agent's data at
/// `data` and an empty home, so that nothing else is read; its JSON.
fn ccusage_json(
    ccusage: &Path,
    agent: Agent,
    data: &Path,
    home: &Path,
    view: &[&str],
) -> anyhow::Result<Vec<u8>> {
    output(
        Command::new(ccusage)
            .args(view)
            .args(["--json", "--offline", "-z", "UTC"])
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env(agent.env, data),
        &format!(
            "ccusage {} ({}={})",
            view.join(" "),
            agent.env,
            data.display()
        ),
    )
}

/// The views compared for each agent (each of ccusage's agent commands
/// has them all).
const VIEWS: [&str; 3] = ["daily", "monthly", "session"];

/// The list a ccusage view's rows are under: the agent views call their
/// sessions `sessions`, the all-agents view `session`.
fn peer_list(view: &str, own: bool) -> &str {
    if view == "session" && own {
        "sessions"
    } else {
        view
    }
}

/// ccusage's name for a session of `agent` imported from `data` (as
/// `canonicalize` gives it), from the session's import provenance: the
/// source `path` and the source's own `id` for the session.
pub fn session_name(
    agent: Agent,
    path: &str,
    id: Option<&str>,
    data: &Path,
) -> anyhow::Result<String> {
    let file = Path::new(path.split('#').next().unwrap_or(path));
    match agent.name {
        // Its file's path below `sessions/`, without `.jsonl`.
        "codex" => Ok(file
            .strip_prefix(data.join("sessions"))
            .with_context(|| format!("{path} is not under {}", data.display()))?
            .with_extension("")
            .to_string_lossy()
            .into_owned()),
        // Its folder below `session-state/`.
        "copilot" => file
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("{path} has no folder")),
        // The agent's own session id.
        _ => id
            .map(str::to_owned)
            .with_context(|| format!("{path}: no source id")),
    }
}

/// cru's rows of one view.
fn cru_rows(
    cru: &Path,
    sessions: &Path,
    agent: Agent,
    data: &Path,
    view: &str,
) -> anyhow::Result<Rows> {
    let json = cru_json(cru, sessions, &[view])?;
    let rows = if view == "session" {
        super::session_rows::by_name(&json, sessions, |p| {
            session_name(agent, &p.path, p.id.as_deref(), data)
        })?
    } else {
        parse_rows(&json, view)?
    };
    Ok(in_peer_terms(agent, rows))
}

/// cru's daily, monthly and session rows against ccusage's agent view and
/// its all-agents view of each, for the data of `agent` at `data` (laid
/// out as ccusage reads it): (what was compared, rows, differences).
pub fn compare(
    cru: &Path,
    ccusage: &Path,
    agent: Agent,
    data: &Path,
) -> anyhow::Result<Vec<(String, usize, Vec<String>)>> {
    let scratch = tempfile::tempdir()?;
    let (sessions, home) = (scratch.path().join("sessions"), scratch.path().join("home"));
    std::fs::create_dir_all(&home)?;
    // cru records the absolute path it imported.
    let data =
        &std::fs::canonicalize(data).with_context(|| format!("resolving {}", data.display()))?;
    super::cru_import(cru, Some(agent.name), data, &sessions)?;
    // One run gives every all-agents view.
    let all = ccusage_json(
        ccusage,
        agent,
        data,
        &home,
        &["daily", "--sections", &VIEWS.join(",")],
    )?;
    let mut out = Vec::new();
    for view in VIEWS {
        let ours = cru_rows(cru, &sessions, agent, data, view)?;
        let own = ccusage_json(ccusage, agent, data, &home, &[agent.name, view])?;
        for (name, json, list) in [
            (
                format!("{} {view}", agent.name),
                own.as_slice(),
                peer_list(view, true),
            ),
            (view.to_owned(), all.as_slice(), peer_list(view, false)),
        ] {
            let theirs = parse_rows(json, list)?;
            out.push((
                format!("cru usage {view} against ccusage {name}"),
                ours.len().max(theirs.len()),
                differences(&ours, &theirs),
            ));
        }
    }
    Ok(out)
}

/// One agent's corpus compared; fails with the differing rows listed.
pub fn check(
    cru: &Path,
    ccusage: &Path,
    name: &str,
    agent: Agent,
    data: &Path,
) -> anyhow::Result<()> {
    let mut failed = Vec::new();
    for (view, rows, diffs) in compare(cru, ccusage, agent, data)? {
        println!("{name}: {view}: {rows} rows ({} differences)", diffs.len());
        for d in diffs.iter().take(40) {
            println!("  {d}");
        }
        if !diffs.is_empty() {
            failed.push(view);
        }
    }
    anyhow::ensure!(
        failed.is_empty(),
        "{name}: cru and ccusage disagree: {}",
        failed.join("; ")
    );
    Ok(())
}

/// The files of `agent` under `dir` laid out in a scratch directory, and
/// checked.
pub fn check_files(
    cru: &Path,
    ccusage: &Path,
    name: &str,
    agent: Agent,
    dir: &Path,
    sources: &[PathBuf],
) -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    lay_out(agent, dir, sources, data.path())?;
    check(cru, ccusage, name, agent, data.path())
}

/// True for a `codex exec --json` stream (it starts with
/// `thread.started`), rather than a rollout file.
fn is_exec_stream(file: &Path) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(file)?;
    Ok(text
        .lines()
        .next()
        .is_some_and(|l| l.contains("\"thread.started\"")))
}

/// Codex's files under `dir`: rollouts, and `codex exec --json` streams.
pub fn codex_files(dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut rollouts = Vec::new();
    let mut streams = Vec::new();
    for f in files(dir, &["jsonl"])? {
        if is_exec_stream(&f)? {
            streams.push(f);
        } else {
            rollouts.push(f);
        }
    }
    Ok((rollouts, streams))
}

/// Gemini CLI's chat files under `dir`.
pub fn gemini_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    files(dir, &["json", "jsonl"])
}

/// Copilot CLI's event files under `dir`.
pub fn copilot_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    files(dir, &["jsonl"])
}

/// The model ccusage prices a Codex token count under when the file names
/// no model (`isFallback` in its Codex view).
const CODEX_FALLBACK_MODEL: &str = "gpt-5";

/// The known difference on `codex exec --json` streams, which name no
/// model: ccusage prices their tokens as [`CODEX_FALLBACK_MODEL`], cru
/// names no model and leaves them unpriced. `None` when that is exactly
/// how the two differ (same tokens of each kind; ccusage's only model the
/// fallback; cru with no model and no cost), else what else differs.
pub fn codex_fallback_only(ours: &Rows, theirs: &Rows) -> Option<String> {
    if ours.keys().any(|(_, m)| m != ALL_MODELS) {
        return Some("cru names a model".into());
    }
    if theirs
        .keys()
        .any(|(_, m)| m != ALL_MODELS && m != CODEX_FALLBACK_MODEL)
    {
        return Some("ccusage names a model other than its fallback".into());
    }
    // Both date a stream by its file's time: the same days.
    let days = |r: &Rows| -> Vec<String> { r.keys().map(|(p, _)| p.clone()).collect() };
    let (mut a_days, mut b_days) = (days(ours), days(theirs));
    a_days.dedup();
    b_days.dedup();
    if a_days != b_days || a_days.is_empty() {
        return Some(format!("days: cru {a_days:?}, ccusage {b_days:?}"));
    }
    for day in a_days {
        let total = (day, ALL_MODELS.to_owned());
        let (a, b) = (ours[&total], theirs[&total]);
        if a.tokens != b.tokens || a.tokens.total() == 0 {
            return Some(format!(
                "{}: tokens: cru {:?}, ccusage {:?}",
                total.0, a.tokens, b.tokens
            ));
        }
        if a.cost != Some(0.0) || b.cost.is_none_or(|c| c <= 0.0) {
            return Some(format!(
                "{}: cost: cru {:?}, ccusage {:?}",
                total.0, a.cost, b.cost
            ));
        }
    }
    None
}

/// The `codex exec --json` streams under `dir`: the two tools must differ
/// exactly as [`codex_fallback_only`] says (docs/usage.md).
pub fn check_codex_streams(
    cru: &Path,
    ccusage: &Path,
    dir: &Path,
    streams: &[PathBuf],
) -> anyhow::Result<()> {
    let data = tempfile::tempdir()?;
    lay_out(CODEX, dir, streams, data.path())?;
    let scratch = tempfile::tempdir()?;
    let (sessions, home) = (scratch.path().join("sessions"), scratch.path().join("home"));
    std::fs::create_dir_all(&home)?;
    super::cru_import(cru, Some("codex"), data.path(), &sessions)?;
    let ours = parse_rows(&cru_json(cru, &sessions, &["daily"])?, "daily")?;
    for view in [&["codex", "daily"][..], &["daily"]] {
        let theirs = parse_rows(
            &ccusage_json(ccusage, CODEX, data.path(), &home, view)?,
            "daily",
        )?;
        let unexpected = codex_fallback_only(&ours, &theirs);
        println!(
            "codex exec streams: {} files, cru usage daily against ccusage {}: known difference (ccusage prices a stream's tokens as {CODEX_FALLBACK_MODEL}, cru leaves them unpriced){}",
            streams.len(),
            view.join(" "),
            unexpected
                .as_deref()
                .map_or(String::new(), |u| format!(", and more: {u}"))
        );
        anyhow::ensure!(
            unexpected.is_none(),
            "codex exec streams differ from ccusage {} beyond the known difference",
            view.join(" ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::report_rows::Row;
    use super::*;

    fn row(input: u64, output: u64, reasoning: u64, cost: Option<f64>) -> Row {
        Row {
            tokens: super::super::Totals {
                input,
                output,
                cache_creation: 0,
                cache_read: 0,
            },
            reasoning,
            cost,
        }
    }

    fn key(p: &str, m: &str) -> (String, String) {
        (p.to_owned(), m.to_owned())
    }

    #[test]
    fn output_loses_its_reasoning_only_for_agents_whose_peer_leaves_it_out() {
        let rows: Rows = [(
            key("2025-10-05", "gemini-2.5-pro"),
            row(10, 70, 30, Some(0.1)),
        )]
        .into_iter()
        .collect();
        let g = in_peer_terms(GEMINI, rows.clone());
        assert_eq!(g[&key("2025-10-05", "gemini-2.5-pro")].tokens.output, 40);
        assert_eq!(in_peer_terms(CODEX, rows.clone()), rows);
        assert_eq!(in_peer_terms(OPENCODE, rows.clone()), g);
    }

    #[test]
    fn sessions_are_named_as_ccusage_names_them() {
        let data = Path::new("/d");
        let name = |a, path, id| session_name(a, path, id, data);
        assert_eq!(
            name(CODEX, "/d/sessions/a/full/rollout-1.jsonl", Some("019")).unwrap(),
            "a/full/rollout-1"
        );
        assert_eq!(
            name(COPILOT, "/d/session-state/x/events.jsonl", Some("96ef")).unwrap(),
            "x"
        );
        assert_eq!(
            name(GEMINI, "/d/project/chats/c.json", Some("0ab8")).unwrap(),
            "0ab8"
        );
        assert_eq!(
            name(OPENCODE, "/d/storage", Some("ses_1")).unwrap(),
            "ses_1"
        );
        assert!(name(GEMINI, "/d/project/chats/c.json", None).is_err());
        assert!(name(CODEX, "/elsewhere/r.jsonl", None).is_err());
        assert_eq!(peer_list("session", true), "sessions");
        assert_eq!(peer_list("session", false), "session");
        assert_eq!(peer_list("monthly", true), "monthly");
    }

    #[test]
    fn each_agent_is_laid_out_where_ccusage_looks() {
        let src = tempfile::tempdir().unwrap();
        let f = src.path().join("a/b.jsonl");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, "{\"type\":\"thread.started\"}\n").unwrap();
        let list = std::slice::from_ref(&f);
        for (agent, want) in [
            (CODEX, "sessions/a/b.jsonl"),
            (GEMINI, "project/chats/a_b.jsonl"),
            (COPILOT, "session-state/a_b/events.jsonl"),
        ] {
            let data = tempfile::tempdir().unwrap();
            lay_out(agent, src.path(), list, data.path()).unwrap();
            assert!(data.path().join(want).is_file(), "{}", agent.name);
        }
        assert!(lay_out(OPENCODE, src.path(), list, src.path()).is_err());
        let (rollouts, streams) = codex_files(src.path()).unwrap();
        assert_eq!((rollouts.len(), streams.len()), (0, 1));
    }

    #[test]
    fn the_codex_fallback_difference_is_exactly_the_documented_one() {
        let ours: Rows = [(key("2025-10-28", ALL_MODELS), row(100, 7, 0, Some(0.0)))]
            .into_iter()
            .collect();
        let theirs: Rows = [
            (key("2025-10-28", ALL_MODELS), row(100, 7, 0, Some(0.02))),
            (key("2025-10-28", "gpt-5"), row(100, 7, 0, None)),
        ]
        .into_iter()
        .collect();
        assert_eq!(codex_fallback_only(&ours, &theirs), None);
        // Any other difference is reported: another day,
        let other_day: Rows = theirs
            .iter()
            .map(|((_, m), r)| (key("2025-10-29", m), *r))
            .collect();
        assert!(codex_fallback_only(&ours, &other_day).is_some());
        // other tokens,
        let mut more = theirs.clone();
        more.get_mut(&key("2025-10-28", ALL_MODELS))
            .unwrap()
            .tokens
            .input += 1;
        assert!(codex_fallback_only(&ours, &more).is_some());
        let mut other_model = theirs.clone();
        other_model.insert(key("2025-10-28", "gpt-5-codex"), row(0, 0, 0, None));
        assert!(codex_fallback_only(&ours, &other_model).is_some());
        let mut priced = ours.clone();
        priced.insert(key("2025-10-28", "gpt-5"), row(100, 7, 0, Some(0.02)));
        assert!(codex_fallback_only(&priced, &theirs).is_some());
        // The same figures on both sides are no longer this difference.
        assert!(codex_fallback_only(&theirs, &theirs).is_some());
    }
}
