//! Codex's `config.toml`: `notify = ["<cru>", "hook", "codex"]`, a
//! top-level key (Codex runs that program with the notification as its
//! last argument). The rest of the file, comments and order, stays.

use toml_edit::{Array, DocumentMut, Item, Value};

use super::{Edit, is_cru_program};

/// Why the file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum CodexConfigError {
    #[error("not valid TOML: {0}")]
    Invalid(String),
    #[error(
        "`notify` is already set to {0}; Codex runs one notify program, and cru does not replace another's (use --force to replace it, a backup is kept)"
    )]
    OtherNotify(String),
}

fn parse(text: &str) -> Result<DocumentMut, CodexConfigError> {
    text.parse::<DocumentMut>()
        .map_err(|e| CodexConfigError::Invalid(e.to_string().trim().to_owned()))
}

/// The `notify` array as strings, if it is one.
fn words(item: &Item) -> Option<Vec<String>> {
    item.as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// True for a notify of cru's (from any path of its binary).
pub fn is_ours(words: &[String]) -> bool {
    matches!(words, [program, hook, codex] if hook == "hook" && codex == "codex" && is_cru_program(program))
}

/// Whether `text` (a `config.toml`) has cru as Codex's notify program.
pub fn is_installed(text: &str) -> bool {
    parse(text)
        .ok()
        .and_then(|doc| doc.get("notify").and_then(words))
        .is_some_and(|w| is_ours(&w))
}

/// `text` with cru as Codex's notify program. Another program's notify is
/// refused unless `force`.
pub fn install(text: &str, program: &str, force: bool) -> Result<Edit, CodexConfigError> {
    let mut doc = parse(text)?;
    let want = [program, "hook", "codex"];
    if let Some(item) = doc.get("notify") {
        let current = words(item);
        if current
            .as_deref()
            .is_some_and(|w| w.iter().map(String::as_str).eq(want))
        {
            return Ok(Edit::Unchanged);
        }
        if !force && !current.as_deref().is_some_and(is_ours) {
            return Err(CodexConfigError::OtherNotify(
                item.to_string().trim().to_owned(),
            ));
        }
    }
    let array: Array = want.iter().copied().collect();
    match doc.get_mut("notify").and_then(Item::as_value_mut) {
        // Replaced in place: the comment before it stays.
        Some(v) => {
            let decor = v.decor().clone();
            *v = Value::Array(array);
            *v.decor_mut() = decor;
        }
        None => {
            doc.insert("notify", toml_edit::value(array));
        }
    }
    Ok(Edit::Changed(doc.to_string()))
}

/// `text` without cru's notify (another program's stays).
pub fn remove(text: &str) -> Result<Edit, CodexConfigError> {
    let mut doc = parse(text)?;
    if doc
        .get("notify")
        .and_then(words)
        .is_some_and(|w| is_ours(&w))
    {
        doc.remove("notify");
        Ok(Edit::Changed(doc.to_string()))
    } else {
        Ok(Edit::Unchanged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRU: &str = "/opt/bin/cru";

    #[test]
    fn notify_is_added_once_beside_the_rest_and_taken_out_again() {
        let before = "# my codex\nmodel = \"o3\"\n\n[mcp_servers.x]\ncommand = \"x\"\n";
        let Edit::Changed(after) = install(before, CRU, false).unwrap() else {
            panic!("no change")
        };
        assert!(after.starts_with("# my codex\nmodel = \"o3\"\n"), "{after}");
        assert!(
            after.contains(r#"notify = ["/opt/bin/cru", "hook", "codex"]"#),
            "{after}"
        );
        assert!(after.contains("[mcp_servers.x]\ncommand = \"x\"\n"));
        let doc: DocumentMut = after.parse().unwrap();
        assert!(
            doc.get("notify").is_some(),
            "a top-level key, not the table's"
        );
        assert_eq!(install(&after, CRU, false).unwrap(), Edit::Unchanged);
        let Edit::Changed(back) = remove(&after).unwrap() else {
            panic!("not removed")
        };
        assert_eq!(back, before);
    }

    #[test]
    fn another_notify_is_refused_unless_forced() {
        let other = "notify = [\"notify-send\", \"codex\"]\n";
        assert!(matches!(
            install(other, CRU, false),
            Err(CodexConfigError::OtherNotify(s)) if s.contains("notify-send")
        ));
        let Edit::Changed(forced) = install(other, CRU, true).unwrap() else {
            panic!()
        };
        assert!(forced.contains("/opt/bin/cru"));
        assert_eq!(remove(other).unwrap(), Edit::Unchanged);
        let moved = install("notify = [\"/old/cru\", \"hook\", \"codex\"]\n", CRU, false).unwrap();
        assert!(matches!(moved, Edit::Changed(t) if t.contains(CRU)));
        assert!(matches!(
            install("a = ", CRU, false),
            Err(CodexConfigError::Invalid(_))
        ));
    }
}
