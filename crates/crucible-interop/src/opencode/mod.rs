//! OpenCode sessions, in both of its storages: the SQLite database
//! `~/.local/share/opencode/opencode.db` (1.2 on) and the older JSON folder
//! `~/.local/share/opencode/storage/` (one file per session, message and
//! part).
//!
//! A database or a storage folder holds many sessions; each top-level
//! session is a source of its own, so that a re-import tells each one
//! unchanged, grown or new: in a database it is named `opencode.db#<id>`,
//! in a storage folder it is its `session/<projectID>/ses_*.json` file.
//! The source hash covers the session's own records (its session row,
//! messages and parts). A session another one started (`parentID`, the
//! `task` tool's subagent) comes with its parent as a linked child.
//!
//! The records become the session as [`session`] says.

mod db;
mod session;
mod storage;

use std::path::{Path, PathBuf};

use crucible_core::store::walk::Skipped;
use serde_json::Value;

use crate::{Child, ImportError, Imported, SubagentLink};

/// One message and its parts, as JSON objects with their `id`.
#[derive(Debug)]
pub(crate) struct Message {
    id: String,
    info: Value,
    parts: Vec<Value>,
}

/// A JSON text as an object with `key` set to `id` (the database keeps
/// ids in columns, not in the JSON); anything that is not an object is
/// kept under `unparsed`.
fn with_id(key: &str, id: &str, text: &str) -> Value {
    let mut v = if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(text) {
        m
    } else {
        let mut m = serde_json::Map::new();
        m.insert("unparsed".into(), text.into());
        m
    };
    v.entry(key).or_insert_with(|| id.into());
    Value::Object(v)
}

impl Message {
    fn new(id: &str, data: &str) -> Self {
        Self {
            id: id.to_owned(),
            info: with_id("id", id, data),
            parts: Vec::new(),
        }
    }

    fn push_part(&mut self, id: &str, data: &str) {
        self.parts.push(with_id("id", id, data));
    }

    fn created(&self) -> i64 {
        self.info
            .pointer("/time/created")
            .and_then(Value::as_i64)
            .unwrap_or(0)
    }
}

/// One session's records.
#[derive(Debug)]
pub(crate) struct Rows {
    /// The session record (the row's columns, or the session file's JSON).
    info: Value,
    messages: Vec<Message>,
    /// What the source hash covers: the records' bytes as stored.
    hashed: Vec<u8>,
    /// The sessions it started: ids in a database, file paths in a folder.
    children: Vec<String>,
    /// Record files left out whole (a storage folder's FIFOs, links out).
    skipped: Vec<Skipped>,
}

/// Where a source is: a session of a database, or a session file.
enum Source<'a> {
    Db { db: &'a Path, id: &'a str },
    File(&'a Path),
}

fn source_of(path: &Path) -> Source<'_> {
    let s = path.to_str().unwrap_or("");
    match s.rsplit_once('#') {
        Some((db, id)) if id.starts_with("ses_") => Source::Db {
            db: Path::new(db),
            id,
        },
        _ => Source::File(path),
    }
}

/// True for an OpenCode database: SQLite with its tables.
pub(crate) fn is_db(path: &Path, head: &[u8]) -> bool {
    head.starts_with(db::MAGIC) && db::Db::open(path).is_ok()
}

/// True for an OpenCode storage folder.
pub(crate) fn is_storage(dir: &Path) -> bool {
    storage::is_storage(dir)
}

/// True for a session file of a storage folder.
pub(crate) fn is_session_file(path: &Path, head: &[u8]) -> bool {
    storage::root_of(path).is_some()
        && serde_json::from_slice::<Value>(head).is_ok_and(|v| storage::is_session_record(&v))
}

/// True for a source named `<db>#<session id>` whose database is OpenCode's.
pub(crate) fn is_db_session(path: &Path) -> bool {
    match source_of(path) {
        Source::Db { db, .. } => crate::detect::head(db).is_some_and(|h| is_db(db, &h)),
        Source::File(_) => false,
    }
}

