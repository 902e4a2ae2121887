//! The index follows the files: saves through cru at once, other changes by
//! the cheap check or `rebuild`, and it repairs itself.

use std::sync::Arc;

use crucible_core::{SessionStatus, SessionStore};
use crucible_index::{IndexObserver, SessionIndex};
use crucible_parser::MarkdownCodec;

use crate::agreement::{assert_agrees, copy_fixtures};

fn open(store: &SessionStore<MarkdownCodec>) -> crucible_index::Opened {
    SessionIndex::new(store).open(None, &|_, _| {}).unwrap()
}

fn status_of(opened: &crucible_index::Opened, id: &str) -> Option<SessionStatus> {
    opened
        .index
        .sessions
        .iter()
        .find(|s| s.id == id)
        .map(|s| s.status)
}

/// Changes the fixtures as a person would: a session copied to `added`,
/// one removed, one replaced the way editors save (a new file renamed
/// over the old).
fn change_by_hand(dir: &std::path::Path, added: &str) {
    std::fs::copy(dir.join("2025-12-11-write-tests.md"), dir.join(added)).unwrap();
    std::fs::remove_file(dir.join("2025-12-12-start-docs.md")).unwrap();
    let p = dir.join("2025-11/2025-11-28-ci-failure.md");
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("status: failed", "status: completed");
    std::fs::write(dir.join("2025-11/.tmp"), text).unwrap();
    std::fs::rename(dir.join("2025-11/.tmp"), &p).unwrap();
}

#[test]
fn files_added_removed_and_replaced_by_hand_are_seen() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    assert_eq!(open(&store).index.sessions.len(), 9);
    // Added in a new folder, removed, replaced by rename.
    std::fs::create_dir_all(dir.path().join("2026/01")).unwrap();
    change_by_hand(dir.path(), "2026/01/copy.md");
    let o = open(&store);
    assert_eq!(o.index.sessions.len(), 9);
    assert_eq!(status_of(&o, "2025-12-12-start-docs"), None);
    assert_eq!(
        status_of(&o, "2025-11-28-ci-failure"),
        Some(SessionStatus::Completed)
    );
    assert!(o.index.sessions.iter().any(|s| s.path == "2026/01/copy.md"));
    assert_agrees(dir.path());
}

/// Writes `text` over `p` in place (same inode), as editors that do not
/// save by rename and `cat > file` do.
fn write_in_place(p: &std::path::Path, text: &str) {
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

#[test]
fn an_in_place_edit_is_seen_by_the_next_read() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    open(&store);
    let p = dir.path().join("2025-12-11-write-tests.md");
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("status: completed", "status: failed");
    write_in_place(&p, &text);
    // Same inode, and a directory whose entries did not change.
    assert_eq!(
        status_of(&open(&store), "2025-12-11-write-tests"),
        Some(SessionStatus::Failed)
    );
    // And the fast path of `list` (rows straight from the file) agrees.
    let mut seen = Vec::new();
    let (_, states) = SessionIndex::new(&store)
        .visit(
            None,
            &crucible_index::Filter::default(),
            &|_, _| {},
            &Vec::new,
            &|st: &mut Vec<(String, SessionStatus)>, f, _| {
                st.push((f.path.to_string(), f.status));
            },
        )
        .unwrap();
    for s in states {
        seen.extend(s);
    }
    assert!(
        seen.contains(&(
            "2025-12-11-write-tests.md".to_owned(),
            SessionStatus::Failed
        )),
        "{seen:?}"
    );
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_seen() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    // Old enough that its stamp is trusted (not within a clock tick).
    std::thread::sleep(std::time::Duration::from_millis(150));
    open(&store);
    let p = dir.path().join("2025-12-11-write-tests.md");
    let before = std::fs::metadata(&p).unwrap();
    // Same length (YAML drops the trailing spaces), same inode...
    let text = std::fs::read_to_string(&p).unwrap();
    let edited = text.replacen("status: completed", "status: failed   ", 1);
    assert_eq!(edited.len(), text.len());
    write_in_place(&p, &edited);
    // ...and the old mtime put back, as `cp -p`, `touch -r` or `rsync -t` do.
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(&p).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    // Only the inode's change time moved; it is enough.
    assert_eq!(
        status_of(&open(&store), "2025-12-11-write-tests"),
        Some(SessionStatus::Failed)
    );
}

