//! The sessions cru made, as `list --format json` and `show --format
//! json` answer, and their sidecars.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kiln::TestKiln;

/// One cru session as `show --format json` and `list --format json` see it.
pub(super) struct Made {
    pub(super) id: String,
    pub(super) path: PathBuf,
    pub(super) parent: Option<String>,
    pub(super) import_id: Option<String>,
    pub(super) shown: Value,
    pub(super) listed: Value,
}

impl Made {
    pub(super) fn calls(&self) -> Vec<&Value> {
        let sections = self.shown["session"]["sections"].as_array().unwrap();
        sections
            .iter()
            .flat_map(|s| s["blocks"].as_array().unwrap())
            .filter(|b| b["type"] == "tool_calls")
            .flat_map(|b| b["calls"].as_array().unwrap())
            .collect()
    }

    pub(super) fn quotes(&self) -> Vec<&str> {
        let sections = self.shown["session"]["sections"].as_array().unwrap();
        sections
            .iter()
            .flat_map(|s| s["blocks"].as_array().unwrap())
            .filter_map(|b| b["user"]["quote"].as_str())
            .collect()
    }
}

pub(super) fn json_of(kiln: &TestKiln, args: &[&str]) -> Value {
    let out = kiln.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Every session in the kiln.
pub(super) fn made(kiln: &TestKiln) -> Vec<Made> {
    let list = json_of(kiln, &["session", "list", "--format", "json"]);
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|listed| {
            let id = listed["id"].as_str().unwrap().to_owned();
            let shown = json_of(kiln, &["session", "show", &id, "--format", "json"]);
            let extra = &shown["session"]["frontmatter"]["extra"];
            Made {
                // `run` wrote the kiln's root as `[KILN]`.
                path: kiln.sessions().join(
                    Path::new(shown["path"].as_str().unwrap())
                        .file_name()
                        .unwrap(),
                ),
                parent: listed["parent"].as_str().map(str::to_owned),
                import_id: extra["import"]["id"].as_str().map(str::to_owned),
                id,
                shown,
                listed: listed.clone(),
            }
        })
        .collect()
}

/// The calls the session's sidecar holds, by id: their arguments and result.
pub(super) fn sidecar_calls(session: &Path) -> BTreeMap<String, (Value, Value)> {
    let Ok(text) = std::fs::read_to_string(crucible_core::data_path(session)) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "call")
        .filter_map(|r| {
            let id = r["id"].as_str()?.to_owned();
            Some((id, (r["arguments"].clone(), r["result"].clone())))
        })
        .collect()
}

/// A word of `text` to search for: its longest plain word.
pub(super) fn search_word(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 5)
        .max_by_key(|w| w.len())
}
