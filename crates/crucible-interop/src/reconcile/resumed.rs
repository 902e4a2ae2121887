//! The link from a resumed session to the one it continues: a
//! `resumed_from` key naming that session, and a first block that says so
//! with a link `show` and the HTML page follow.

use crucible_core::{Block, Callout, SessionId, SessionLog};

/// The frontmatter key naming the session a resumed one continues.
pub(crate) const RESUMED_FROM: &str = "resumed_from";

/// Links `log` to `earlier`, the session it continues; with none (its
/// source could not be stored), says that the earlier lines are left out.
pub(super) fn link(log: &mut SessionLog, earlier: Option<&SessionId>) {
    let body = match earlier {
        Some(id) => {
            log.frontmatter.extra.insert(RESUMED_FROM, id.to_string());
            format!("Continues [[{id}]]: its turns are there, not repeated here.")
        }
        None => "Continues an earlier Claude Code session that could not be imported; \
                 its turns are not repeated here."
            .to_owned(),
    };
    let callout = Block::Callout(Callout::new("note", "Resumed session", vec![body]));
    if let Some(first) = log.phases_mut().next() {
        first.blocks.insert(0, callout);
    }
}

/// The `import` key's list of the other Claude Code sessions whose
/// transcripts feed a session: hooks that go on in an earlier session
/// when it is resumed name the resumed one there, so that the import of
/// either transcript finds that one session (one session, not two).
const RESUMED: &str = "resumed";

/// The ids `log`'s `import` key lists as feeding it besides its own.
pub fn resumed_ids(log: &SessionLog) -> Vec<String> {
    log.frontmatter
        .extra
        .get(crate::provenance::KEY)
        .and_then(crucible_core::yaml::Value::as_mapping)
        .and_then(|m| m.get(RESUMED))
        .and_then(crucible_core::yaml::Value::as_sequence)
        .map(|s| {
            s.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Notes in `log`'s `import` key that session `id` feeds it too (the
/// hooks, when a resumed session goes on in `log`).
pub fn note_resumed(log: &mut SessionLog, id: &str) {
    let mut ids = resumed_ids(log);
    if !ids.iter().any(|i| i == id) {
        ids.push(id.to_owned());
    }
    set_resumed(log, &ids);
}

fn set_resumed(log: &mut SessionLog, ids: &[String]) {
    if let Some(m) = log
        .frontmatter
        .extra
        .get_mut(crate::provenance::KEY)
        .and_then(crucible_core::yaml::Value::as_mapping_mut)
    {
        let list: Vec<crucible_core::yaml::Value> = ids.iter().map(|i| i.clone().into()).collect();
        m.insert(RESUMED, list);
    }
}

/// Carries the ids `old` lists into `log`, which replaces it with the
/// `import` key just written: `old`'s own source id joins them when
/// another source feeds the session now, and `log`'s own leaves them.
pub(super) fn carry(old: &SessionLog, log: &mut SessionLog) {
    let mut ids = resumed_ids(old);
    if ids.is_empty() {
        return;
    }
    let own = crate::Provenance::of(log).and_then(|p| p.id);
    if let Some(before) = crate::Provenance::of(old).and_then(|p| p.id)
        && !ids.contains(&before)
    {
        ids.push(before);
    }
    ids.retain(|i| Some(i) != own.as_ref());
    set_resumed(log, &ids);
}