#[test]
fn a_save_through_cru_does_not_hide_a_file_copied_in_by_hand() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec).with_observer(std::sync::Arc::new(
        crucible_index::IndexObserver::new(dir.path()),
    ));
    open(&store);
    // Someone copies a session in...
    let src = dir.path().join("2025-12-11-write-tests.md");
    let text = std::fs::read_to_string(&src).unwrap().replace(
        "session_id: 2025-12-11-write-tests",
        "session_id: 2025-12-11-copied-by-hand",
    );
    std::fs::write(dir.path().join("copied.md"), text).unwrap();
    // ...then cru saves another session in the same directory.
    let (path, log) = store.load("2025-12-10-fix").unwrap();
    store.save_to(&path, &log).unwrap();
    let o = open(&store);
    assert!(
        o.index
            .sessions
            .iter()
            .any(|s| s.id == "2025-12-11-copied-by-hand"),
        "the copied file is hidden by the save"
    );
}

use std::io::Write;

#[test]
fn a_missing_or_corrupt_index_is_rebuilt_with_a_warning() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    let first = open(&store);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let base = dir.path().join(crucible_index::files::BASE);
    std::fs::write(
        &base,
        "format: cru-session-index\nversion: 1\nsessions[3]{path}:\n  x\n",
    )
    .unwrap();
    let o = open(&store);
    assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
    assert!(o.warnings[0].contains(".index.toon:3"), "{}", o.warnings[0]);
    assert_eq!(o.index.sessions.len(), 9);
    std::fs::write(&base, "format: cru-session-index\nversion: 99\n").unwrap();
    assert!(open(&store).warnings[0].contains("version 99"));
    std::fs::remove_file(&base).unwrap();
    let o = open(&store);
    assert!(o.warnings.is_empty(), "a missing index is simply built");
    assert_eq!(o.index.sessions.len(), 9);
}

/// Every session's usage lines as a visit reading usage sees them, by path.
fn usage_by_path(store: &SessionStore<MarkdownCodec>) -> Vec<(String, usize)> {
    let (_, states) = SessionIndex::new(store)
        .visit(
            None,
            &crucible_index::Filter::default(),
            &|_, _| {},
            &Vec::new,
            &|st: &mut Vec<(String, usize)>, f, _| {
                st.push((f.path.to_string(), f.usage().unwrap().len()));
            },
        )
        .unwrap();
    let mut seen: Vec<_> = states.into_iter().flatten().collect();
    seen.sort();
    seen
}

#[test]
fn a_usage_file_out_of_step_with_the_base_is_rebuilt_with_a_warning() {
    let dir = copy_fixtures();
    // Past the racy window: the index trusts the files' stamps, and
    // answers from its rows.
    std::thread::sleep(std::time::Duration::from_millis(150));
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    open(&store);
    let want = usage_by_path(&store);
    assert!(want.iter().any(|(_, n)| *n > 0), "{want:?}");
    let usage = dir.path().join(crucible_index::files::USAGE);
    let text = std::fs::read_to_string(&usage).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rows = lines.iter().position(|l| l.starts_with("usage[")).unwrap() + 1;
    // Two rows swapped: each names a path the sessions table has elsewhere.
    let mut swapped = lines.clone();
    swapped.swap(rows, rows + 1);
    std::fs::write(&usage, swapped.join("\n") + "\n").unwrap();
    let o = open(&store);
    assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
    assert!(
        o.warnings[0].contains(".index-usage.toon"),
        "{}",
        o.warnings[0]
    );
    assert_eq!(usage_by_path(&store), want);
    // A row missing: the visit does not answer from the rows, it rebuilds.
    let text = std::fs::read_to_string(&usage).unwrap();
    let short: Vec<&str> = text.lines().filter(|l| !l.contains("2025-12-11")).collect();
    assert!(short.len() < text.lines().count());
    std::fs::write(&usage, short.join("\n") + "\n").unwrap();
    assert_eq!(usage_by_path(&store), want);
    // Gone: the files are not those cru sealed (see `seal`), so even a
    // query that reads no usage rebuilds, and the file is back.
    std::fs::remove_file(&usage).unwrap();
    let (_, states) = SessionIndex::new(&store)
        .without_usage()
        .visit(
            None,
            &crucible_index::Filter::default(),
            &|_, _| {},
            &Vec::new,
            &|st: &mut Vec<(String, Option<usize>)>, f, _| {
                st.push((f.path.to_string(), f.usage().ok().map(|u| u.len())));
            },
        )
        .unwrap();
    let mut seen: Vec<_> = states.into_iter().flatten().collect();
    seen.sort();
    assert_eq!(seen.len(), 9);
    // Every row was read again: its usage is there (never zero for a
    // count that was not read).
    for ((path, n), (want_path, want_n)) in seen.iter().zip(&want) {
        assert_eq!(path, want_path);
        assert_eq!(*n, Some(*want_n), "{path}");
    }
    assert!(usage.exists());
    assert_eq!(usage_by_path(&store), want);
}

