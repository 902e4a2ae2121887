//! OpenCode's older JSON storage (versions before 1.2):
//! `storage/session/<projectID>/ses_*.json`,
//! `storage/message/<sessionID>/msg_*.json` and
//! `storage/part/<messageID>/prt_*.json`, one record a file.

use std::path::Path;

use serde_json::Value;

use super::{Message, Rows};
use crate::ImportError;
use crate::folder::Listing;

/// True for a storage folder: `session/` and `message/` in it.
pub(crate) fn is_storage(dir: &Path) -> bool {
    dir.join("session").is_dir() && dir.join("message").is_dir()
}

/// The storage folder a session file is in
/// (`<storage>/session/<projectID>/ses_*.json`), if it is in one.
pub(crate) fn root_of(session_file: &Path) -> Option<&Path> {
    let root = session_file.parent()?.parent()?.parent()?;
    let in_sessions = session_file.parent()?.parent()?.file_name()? == "session";
    (in_sessions && is_storage(root)).then_some(root)
}

/// True for the JSON of a session record: an `id` starting `ses_`, a
/// `projectID` and a `time` object.
pub(crate) fn is_session_record(v: &Value) -> bool {
    v.get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.starts_with("ses_"))
        && v.get("projectID").is_some_and(Value::is_string)
        && v.get("time").is_some_and(Value::is_object)
}

/// The `.json` files of a folder of the storage at `root`, sorted by name
/// (OpenCode's ids sort by time), listed by the walker's rules (links
/// only inside the storage folder), with what was left out.
fn json_files(dir: &Path, root: &Path) -> Listing {
    crate::folder::list(dir, root, &crate::folder::with_extension("json"))
}

/// Every session file of a storage folder, with what was left out.
pub(crate) fn session_files(root: &Path) -> Listing {
    let sessions = crate::folder::list(&root.join("session"), root, &|_| false);
    let mut all = Listing {
        skipped: sessions.skipped,
        ..Listing::default()
    };
    for project in &sessions.folders {
        let files = json_files(project, root);
        all.files.extend(files.files);
        all.skipped.extend(files.skipped);
    }
    all
}

fn read_json(path: &Path) -> Result<(Vec<u8>, Value), ImportError> {
    let bytes = crate::read_source(path)?;
    let v = serde_json::from_slice(&bytes).map_err(|e| ImportError::Invalid {
        path: path.to_owned(),
        line: e.line(),
        message: e.to_string(),
    })?;
    Ok((bytes, v))
}

/// The session of `session_file` and its messages and parts.
pub(crate) fn read(session_file: &Path) -> Result<Rows, ImportError> {
    let root = root_of(session_file).ok_or_else(|| ImportError::Unknown {
        path: session_file.to_owned(),
        expected: "an OpenCode session file in storage/session/<projectID>/".into(),
    })?;
    let (mut hashed, info) = read_json(session_file)?;
    let id = info
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut messages = Vec::new();
    let message_files = json_files(&root.join("message").join(&id), root);
    let mut skipped = message_files.skipped;
    for file in message_files.files {
        let (bytes, _) = read_json(&file)?;
        hashed.extend_from_slice(&bytes);
        let text = crate::transcript::utf8(&bytes);
        let mid = file_stem(&file);
        let mut message = Message::new(&mid, &text);
        let part_files = json_files(&root.join("part").join(&mid), root);
        skipped.extend(part_files.skipped);
        for pf in part_files.files {
            let (bytes, _) = read_json(&pf)?;
            hashed.extend_from_slice(&bytes);
            message.push_part(&file_stem(&pf), &crate::transcript::utf8(&bytes));
        }
        messages.push(message);
    }
    // Messages in the order they were made (ids sort by time too).
    messages.sort_by_key(|m| (m.created(), m.id.clone()));
    let mut children = Vec::new();
    // Session files skipped are not this session's: the listing of the
    // storage folder names them.
    for f in session_files(root).files {
        if let Ok((_, v)) = read_json(&f)
            && v.get("parentID").and_then(Value::as_str) == Some(&id)
        {
            children.push(f);
        }
    }
    Ok(Rows {
        info,
        messages,
        hashed,
        children: children
            .into_iter()
            .map(|p| p.display().to_string())
            .collect(),
        skipped,
    })
}

fn file_stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
