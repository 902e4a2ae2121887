//! An import of a transcript whose session hooks recorded: the import
//! fills in what the hooks did not see (replies, token usage, calls the
//! hooks missed) and keeps what only the hooks saw (docs/recording.md,
//! "One session, not two"):
//!
//! - `completed` and `ended` from `SessionEnd` (an import never turns a
//!   completed session back into a paused one);
//! - the links to subagents (`subagents:` and their `[!subagent]`
//!   callouts) the import does not make itself: children whose
//!   transcripts are elsewhere or not written yet stay linked, so no
//!   child is left naming a parent that no longer lists it;
//! - tool calls the transcript lacks: failed or denied calls, the
//!   `compact` marker of a compaction.
//!
//! A hook's phase is the import's phase with the same prompt (in order),
//! else the one at its place, else the last. A hook's call is the
//! import's when both sidecars give the call the same `tool_use_id`, else
//! when the tool and the start of its arguments are the same (each
//! import call stands for one hook call at most).
//!
//! A session that kept something of the hooks says so in its `import`
//! key (`hooks: true`), so that the next import of the grown transcript
//! keeps it again.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;

use crucible_core::{
    Block, CallData, CalloutKind, DataRecord, SessionCodec, SessionData, SessionLog, SessionStatus,
    SessionStore, ToolCall,
};

/// The `import` key's flag of a session that holds hook-recorded work.
const HOOKS: &str = "hooks";

/// How much of a call's arguments tells two records of it apart (hooks
/// and imports may cut long arguments at different places).
const ARGS_COMPARED: usize = 120;

/// Whether `log` holds what hooks recorded: recorded by them (and not
/// imported since), or an import that kept some of it.
pub(super) fn holds_hook_work(log: &SessionLog) -> bool {
    crate::Provenance::of(log).is_some_and(|p| p.is_captured())
        || import_map(log)
            .and_then(|m| m.get(HOOKS))
            .and_then(crucible_core::yaml::Value::as_bool)
            == Some(true)
}

/// Marks `log` (its `import` key already written) as holding hook work.
pub(super) fn mark(log: &mut SessionLog) {
    if let Some(m) = log
        .frontmatter
        .extra
        .get_mut(crate::provenance::KEY)
        .and_then(crucible_core::yaml::Value::as_mapping_mut)
    {
        m.insert(HOOKS, true);
    }
}

fn import_map(log: &SessionLog) -> Option<&crucible_core::yaml::Mapping> {
    log.frontmatter
        .extra
        .get(crate::provenance::KEY)?
        .as_mapping()
}

/// The ids of the calls of a sidecar's records (JSON lines).
fn call_ids(records: &[u8]) -> HashSet<String> {
    records
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<DataRecord>(l).ok())
        .filter_map(|r| match r {
            DataRecord::Call(c) => c.id,
            _ => None,
        })
        .collect()
}

/// When `old` (at its path) holds hook work: keeps it in `log`, the
/// import about to replace it, adds the sidecar records of the calls kept
/// to `records`, and makes `written` (the `import` key to store) hash
/// what is written; then marks `log` once `written` is stored in it.
/// `links`: the subagent links too (a source with subagents links them
/// after its children are stored).
pub(super) fn keep_hook_work<C: SessionCodec>(
    store: &SessionStore<C>,
    (path, old): (&Path, &SessionLog),
    log: &mut SessionLog,
    records: &mut Cow<'_, [u8]>,
    written: &mut crate::Provenance,
    links: bool,
) {
    if !holds_hook_work(old) {
        written.store(log);
        return;
    }
    // A sidecar that cannot be read costs the large payloads of the calls
    // kept, not the calls.
    let old_data = store.load_data(path).ok().flatten().map(|(_, d)| d);
    let ids = call_ids(records);
    let kept = merge(old, old_data.as_ref(), log, &ids, links);
    if !kept.is_empty() {
        let bytes = records.to_mut();
        for call in kept {
            crate::compact_json::append_or_serde(bytes, &DataRecord::Call(call));
            bytes.push(b'\n');
        }
        written.data_hash = Some(crate::bytes_hash(bytes));
    }
    written.session_hash = crate::content_hash(log);
    written.store(log);
    mark(log);
}

