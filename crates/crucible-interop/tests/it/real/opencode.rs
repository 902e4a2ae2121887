//! OpenCode's real storage (`fixtures/real/opencode/`): the SQLite database
//! of 1.18.33 and the JSON folder of 1.1.65, each session imported and its
//! messages, calls, failures, subagents and tokens compared with a count
//! made here from the rows and files themselves (SQL and JSON, not the
//! importer's code).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crucible_core::{CalloutKind, UsageByModel};
use crucible_interop::{Format, Imported, detect, find_sources, import};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/opencode")
}

#[derive(Debug, Default, PartialEq)]
struct Facts {
    prompts: usize,
    replies: usize,
    calls: usize,
    failed: usize,
    subagents: usize,
    /// input, output (reasoning left out, as OpenCode counts), reasoning,
    /// cache read, cache write.
    tokens: [u64; 5],
    /// Replies that spent tokens, and their cost.
    requests: usize,
    cost_micro_usd: u64,
}

/// Adds one message's facts (`info`, its parts) to `f`.
fn count(f: &mut Facts, info: &Value, parts: &[Value]) {
    let texts = parts
        .iter()
        .filter(|p| p["type"] == "text" && p["text"].as_str().is_some_and(|t| !t.trim().is_empty()))
        .count();
    if info["role"] == "user" {
        f.prompts += usize::from(texts > 0);
        return;
    }
    f.replies += texts;
    for p in parts.iter().filter(|p| p["type"] == "tool") {
        f.calls += 1;
        f.failed += usize::from(p["state"]["status"] == "error");
    }
    let t = &info["tokens"];
    let spent = [
        "/input",
        "/output",
        "/reasoning",
        "/cache/read",
        "/cache/write",
    ]
    .iter()
    .any(|k| t.pointer(k).and_then(Value::as_u64).unwrap_or(0) > 0);
    if spent {
        f.requests += 1;
        f.cost_micro_usd += micro(info["cost"].as_f64().unwrap_or(0.0));
    }
    for (i, k) in [
        "/input",
        "/output",
        "/reasoning",
        "/cache/read",
        "/cache/write",
    ]
    .iter()
    .enumerate()
    {
        f.tokens[i] += t.pointer(k).and_then(Value::as_u64).unwrap_or(0);
    }
}

/// Facts by session id, from the database's rows.
fn db_facts(db: &Path) -> BTreeMap<String, Facts> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut out = BTreeMap::new();
    let mut st = conn.prepare("SELECT id, parent_id FROM session").unwrap();
    let sessions: Vec<(String, Option<String>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (id, _) in &sessions {
        let mut f = Facts {
            subagents: sessions
                .iter()
                .filter(|(_, p)| p.as_deref() == Some(id))
                .count(),
            ..Facts::default()
        };
        let mut st = conn
            .prepare("SELECT id, data FROM message WHERE session_id = ?1")
            .unwrap();
        let messages: Vec<(String, String)> = st
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (mid, data) in messages {
            let mut st = conn
                .prepare("SELECT data FROM part WHERE message_id = ?1")
                .unwrap();
            let parts: Vec<Value> = st
                .query_map([&mid], |r| r.get::<_, String>(0))
                .unwrap()
                .map(|d| serde_json::from_str(&d.unwrap()).unwrap())
                .collect();
            count(&mut f, &serde_json::from_str(&data).unwrap(), &parts);
        }
        out.insert(id.clone(), f);
    }
    out
}

fn json_in(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap());
    }
    out
}

/// Facts by session id, from the storage folder's files.
fn storage_facts(storage: &Path) -> BTreeMap<String, Facts> {
    let sessions = json_in(&storage.join("session/global"));
    let mut out = BTreeMap::new();
    for s in &sessions {
        let id = s["id"].as_str().unwrap();
        let mut f = Facts {
            subagents: sessions.iter().filter(|c| c["parentID"] == id).count(),
            ..Facts::default()
        };
        for m in json_in(&storage.join("message").join(id)) {
            let parts = json_in(&storage.join("part").join(m["id"].as_str().unwrap()));
            count(&mut f, &m, &parts);
        }
        out.insert(id.to_owned(), f);
    }
    out
}

