//! Codex's `config.toml`: `notify = ["<cru>", "hook", "codex"]`, a
//! top-level key (Codex runs that program with the notification as its
//! last argument). The rest of the file, comments and order, stays.

use toml_edit::{Array, DocumentMut, Item, Value};

use super::{Edit, hook_program};

/// The agent cru's notify names.
const AGENT: &str = "codex";

/// The start of each comment line that keeps the notify `--force`
/// replaced, above cru's own, for `--remove` to put back.
const REPLACED: &str = "# cru setup codex --force replaced: ";

/// Why the file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub enum CodexConfigError {
    #[error("not valid TOML: {0}")]
    Invalid(String),
    #[error(
        "`notify` is already set to {0}; Codex runs one notify program, and cru does not replace another's (use --force to replace it: it is kept in a comment, and --remove puts it back)"
    )]
    OtherNotify(String),
}

/// `doc` written out with the line ends of `text`: toml_edit ends each line
/// it writes with `\n`, and a file written with `\r\n` keeps them.
pub(crate) fn written(doc: &DocumentMut, text: &str) -> Edit {
    let out = doc.to_string();
    Edit::Changed(if text.contains("\r\n") {
        out.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        out
    })
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

/// True for a notify of cru's, known by its shape
/// (`[<any program>, <cru's global flags>…, "hook", "codex"]`).
pub fn is_ours(words: &[String]) -> bool {
    hook_program(words, AGENT).is_some()
}

/// Whether `text` (a `config.toml`) has cru as Codex's notify program.
pub fn is_installed(text: &str) -> bool {
    parse(text)
        .ok()
        .and_then(|doc| doc.get("notify").and_then(words))
        .is_some_and(|w| is_ours(&w))
}

/// Another program's notify in `text`, as written (without its comment):
/// what `install` refuses to replace unless forced.
pub fn other_notify(text: &str) -> Option<String> {
    let doc = parse(text).ok()?;
    let item = doc.get("notify")?;
    if words(item).is_some_and(|w| is_ours(&w)) {
        return None;
    }
    let mut value = item.as_value()?.clone();
    value.decor_mut().clear();
    Some(value.to_string())
}

/// The comment lines in `decor` that keep a replaced notify, and its line.
fn replaced_line(prefix: &str) -> Option<String> {
    let lines: Vec<&str> = prefix
        .lines()
        .filter_map(|l| l.strip_prefix(REPLACED))
        .collect();
    let newline = if prefix.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    (!lines.is_empty()).then(|| lines.join(newline))
}

/// The notify `--force` replaced, kept in `text` for `remove` to put back.
pub fn replaced_notify(text: &str) -> Option<String> {
    let doc = parse(text).ok()?;
    let (key, item) = doc.get_key_value("notify")?;
    if !words(item).is_some_and(|w| is_ours(&w)) {
        return None;
    }
    replaced_line(key.leaf_decor().prefix()?.as_str()?)
}

/// `text` with cru (`words`: its program, flags and `hook codex`) as
/// Codex's notify program. Another program's notify is refused unless
/// `force`; then its line is kept in comment lines above cru's.
pub fn install(text: &str, want: &[String], force: bool) -> Result<Edit, CodexConfigError> {
    let mut doc = parse(text)?;
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let array: Array = want.iter().map(String::as_str).collect();
    let Some((mut key, item)) = doc.get_key_value_mut("notify") else {
        doc.insert("notify", toml_edit::value(array));
        return Ok(written(&doc, text));
    };
    let current = words(item);
    if current.as_deref() == Some(want) {
        return Ok(Edit::Unchanged);
    }
    let ours = current.as_deref().is_some_and(is_ours);
    let Some(value) = item.as_value_mut() else {
        return Err(CodexConfigError::OtherNotify(
            item.to_string().trim().to_owned(),
        ));
    };
    if !ours {
        if !force {
            let mut bare = value.clone();
            bare.decor_mut().clear();
            return Err(CodexConfigError::OtherNotify(bare.to_string()));
        }
        // The user's line, its comment with it, goes into comment lines
        // above cru's: nothing of it stays on cru's line.
        let equals = key
            .leaf_decor()
            .suffix()
            .and_then(|s| s.as_str())
            .unwrap_or(" ");
        let line = format!("notify{equals}={value}");
        let decor = key.leaf_decor_mut();
        let mut prefix = decor
            .prefix()
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .to_owned();
        for l in line.lines() {
            prefix.push_str(&format!("{REPLACED}{l}{newline}"));
        }
        decor.set_prefix(prefix);
    }
    let prefix = value.decor().prefix().cloned();
    *value = Value::Array(array);
    if let Some(p) = prefix {
        value.decor_mut().set_prefix(p);
    }
    Ok(written(&doc, text))
}

/// `text` without cru's notify: the one `--force` replaced is put back
/// where it was (from the comment lines above cru's), else the key goes.
/// Another program's notify stays.
pub fn remove(text: &str) -> Result<Edit, CodexConfigError> {
    let mut doc = parse(text)?;
    let Some((mut key, item)) = doc.get_key_value_mut("notify") else {
        return Ok(Edit::Unchanged);
    };
    if !words(item).is_some_and(|w| is_ours(&w)) {
        return Ok(Edit::Unchanged);
    }
    let prefix = key
        .leaf_decor()
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_owned();
    let old = replaced_line(&prefix).and_then(|line| line.parse::<DocumentMut>().ok());
    let old_value = old
        .as_ref()
        .and_then(|d| d.get("notify"))
        .and_then(Item::as_value)
        .cloned();
    match (old_value, item.as_value_mut()) {
        (Some(old_value), Some(value)) => {
            let kept: String = prefix
                .split_inclusive('\n')
                .filter(|l| !l.starts_with(REPLACED))
                .collect();
            key.leaf_decor_mut().set_prefix(kept);
            *value = old_value;
        }
        _ => {
            doc.remove("notify");
        }
    }
    Ok(written(&doc, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRU: &str = "/opt/bin/cru";

    fn cru() -> Vec<String> {
        super::super::hook_words(CRU, None, "codex")
    }

    #[test]
    fn notify_is_added_once_beside_the_rest_and_taken_out_again() {
        let before = "# my codex\nmodel = \"o3\"\n\n[mcp_servers.x]\ncommand = \"x\"\n";
        let Edit::Changed(after) = install(before, &cru(), false).unwrap() else {
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
        assert_eq!(install(&after, &cru(), false).unwrap(), Edit::Unchanged);
        let Edit::Changed(back) = remove(&after).unwrap() else {
            panic!("not removed")
        };
        assert_eq!(back, before);
    }

    #[test]
    fn another_notify_is_refused_unless_forced() {
        let other = "notify = [\"notify-send\", \"codex\"]\n";
        assert!(matches!(
            install(other, &cru(), false),
            Err(CodexConfigError::OtherNotify(s)) if s.contains("notify-send")
        ));
        let Edit::Changed(forced) = install(other, &cru(), true).unwrap() else {
            panic!()
        };
        assert!(forced.contains("/opt/bin/cru"));
        assert_eq!(remove(other).unwrap(), Edit::Unchanged);
        let moved = install(
            "notify = [\"/old/cru\", \"hook\", \"codex\"]\n",
            &cru(),
            false,
        )
        .unwrap();
        assert!(matches!(moved, Edit::Changed(t) if t.contains(CRU)));
        assert!(matches!(
            install("a = ", &cru(), false),
            Err(CodexConfigError::Invalid(_))
        ));
    }

    #[test]
    fn a_forced_notify_is_kept_in_a_comment_and_put_back_by_remove() {
        for before in [
            "model = \"o3\"\n# ping me\nnotify = [\"notify-send\", \"codex\"]   # desktop ping\n\n[tui]\nx = 1\n",
            "notify = [\r\n  \"notify-send\",\r\n  \"codex\",\r\n]\r\nmodel = \"o3\"\r\n",
            "notify = [\"notify-send\", \"codex\"]   # desktop ping\n",
            "[tui]\nx = 1\n",
        ] {
            if !before.contains("notify") {
                continue;
            }
            assert!(matches!(
                install(before, &cru(), false),
                Err(CodexConfigError::OtherNotify(s)) if s.starts_with('[') && !s.contains('#')
            ));
            let Edit::Changed(forced) = install(before, &cru(), true).unwrap() else {
                panic!()
            };
            let cru_line = forced.lines().find(|l| l.starts_with("notify")).unwrap();
            assert_eq!(
                cru_line, r#"notify = ["/opt/bin/cru", "hook", "codex"]"#,
                "{forced}"
            );
            assert!(forced.contains(REPLACED), "{forced}");
            assert!(replaced_notify(&forced).unwrap().contains("notify-send"));
            assert!(is_installed(&forced));
            let Edit::Changed(back) = remove(&forced).unwrap() else {
                panic!()
            };
            assert_eq!(back, before);
        }
    }

    #[test]
    fn a_cru_notify_with_flags_or_another_name_is_cru_s() {
        let text = "notify = [\"/x/cru-dev\", \"--dir\", \"/s\", \"hook\", \"codex\"]\n";
        assert!(is_installed(text));
        assert_eq!(remove(text).unwrap(), Edit::Changed(String::new()));
        assert!(matches!(install(text, &cru(), false), Ok(Edit::Changed(t)) if t.contains(CRU)));
    }
}