/// Keeps in `new` the status and the calls only the hooks saw in `old`
/// (and, when `links`, the subagent links); returns the sidecar records of
/// the calls kept, pointed at their new places.
fn merge(
    old: &SessionLog,
    old_data: Option<&SessionData>,
    new: &mut SessionLog,
    new_ids: &HashSet<String>,
    links: bool,
) -> Vec<CallData> {
    let fm = &old.frontmatter;
    if fm.status == SessionStatus::Completed && new.frontmatter.status != SessionStatus::Completed {
        new.frontmatter.status = SessionStatus::Completed;
        new.frontmatter.ended = fm.ended.clone().or_else(|| new.frontmatter.ended.clone());
        new.frontmatter.resume_point = None;
    }
    let map = phase_map(old, new);
    let mut kept = Vec::new();
    for (i, (_, phase)) in old.phases().enumerate() {
        let Some(j) = map[i] else { continue };
        let calls = phase_calls(phase);
        let mut used = vec![false; calls_of(new, j).len()];
        let mut extra: Vec<(ToolCall, Option<CallData>)> = Vec::new();
        for (k, call) in calls.iter().enumerate() {
            let data = old_data.and_then(|d| d.call_at(i, k));
            if data
                .and_then(|d| d.id.as_ref())
                .is_some_and(|id| new_ids.contains(id))
            {
                continue;
            }
            let theirs = calls_of(new, j);
            if let Some(m) = (0..theirs.len()).find(|&m| !used[m] && same_call(call, theirs[m])) {
                used[m] = true;
                continue;
            }
            extra.push(((*call).clone(), data.cloned()));
        }
        kept.extend(append_calls(new, j, extra));
    }
    if links {
        merge_links(old, new);
    }
    kept
}

/// Keeps in `new` the subagent links of `old` that `new` does not make:
/// the `subagents:` entry, the `[!subagent]` callout (in the matching
/// phase) and the subagent's agent among the participants.
pub(super) fn merge_links(old: &SessionLog, new: &mut SessionLog) {
    let map = phase_map(old, new);
    for entry in &old.frontmatter.subagents {
        if new
            .frontmatter
            .subagents
            .iter()
            .any(|e| e.session == entry.session)
        {
            continue;
        }
        new.frontmatter.subagents.push(entry.clone());
        if let Some(agent) = &entry.agent
            && !new.frontmatter.participants.contains(agent)
        {
            new.frontmatter.participants.push(agent.clone());
        }
        let linked = |b: &Block| match b {
            Block::Callout(c) if c.kind() == CalloutKind::Subagent => c
                .subagent()
                .is_ok_and(|s| s.target.as_ref() == Some(&entry.session)),
            _ => false,
        };
        let found = old
            .phases()
            .enumerate()
            .find_map(|(i, (_, p))| p.blocks.iter().find(|b| linked(b)).map(|b| (i, b.clone())));
        let callout = found.or_else(|| {
            old.preamble
                .iter()
                .find(|b| linked(b))
                .map(|b| (usize::MAX, b.clone()))
        });
        if let Some((i, block)) = callout {
            match map.get(i).copied().flatten() {
                Some(j) => {
                    if let Some(p) = new.phases_mut().nth(j) {
                        p.blocks.push(block);
                    }
                }
                None => new.preamble.push(block),
            }
        }
    }
}

/// For each phase of `old`, the phase of `new` it is: the next one with
/// the same prompt, else the one at its place, else the last; `None` when
/// `new` has no phase.
fn phase_map(old: &SessionLog, new: &SessionLog) -> Vec<Option<usize>> {
    let theirs: Vec<Option<String>> = new.phases().map(|(_, p)| prompt(p)).collect();
    let last = theirs.len().checked_sub(1);
    let mut from = 0;
    old.phases()
        .enumerate()
        .map(|(i, (_, p))| {
            let found = prompt(p).and_then(|q| {
                (from..theirs.len()).find(|&j| theirs[j].as_deref() == Some(q.as_str()))
            });
            if let Some(j) = found {
                from = j + 1;
                return Some(j);
            }
            if i < theirs.len() { Some(i) } else { last }
        })
        .collect()
}

/// A phase's prompt: its first `[!user]` callout's text, trimmed.
fn prompt(p: &crucible_core::Phase) -> Option<String> {
    p.blocks.iter().find_map(|b| match b {
        Block::Callout(c) if c.kind() == CalloutKind::User => Some(c.text().trim().to_owned()),
        _ => None,
    })
}

fn phase_calls(p: &crucible_core::Phase) -> Vec<&ToolCall> {
    p.blocks
        .iter()
        .flat_map(|b| match b {
            Block::ToolCalls { calls } => calls.as_slice(),
            _ => &[],
        })
        .collect()
}

fn calls_of(log: &SessionLog, j: usize) -> Vec<&ToolCall> {
    log.phases()
        .nth(j)
        .map(|(_, p)| phase_calls(p))
        .unwrap_or_default()
}