/// The sources of an OpenCode database, storage folder or session file:
/// one per top-level session. `nested`: found in a folder walk, where a
/// subagent's session file comes with its parent's. Entries of a storage
/// folder the walker's rules leave out are added to `skipped`.
pub(crate) fn sources(
    path: &Path,
    nested: bool,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<PathBuf>, ImportError> {
    if path.is_dir() {
        let all = storage::session_files(path);
        skipped.extend(all.skipped);
        let mut out = Vec::new();
        for f in all.files {
            if !has_parent(&f)? {
                out.push(f);
            }
        }
        return Ok(out);
    }
    if matches!(source_of(path), Source::Db { .. }) {
        return Ok(vec![path.to_owned()]);
    }
    if crate::detect::head(path).is_some_and(|h| h.starts_with(db::MAGIC)) {
        let db = db::Db::open(path)?;
        let ids = db.top_sessions()?;
        return Ok(ids
            .into_iter()
            .map(|id| PathBuf::from(format!("{}#{id}", path.display())))
            .collect());
    }
    Ok(if nested && has_parent(path)? {
        Vec::new()
    } else {
        vec![path.to_owned()]
    })
}

fn has_parent(session_file: &Path) -> Result<bool, ImportError> {
    let bytes = crate::read_source(session_file)?;
    Ok(serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| v.get("parentID").cloned())
        .is_some_and(|p| p.is_string()))
}

/// Reads one session (and the sessions it started) of a database or a
/// storage folder.
pub(crate) fn import(path: &Path) -> Result<Imported, ImportError> {
    match source_of(path) {
        Source::Db { db, id } => {
            let db = db::Db::open(db)?;
            import_db(&db, path, id)
        }
        Source::File(file) => {
            if crate::detect::head(file).is_some_and(|h| h.starts_with(db::MAGIC)) {
                return Err(ImportError::Unknown {
                    path: path.to_owned(),
                    expected: "one OpenCode session: <opencode.db>#<session id> \
                               (a folder walk lists a database's sessions)"
                        .into(),
                });
            }
            import_file(file)
        }
    }
}

fn import_db(db: &db::Db, path: &Path, id: &str) -> Result<Imported, ImportError> {
    let rows = db.read(id)?.ok_or_else(|| ImportError::Unknown {
        path: path.to_owned(),
        expected: format!("a session {id} in the database"),
    })?;
    let db_path = match source_of(path) {
        Source::Db { db, .. } => db.to_owned(),
        Source::File(f) => f.to_owned(),
    };
    let mut children = Vec::new();
    for child in &rows.children {
        let child_path = PathBuf::from(format!("{}#{child}", db_path.display()));
        children.push(import_db(db, &child_path, child)?);
    }
    Ok(assemble(path, &rows, children))
}

fn import_file(path: &Path) -> Result<Imported, ImportError> {
    let rows = storage::read(path)?;
    let mut children = Vec::new();
    for child in &rows.children {
        children.push(import_file(Path::new(child))?);
    }
    Ok(assemble(path, &rows, children))
}

/// The session of `rows`, its children linked after the `task` call that
/// started each.
fn assemble(path: &Path, rows: &Rows, children: Vec<Imported>) -> Imported {
    let made = session::convert(path, rows);
    let mut imported = crate::imported(
        crate::Format::OpenCode,
        path,
        made.id.clone(),
        &rows.hashed,
        made.log,
        Vec::new(),
    );
    imported.data.records = made.records;
    imported.records = made.tally;
    imported.skipped_files.clone_from(&rows.skipped);
    for child in children {
        let task = child
            .provenance
            .id
            .as_deref()
            .and_then(|id| made.tasks.iter().find(|t| t.child == id));
        let summary = crate::transcript::last_reply(&child.log);
        imported.children.push(Child {
            link: SubagentLink {
                agent: task.map_or_else(session::opencode, |t| t.agent.clone()),
                anchor: task.map(|t| t.anchor),
                description: task.and_then(|t| t.description.clone()),
                summary,
            },
            imported: child,
        });
    }
    imported
}
