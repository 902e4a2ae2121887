//! A transcript's subagent runs: side chains inside it, and the files of
//! its `subagents/` folder or beside it, each read into a child session
//! linked from the `Task` call that started it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crucible_core::store::walk::Skipped;
use crucible_core::{AgentRef, SessionStatus, cut, one_line};

use super::conversation::Conversation;
use super::per_folder::PerFolder;
use super::{AGENT, Read, SideChain, first_session_id, is_subagent_file, read_lines};
use crate::{Child, ImportWarning, RecordTally, SubagentLink};

/// A subagent's lines, read, and where they came from.
pub(super) struct Run {
    /// The file, or the transcript with `#<agent id>` for a side chain in it.
    source: PathBuf,
    key: Option<String>,
    bytes: Vec<u8>,
    conversation: Conversation,
    /// The run's own file's records (none for a side chain: its lines are
    /// counted with the transcript's).
    tally: RecordTally,
    warnings: Vec<ImportWarning>,
    /// Where in the main chain the run was met (side chains) or fits by
    /// time (files), for a run no `Task` call is found for.
    anchor: Option<(usize, usize)>,
}

/// What the source of a run read from its copies in the transcript at
/// `path` is named: `<transcript>#copies-of-<agent id>`. When the run's
/// own file turns up later, the reconciler takes that session for the
/// file's (`Imports::adopt`).
pub(crate) fn copies_source(path: &Path, key: &str) -> String {
    format!("{}#copies-of-{key}", path.display())
}

/// Where the file of the subagent run `key` of the transcript at
/// `transcript` is: `<stem>/subagents/agent-<key>.jsonl`, or
/// `agent-<key>.jsonl` beside the transcript (older releases).
pub(crate) fn run_file_paths(transcript: &Path, key: &str) -> Vec<PathBuf> {
    let name = format!("agent-{key}.jsonl");
    let own = transcript.with_extension("").join("subagents").join(&name);
    let beside = transcript.parent().map(|d| d.join(&name));
    std::iter::once(own).chain(beside).collect()
}

/// A run read from lines of a transcript, named `source`: a side chain
/// (`<transcript>#<agent id>`), or the copies of a subagent's lines in
/// its `progress` lines ([`copies_source`]).
fn run_in_transcript(source: String, (key, lines, anchor): SideChain) -> Run {
    let mut c = Conversation::new(AGENT.parse().expect("valid"));
    c.subagent = true;
    let mut own = Vec::new();
    for (n, v) in lines {
        own.extend(v.to_string().bytes());
        c.line(n, v);
    }
    Run {
        source: PathBuf::from(source),
        key: Some(key),
        bytes: own,
        conversation: c,
        tally: RecordTally::default(),
        warnings: Vec::new(),
        anchor,
    }
}

/// The runs of the transcript at `path`: its side chains, then its
/// subagents' files (whose bytes are added to `hashed`; one that cannot
/// be read is a warning in `warnings`, one the walker's rules leave out,
/// never opened, is in `skipped`), then the runs known only from the
/// copies of their lines in its `progress` lines (`chains.1`). `agents`
/// has the `agent-*` files of the folders of an import run, read once
/// each.
///
/// Claude Code repeats each line of a subagent in an `agent_progress`
/// line of its parent as the subagent works; its own file holds the same.
/// The copies are read only for a run with neither a file nor a side
/// chain (a store that kept the transcripts and lost the `subagents/`
/// folders, Entire's checkpoints): then they are its only record, and
/// its requests are counted once, from them.
pub(super) fn runs(
    path: &Path,
    main: &Conversation,
    chains: (Vec<SideChain>, Vec<SideChain>),
    agents: &PerFolder<AgentFiles>,
    hashed: &mut crate::BytesHasher,
    warnings: &mut Vec<ImportWarning>,
    skipped: &mut Vec<Skipped>,
) -> Vec<Run> {
    let (chains, copies) = chains;
    let mut runs: Vec<Run> = chains
        .into_iter()
        .map(|chain| {
            let source = format!("{}#{}", path.display(), chain.0);
            run_in_transcript(source, chain)
        })
        .collect();
    // A subagent's own file has no subagents of its own beside it: the
    // `agent-*` files there are its siblings.
    let files = if is_subagent_file(path) {
        Vec::new()
    } else {
        // A transcript of only summary lines names no session: its file
        // name is its session id.
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        subagent_files(
            path,
            main.session_id.as_deref().or(stem.as_deref()),
            agents,
            skipped,
        )
    };
    for file in files {
        let Ok(child_bytes) = crate::read_source(&file) else {
            warnings.push(ImportWarning {
                path: file,
                line: None,
                message: "cannot be read; this subagent is left out".into(),
            });
            continue;
        };
        hashed.update(&child_bytes);
        let mut json_warnings = Vec::new();
        let lines = crate::transcript::json_lines(
            &file,
            &String::from_utf8_lossy(&child_bytes),
            &mut json_warnings,
        );
        let Read {
            main: c,
            tally,
            warnings: child_warnings,
            ..
        } = read_lines(&file, lines, json_warnings, true, &HashSet::new());
        let key = c.agent_id.clone().or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().trim_start_matches("agent-").to_owned())
        });
        let anchor = c.started.as_ref().and_then(|s| main.at_time(s));
        runs.push(Run {
            source: file,
            key,
            bytes: child_bytes,
            conversation: c,
            tally,
            warnings: child_warnings,
            anchor,
        });
    }
    let recorded: HashSet<String> = runs.iter().filter_map(|r| r.key.clone()).collect();
    for copy in copies {
        if !recorded.contains(&copy.0) {
            let source = copies_source(path, &copy.0);
            runs.push(run_in_transcript(source, copy));
        }
    }
    runs
}