/// Dollars in millionths, summed without float drift.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn micro(usd: f64) -> u64 {
    (usd * 1e6).round() as u64
}

/// Facts by session id, from what the importer made of the sessions and
/// their children.
fn imported_facts(imp: &Imported, out: &mut BTreeMap<String, Facts>) {
    let log = &imp.log;
    super::assert_records_make_the_totals(log, &imp.provenance.path);
    assert!(
        log.usage_records()
            .all(|r| r.id.is_some() && r.at.is_some()),
        "{}",
        imp.provenance.path
    );
    let calls: Vec<_> = log.tool_calls().collect();
    let kinds = |k: CalloutKind| log.callouts().filter(|c| c.kind() == k).count();
    let u = UsageByModel::of(&log.frontmatter).unwrap().total();
    let f = Facts {
        prompts: kinds(CalloutKind::User),
        replies: kinds(CalloutKind::Other("reply".into())),
        calls: calls.len(),
        failed: calls.iter().filter(|c| c.failed).count(),
        subagents: imp.children.len(),
        tokens: [
            u.input,
            u.output - u.reasoning,
            u.reasoning,
            u.cache_read,
            u.cache_creation,
        ],
        requests: log.usage_records().count(),
        cost_micro_usd: log
            .usage_records()
            .map(|r| micro(r.cost_usd.unwrap_or(0.0)))
            .sum(),
    };
    out.insert(imp.provenance.id.clone().unwrap(), f);
    for c in &imp.children {
        imported_facts(&c.imported, out);
    }
}

fn import_all(path: &Path) -> BTreeMap<String, Facts> {
    let found = find_sources(path, None);
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    let mut got = BTreeMap::new();
    for (src, format) in &found.sources {
        assert_eq!(*format, Format::OpenCode, "{}", src.display());
        let imp = import(src, *format).unwrap();
        assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
        assert!(imp.all_records().skipped.is_empty(), "{}", imp.records);
        imported_facts(&imp, &mut got);
    }
    // Three sessions run, one subagent each started by a `task` call.
    assert_eq!(found.sources.len(), 3, "{:?}", found.sources);
    got
}

#[test]
fn the_real_opencode_database_imports_each_session_with_its_facts() {
    let db = dir().join("v1.18.33/opencode.db");
    assert_eq!(detect(&db), Some(Format::OpenCode));
    let want = db_facts(&db);
    assert_eq!(want.len(), 4);
    assert_eq!(import_all(&db), want);
    // The data folder gives the same sources as the database in it.
    assert_eq!(import_all(&dir().join("v1.18.33")), want);
}

#[test]
fn the_real_opencode_json_storage_imports_each_session_with_its_facts() {
    let storage = dir().join("v1.1.65/storage");
    assert_eq!(detect(&storage), Some(Format::OpenCode));
    let want = storage_facts(&storage);
    assert_eq!(want.len(), 4);
    assert_eq!(import_all(&storage), want);
}

#[test]
fn reading_the_database_writes_nothing_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("opencode.db");
    std::fs::copy(dir().join("v1.18.33/opencode.db"), &db).unwrap();
    let before = std::fs::read(&db).unwrap();
    import_all(&db);
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["opencode.db"]);
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_damaged_database_is_an_error_that_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("opencode.db");
    let mut bytes = std::fs::read(dir().join("v1.18.33/opencode.db")).unwrap();
    bytes.truncate(4096);
    std::fs::write(&db, &bytes).unwrap();
    let src = PathBuf::from(format!("{}#ses_x", db.display()));
    let e = import(&src, Format::OpenCode).unwrap_err().to_string();
    assert!(e.contains("opencode.db"), "{e}");
}
