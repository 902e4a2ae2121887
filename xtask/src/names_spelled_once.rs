//! Each kind of file cru keeps in a sessions directory has one name,
//! spelled in `crucible_core::store::names` and nowhere else: a crate that
//! spells one itself would drift from the others the day it changes.

use std::path::{Path, PathBuf};

/// The names (and name endings) of `crucible_core::store::names`.
const NAMES: &[&str] = &[
    ".cru.lock",
    ".index.toon",
    ".index-phases.toon",
    ".index-delta.toon",
    ".index-usage.toon",
    ".index-rollup.toon",
    ".search",
    ".search.lock",
    ".cru-watch",
    ".import-state.json",
    ".import.lock",
    ".capture",
    ".hook-errors.jsonl",
    ".journal",
    ".data.jsonl",
    ".refine-rejected.md",
    ".tmp",
];

/// The one file allowed to spell them.
const OWNER: &str = "crates/crucible-core/src/store/names.rs";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of a line of code (not of a comment), roughly: what
/// lies between pairs of double quotes.
fn literals(line: &str) -> impl Iterator<Item = &str> {
    let code = if line.trim_start().starts_with("//") {
        ""
    } else {
        line
    };
    code.split('"').skip(1).step_by(2)
}

/// Where `text` (the source of `rel`) spells one of the names outside its
/// unit tests, which may spell a name to check it.
fn offences(rel: &str, text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for lit in literals(line) {
            if let Some(name) = NAMES.iter().find(|name| lit.contains(*name)) {
                out.push(format!("{rel}:{}: spells `{name}`", n + 1));
            }
        }
    }
    out
}

#[test]
fn names_are_spelled_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for dir in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&dir.path().join("src"), &mut files);
    }
    rust_files(&root.join("xtask/src"), &mut files);
    assert!(files.len() > 50, "the crates' sources were not found");
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if rel == OWNER || rel.ends_with("names_spelled_once.rs") {
            continue;
        }
        bad.extend(offences(&rel, &std::fs::read_to_string(&f).unwrap()));
    }
    assert!(
        bad.is_empty(),
        "use crucible_core::store::names instead:\n{}",
        bad.join("\n")
    );
    // The owner spells each of them.
    let owner = std::fs::read_to_string(root.join(OWNER)).unwrap();
    for name in NAMES {
        assert!(
            owner.contains(&format!("\"{name}\"")),
            "{OWNER} lost {name}"
        );
    }
}

#[test]
fn a_name_spelled_elsewhere_is_caught_but_not_in_comments_or_tests() {
    let text = "// writes .cru.lock\nlet p = dir.join(\".cru.lock\");\n#[cfg(test)]\nlet t = \".a.journal\";\n";
    assert_eq!(offences("x.rs", text), ["x.rs:2: spells `.cru.lock`"]);
}