#[test]
fn files_that_fail_to_parse_are_problems_not_silence() {
    let dir = copy_fixtures();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/invalid/unknown-status.md"),
        dir.path().join("broken.md"),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Just notes\n").unwrap();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    let o = open(&store);
    assert_eq!(o.index.sessions.len(), 9);
    assert_eq!(
        o.index.problems.len(),
        1,
        "notes are not sessions, so not problems"
    );
    assert_eq!(o.index.problems[0].path, "broken.md");
    assert_eq!(o.index.problems[0].line, 5);
}

#[test]
fn saves_through_the_store_update_the_index_at_once() {
    let dir = copy_fixtures();
    let plain = SessionStore::new(dir.path(), MarkdownCodec);
    open(&plain);
    let store = SessionStore::new(dir.path(), MarkdownCodec)
        .with_observer(Arc::new(IndexObserver::new(dir.path())));
    let config = crucible_core::SessionConfig::default();
    let mut rec = crucible_core::Recorder::start(
        &store,
        &crucible_core::StartOptions {
            title: Some("Live".into()),
            ..Default::default()
        },
        &config,
    )
    .unwrap();
    rec.phase(
        "One",
        Some("coder@1.0".parse().unwrap()),
        Some("dev".into()),
    )
    .unwrap();
    rec.tool_call("ls", "", None, false).unwrap();
    let id = rec.id().to_string();
    // The phase boundary folded and told the index; the buffered call is in the journal.
    rec.close().unwrap();
    let delta = crucible_index::files::load_delta(dir.path()).unwrap();
    assert!(
        delta.sessions.iter().any(|s| s.id == id),
        "the save wrote a delta row"
    );
    let o = open(&plain);
    let r = o.index.sessions.iter().find(|s| s.id == id).unwrap();
    assert_eq!(
        r.counts.tool_calls, 1,
        "live sessions are read with their journal"
    );
    // A full rebuild holds the writer lock while it reads, the live session
    // included (whose load must not wait for a lock of its own).
    let (rebuilt, n) = SessionIndex::new(&plain).rebuild_files(&|_, _| {}).unwrap();
    assert!(rebuilt.warnings.is_empty(), "{:?}", rebuilt.warnings);
    assert_eq!(n, 10);
    let r = open(&plain)
        .index
        .sessions
        .into_iter()
        .find(|s| s.id == id)
        .unwrap();
    assert!(r.live);
    assert_eq!(r.counts.tool_calls, 1, "rebuilt with its journal");
    let mut rec = crucible_core::Recorder::open(&store, &id, &config, false).unwrap();
    rec.pause(None).unwrap();
    rec.close().unwrap();
    assert_eq!(status_of(&open(&plain), &id), Some(SessionStatus::Paused));
    assert_agrees(dir.path());
}

#[test]
fn idle_sessions_are_paused_when_the_index_is_refreshed() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    let p = dir.path().join("2025-12-12-start-docs.md");
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(7200))
        .unwrap();
    let o = SessionIndex::new(&store)
        .open(Some(std::time::Duration::from_secs(3600)), &|_, _| {})
        .unwrap();
    assert_eq!(o.paused, ["2025-12-12-start-docs"]);
    assert_eq!(
        status_of(&o, "2025-12-12-start-docs"),
        Some(SessionStatus::Paused)
    );
    let log = store.load("2025-12-12-start-docs").unwrap().1;
    assert_eq!(log.frontmatter.resume_point.unwrap().to_string(), "phase-1");
}