/// The same call recorded twice: the same tool, and arguments that start
/// the same once a cut marker is left out.
fn same_call(a: &ToolCall, b: &ToolCall) -> bool {
    let key = |c: &ToolCall| {
        let args = c.args.split(" …[cut:").next().unwrap_or_default();
        args.chars().take(ARGS_COMPARED).collect::<String>()
    };
    a.tool == b.tool && key(a) == key(b)
}

/// Appends `calls` to phase `j` of `log` (its last tool-call list, else a
/// new one at its end); returns their sidecar records re-pointed.
fn append_calls(
    log: &mut SessionLog,
    j: usize,
    calls: Vec<(ToolCall, Option<CallData>)>,
) -> Vec<CallData> {
    if calls.is_empty() {
        return Vec::new();
    }
    let Some(phase) = log.phases_mut().nth(j) else {
        return Vec::new();
    };
    let before = phase_calls(phase).len();
    let at = phase
        .blocks
        .iter()
        .rposition(|b| matches!(b, Block::ToolCalls { .. }));
    let list = at.unwrap_or_else(|| {
        phase.blocks.push(Block::ToolCalls { calls: Vec::new() });
        phase.blocks.len() - 1
    });
    let Block::ToolCalls { calls: list } = &mut phase.blocks[list] else {
        unreachable!("a tool-call list was just found or made");
    };
    let mut records = Vec::new();
    for (n, (call, data)) in calls.into_iter().enumerate() {
        list.push(call);
        if let Some(mut d) = data {
            d.phase = j;
            d.call = before + n;
            records.push(d);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{Frontmatter, SessionEvent, TimedEvent, Timestamp};

    /// A session of one prompt and the given calls (tool, args, failed).
    fn session(prompt: &str, calls: &[(&str, &str, bool)]) -> SessionLog {
        let at: Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        let mut log = SessionLog::new(Frontmatter::new(
            "2026-01-02-a".parse().unwrap(),
            at.clone(),
        ));
        let mut events = vec![
            SessionEvent::Phase {
                name: prompt.into(),
                agent: None,
                channel: None,
                level: 2,
            },
            SessionEvent::User {
                quote: prompt.into(),
                interpretation: None,
            },
        ];
        for (tool, args, failed) in calls {
            events.push(SessionEvent::tool(tool, args, Some("done"), *failed));
        }
        for event in events {
            log.apply(&TimedEvent {
                at: at.clone(),
                event,
            });
        }
        log
    }

    #[test]
    fn what_the_import_holds_too_is_not_added_again() {
        let hooks = session("fix it", &[("Bash", "cargo test", false)]);
        let import = session(
            "fix it",
            &[("Bash", "cargo test", false), ("Read", "a.rs", false)],
        );
        let mut merged = import.clone();
        assert!(merge(&hooks, None, &mut merged, &HashSet::new(), true).is_empty());
        assert_eq!(
            merged, import,
            "nothing only the hooks saw: the import as it is"
        );
    }

    #[test]
    fn calls_only_the_hooks_saw_are_kept_once_and_completed_stays() {
        let mut hooks = session(
            "fix it",
            &[
                ("Bash", "cargo test", false),
                ("Bash", "cargo test", false),
                ("Read", "gone.rs", true),
            ],
        );
        hooks.frontmatter.status = SessionStatus::Completed;
        let import = session("fix it", &[("Bash", "cargo test", false)]);
        let mut merged = import.clone();
        merge(&hooks, None, &mut merged, &HashSet::new(), true);
        let calls: Vec<String> = calls_of(&merged, 0).iter().map(|c| c.one_line()).collect();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert_eq!(
            calls.iter().filter(|c| c.contains("Bash")).count(),
            2,
            "{calls:?}"
        );
        assert!(calls[2].contains("✗"), "{calls:?}");
        assert_eq!(merged.frontmatter.status, SessionStatus::Completed);
    }

    #[test]
    fn a_call_both_sidecars_name_is_matched_by_its_id() {
        let hooks = session("fix it", &[("Bash", "cargo test --all", false)]);
        // The import renders the call's arguments otherwise.
        let import = session("fix it", &[("Bash", "cargo test", false)]);
        let mut data = SessionData::default();
        data.records.push(DataRecord::Call(CallData {
            tool: "Bash".into(),
            id: Some("toolu_1".into()),
            ..CallData::default()
        }));
        let mut merged = import.clone();
        let ids = HashSet::from(["toolu_1".to_owned()]);
        merge(&hooks, Some(&data), &mut merged, &ids, true);
        assert_eq!(merged, import);
    }
}
