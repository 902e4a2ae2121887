//! `cargo xtask learn-check`: the learning-case exports loaded by a real
//! reader, Hugging Face `datasets` (what TRL and Axolotl load data with),
//! for each JSONL schema, on the fixtures and on a generated corpus.
//!
//! The Rust tests check each line against the trainers' rules; this checks
//! what those cannot: that the lines together make one table (the same
//! types in the same columns across every line), which is how `datasets`
//! reads JSONL.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::corpus::{CorpusSpec, ensure};

const LOADER: &str = r#"
import json, sys
import datasets
path, expected = sys.argv[1], int(sys.argv[2])
d = datasets.load_dataset("json", data_files=path, split="train")
assert d.num_rows == expected, f"{path}: {d.num_rows} rows, {expected} lines"
print(f"{path}: {d.num_rows} rows, columns {d.column_names}")
"#;

/// Whether python3 can import `datasets`.
pub fn reader_available() -> bool {
    Command::new("python3")
        .args(["-c", "import datasets"])
        .output()
        .is_ok_and(|o| o.status.success())
}

pub fn run(root: &Path) -> anyhow::Result<()> {
    if !reader_available() {
        bail!("python3 with the `datasets` package is needed (pip install datasets)");
    }
    let cru = crate::cru_binary::debug(root)?;
    let scratch = tempfile::tempdir()?;
    let generated = scratch.path().join("generated");
    ensure(
        &generated,
        &CorpusSpec {
            sessions: 200,
            min_bytes: 1024,
            max_bytes: 8 * 1024,
            seed: 7,
        },
    )?;
    let fixtures = scratch.path().join("fixtures");
    std::fs::create_dir_all(&fixtures)?;
    for f in crucible_core::store::session_files(&root.join("fixtures/sessions"))? {
        std::fs::copy(&f, fixtures.join(f.file_name().context("a file name")?))?;
    }
    for (name, dir) in [("fixtures", &fixtures), ("generated", &generated)] {
        for schema in ["sft", "dpo", "sharegpt"] {
            let out = scratch.path().join(format!("{name}-{schema}.jsonl"));
            let status = Command::new(&cru)
                .arg("--dir")
                .arg(dir)
                .args([
                    "session", "learn", "--export", "jsonl", "--schema", schema, "--output",
                ])
                .arg(&out)
                .status()?;
            anyhow::ensure!(
                status.success(),
                "cru session learn failed on {name} ({schema})"
            );
            let lines = std::fs::read_to_string(&out)?.lines().count();
            anyhow::ensure!(lines > 0, "{name} ({schema}): no lines");
            let check = Command::new("python3")
                .args(["-c", LOADER])
                .arg(&out)
                .arg(lines.to_string())
                .status()?;
            anyhow::ensure!(check.success(), "datasets could not load {name} ({schema})");
        }
    }
    println!("learn-check: every schema loads with datasets");
    Ok(())
}