/// The index as its files hold it (base and delta), no file looked at:
/// what a read a watcher vouches for answers from.
fn as_stored(root: &std::path::Path) -> Vec<(String, Option<String>, SessionStatus)> {
    let mut index = crucible_index::files::load(root).unwrap();
    let delta = crucible_index::files::load_delta(root).unwrap_or_default();
    crucible_index::files::apply(&mut index, &delta);
    let mut rows: Vec<_> = index
        .sessions
        .iter()
        .map(|s| (s.path.clone(), s.title.clone(), s.status))
        .collect();
    rows.sort();
    rows
}

#[test]
fn rereading_the_files_a_watcher_was_told_of_equals_a_full_parse() {
    let dir = copy_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    open(&store);
    // Added, removed, replaced by rename and edited in place.
    change_by_hand(dir.path(), "2025-11/copy.md");
    let q = dir.path().join("2025-12-11-write-tests.md");
    let text = std::fs::read_to_string(&q)
        .unwrap()
        .replacen("title: ", "title: Renamed ", 1);
    write_in_place(&q, &text);

    let before = as_stored(dir.path());
    assert!(SessionIndex::new(&store).reread(vec![
        "2025-11/copy.md".into(),
        "2025-12-12-start-docs.md".into(),
        "2025-11/2025-11-28-ci-failure.md".into(),
        "2025-12-11-write-tests.md".into(),
    ]));
    let after = as_stored(dir.path());
    assert_ne!(before, after);
    let mut truth: Vec<_> = crate::agreement::brute_force(dir.path())
        .into_iter()
        .map(|s| (s.path, s.title, s.status))
        .collect();
    truth.sort();
    assert_eq!(after, truth, "the stored index, read as it is");
    assert_agrees(dir.path());
}

/// Every file changed at once (a copy made with hard links changes every
/// file's ctime; so do `chown -R` and a restore): the next query rebuilds
/// the index rather than reading each file again into a delta, and answers
/// as a full parse does.
#[test]
fn a_directory_whose_every_file_changed_is_rebuilt_not_read_again() {
    use std::os::unix::fs::PermissionsExt;
    let dir = copy_fixtures();
    let root = dir.path();
    let model = std::fs::read_to_string(root.join("2025-12-11-write-tests.md")).unwrap();
    let id = "session_id: 2025-12-11-write-tests";
    assert!(model.contains(id), "the fixture declares its id");
    for n in 0..100 {
        let name = format!("2026-01-01-copy-{n:03}");
        let text = model.replacen(id, &format!("session_id: {name}"), 1);
        std::fs::write(root.join(format!("{name}.md")), text).unwrap();
    }
    let store = SessionStore::new(root, MarkdownCodec);
    let all = crucible_index::Filter::default();
    let before = SessionIndex::new(&store).matching(&all).unwrap();
    assert_eq!(before.len(), 109);
    let generation = |root: &std::path::Path| {
        let text = std::fs::read_to_string(root.join(".index.toon")).unwrap();
        text.lines()
            .find(|l| l.starts_with("generation:"))
            .map(str::to_owned)
    };
    let built = generation(root);

    // A change of mode changes each file's ctime, nothing else.
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            let mode = entry.metadata().unwrap().permissions().mode();
            let p = std::fs::Permissions::from_mode(mode ^ 0o040);
            std::fs::set_permissions(entry.path(), p).unwrap();
        }
    }
    let after = SessionIndex::new(&store).matching(&all).unwrap();
    assert_eq!(after.len(), 109);
    assert_ne!(generation(root), built, "the base was written again");
    let delta = std::fs::read_to_string(root.join(".index-delta.toon")).unwrap_or_default();
    assert!(
        !delta.contains("copy-0"),
        "no session row in the delta: {delta}"
    );
    assert_agrees(root);

    // A few files changed: read again into the delta, as before.
    for n in 0..3 {
        let p = root.join(format!("2026-01-01-copy-{n:03}.md"));
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, text.replace("status: completed", "status: paused")).unwrap();
    }
    let rebuilt = generation(root);
    SessionIndex::new(&store).matching(&all).unwrap();
    assert_eq!(generation(root), rebuilt, "the base was kept");
    let delta = std::fs::read_to_string(root.join(".index-delta.toon")).unwrap();
    assert!(delta.contains("2026-01-01-copy-000.md"), "{delta}");
    assert_agrees(root);
}