/// The runs as child sessions, each linked to the `Task` call that
/// started it (or where it was met).
pub(super) fn children(main: &Conversation, runs: Vec<Run>) -> Vec<Child> {
    let mut used_tasks = HashSet::new();
    let mut out = Vec::new();
    for run in runs {
        let Run {
            source,
            key,
            bytes: own,
            conversation: mut c,
            tally,
            warnings,
            anchor: seen_at,
        } = run;
        // Claude Code's own runs (compaction, warm-up) answer no `Task` call.
        let task = if c.machinery.is_some() {
            None
        } else {
            matching_task(main, &c, &mut used_tasks)
        };
        if let Some(kind) = task.and_then(|i| main.tasks[i].subagent_type.as_deref())
            && let Ok(a) = kind.parse::<AgentRef>()
        {
            c.agent = a;
        }
        if let Some(i) = task
            && !main.tasks[i].description.trim().is_empty()
        {
            c.title = Some(cut(&one_line(main.tasks[i].description.trim()), 80));
        }
        let agent = c.agent.clone();
        let summary = c.last_reply.as_deref().map(|r| cut(&one_line(r), 200));
        let ended = c.last.clone();
        let fallback = format!("Claude Code subagent {}", key.as_deref().unwrap_or(""));
        let (mut log, data) = c.into_log(&source, fallback.trim());
        // A subagent's run is over when its parent goes on: it is not one to
        // resume.
        log.frontmatter.status = SessionStatus::Completed;
        log.frontmatter.resume_point = None;
        log.frontmatter.ended = ended;
        let (anchor, description) = match task.map(|i| &main.tasks[i]) {
            Some(tc) => (
                Some((tc.phase, tc.block)),
                Some(tc.description.clone()).filter(|d| !d.is_empty()),
            ),
            None => (seen_at, None),
        };
        let mut imported =
            crate::imported(crate::Format::ClaudeCode, &source, key, &own, log, warnings);
        imported.data = data;
        imported.records = tally;
        out.push(Child {
            imported,
            link: SubagentLink {
                agent,
                anchor,
                description,
                summary,
            },
        });
    }
    out
}

/// The subagent files of the transcript at `path` with `session_id`:
/// `<stem>/subagents/*.jsonl`, then `agent-*.jsonl` beside it that name
/// the same session (from `agents`). Both folders are listed by the
/// walker's rules, links confined to the transcript's folder; what they
/// leave out is added to `skipped`.
fn subagent_files(
    path: &Path,
    session_id: Option<&str>,
    agents: &PerFolder<AgentFiles>,
    skipped: &mut Vec<Skipped>,
) -> Vec<PathBuf> {
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let jsonl = crate::folder::with_extension("jsonl");
    // `<stem>/` beside the transcript; for a transcript moved aside with
    // a suffix (`t.jsonl.1`) that names the live transcript, a file: no
    // folder of subagents, not a folder that cannot be read.
    let stem_dir = path.with_extension("");
    let mut out = Vec::new();
    if !std::fs::symlink_metadata(&stem_dir).is_ok_and(|m| m.is_file()) {
        let own = crate::folder::list(&stem_dir.join("subagents"), dir, &jsonl);
        skipped.extend(own.skipped);
        out = own.files;
    }
    if let Some(sid) = session_id {
        agents.with(dir, AgentFiles::of_folder, |beside| {
            // The transcript's own folder: what is skipped there is not
            // this session's (a folder walk names it), unless it is an
            // agent file.
            skipped.extend(beside.skipped.iter().cloned());
            out.extend(
                beside
                    .files
                    .iter()
                    .filter(|(p, named)| p != path && named.as_deref() == Some(sid))
                    .map(|(p, _)| p.clone()),
            );
        });
    }
    out
}

/// The older subagent files of one folder (`agent-*.jsonl` beside the
/// transcripts), each with the session its first lines name, and the
/// entries of that kind the walker's rules left out.
#[derive(Debug, Default)]
pub(crate) struct AgentFiles {
    files: Vec<(PathBuf, Option<String>)>,
    skipped: Vec<Skipped>,
}

impl AgentFiles {
    pub(crate) fn of_folder(dir: &Path) -> AgentFiles {
        let jsonl = crate::folder::with_extension("jsonl");
        let is_agent =
            |n: &std::ffi::OsStr| jsonl(n) && n.to_str().is_some_and(|n| n.starts_with("agent-"));
        let listed = crate::folder::list(dir, dir, &is_agent);
        AgentFiles {
            files: listed
                .files
                .into_iter()
                .map(|p| {
                    let named = first_session_id(&p);
                    (p, named)
                })
                .collect(),
            skipped: listed.skipped,
        }
    }
}

/// The main chain's `Task` call that started the subagent run `c`: the
/// first unused one whose prompt is the run's first prompt, else the first
/// unused one at all (in order: runs follow their calls).
fn matching_task(
    main: &Conversation,
    c: &Conversation,
    used: &mut HashSet<usize>,
) -> Option<usize> {
    let prompt = c.first_prompt.as_deref().map(str::trim);
    let found = main
        .tasks
        .iter()
        .enumerate()
        .find(|(i, tc)| !used.contains(i) && Some(tc.prompt.trim()) == prompt)
        .or_else(|| {
            main.tasks
                .iter()
                .enumerate()
                .find(|(i, _)| !used.contains(i))
        })
        .map(|(i, _)| i);
    if let Some(i) = found {
        used.insert(i);
    }
    found
}
