//! OpenCode's SQLite storage (`opencode.db`, versions 1.2 on): the
//! `session`, `message` and `part` tables, read without ever writing.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, types::ValueRef};
use serde_json::{Map, Value};

use super::{Message, Rows};
use crate::ImportError;

/// The first bytes of every SQLite database file.
pub(crate) const MAGIC: &[u8] = b"SQLite format 3\0";

/// An `opencode.db`, open read-only.
pub(crate) struct Db {
    path: PathBuf,
    conn: Connection,
}

fn error(path: &Path, e: &rusqlite::Error) -> ImportError {
    ImportError::Read {
        path: path.to_owned(),
        source: std::io::Error::other(e.to_string()),
    }
}

impl Db {
    /// Opens `path` read-only. A database whose `-wal` file exists is read
    /// with it (OpenCode leaves recent writes there); one without is opened
    /// `immutable`, so that SQLite creates no `-wal` or `-shm` beside it.
    pub(crate) fn open(path: &Path) -> Result<Self, ImportError> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = if Path::new(&wal).exists() {
            Connection::open_with_flags(path, flags)
        } else {
            let uri = format!("file:{}?immutable=1", uri_path(path));
            Connection::open_with_flags(uri, flags)
        }
        .map_err(|e| error(path, &e))?;
        let db = Self {
            path: path.to_owned(),
            conn,
        };
        if !db.has_tables()? {
            return Err(ImportError::Unknown {
                path: path.to_owned(),
                expected: "an OpenCode database (tables session, message, part)".into(),
            });
        }
        Ok(db)
    }

    fn has_tables(&self) -> Result<bool, ImportError> {
        let n: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
                 AND name IN ('session', 'message', 'part')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| error(&self.path, &e))?;
        Ok(n == 3)
    }

    /// The ids of the sessions no other session started, oldest first.
    pub(crate) fn top_sessions(&self) -> Result<Vec<String>, ImportError> {
        self.ids(
            "SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_created, id",
            "",
        )
    }

    fn ids(&self, sql: &str, arg: &str) -> Result<Vec<String>, ImportError> {
        let run = || -> rusqlite::Result<Vec<String>> {
            let mut st = self.conn.prepare(sql)?;
            if arg.is_empty() {
                st.query_map([], |r| r.get(0))?.collect()
            } else {
                st.query_map([arg], |r| r.get(0))?.collect()
            }
        };
        run().map_err(|e| error(&self.path, &e))
    }

    /// One session's rows; `None` when the database has no such session.
    pub(crate) fn read(&self, id: &str) -> Result<Option<Rows>, ImportError> {
        let Some(mut rows) = self.read_rows(id).map_err(|e| error(&self.path, &e))? else {
            return Ok(None);
        };
        rows.children = self.ids(
            "SELECT id FROM session WHERE parent_id = ?1 ORDER BY time_created, id",
            id,
        )?;
        Ok(Some(rows))
    }

    fn read_rows(&self, id: &str) -> rusqlite::Result<Option<Rows>> {
        let mut hashed = Vec::new();
        let mut st = self.conn.prepare("SELECT * FROM session WHERE id = ?1")?;
        let names: Vec<String> = st.column_names().iter().map(|s| (*s).to_owned()).collect();
        let mut rows = st.query([id])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let mut info = Map::new();
        for (i, name) in names.iter().enumerate() {
            info.insert(name.clone(), json_of(row.get_ref(i)?));
        }
        let info = Value::Object(info);
        hashed.extend_from_slice(info.to_string().as_bytes());
        let mut messages = Vec::new();
        let mut st = self.conn.prepare(
            "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
        )?;
        let mut parts = self
            .conn
            .prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")?;
        for m in st.query_map([id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })? {
            let (mid, data) = m?;
            hashed.extend_from_slice(data.as_bytes());
            let mut message = Message::new(&mid, &data);
            for p in parts.query_map([&mid], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })? {
                let (pid, data) = p?;
                hashed.extend_from_slice(data.as_bytes());
                message.push_part(&pid, &data);
            }
            messages.push(message);
        }
        Ok(Some(Rows {
            info,
            messages,
            hashed,
            children: Vec::new(),
            skipped: Vec::new(),
        }))
    }
}

/// A path for a `file:` URI: `?` and `#` (and `%`) escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

fn json_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => i.into(),
        ValueRef::Real(f) => f.into(),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::String(format!("<{} bytes>", b.len())),
    }
}
