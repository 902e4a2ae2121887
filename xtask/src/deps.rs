//! `cargo xtask deps`: the workspace's dependency arrows are the ones
//! docs/architecture.md draws.
//!
//! The crate table's last column ("depends on") names each crate of the
//! workspace that a crate depends on in backticks (`` `crucible-core` ``);
//! words without backticks are outside dependencies, which are not checked.
//! The arrows that exist are read from `cargo metadata --no-deps` (normal
//! and build dependencies; tests may reach further). A crate that gains an
//! arrow the table does not draw fails the check, and so does an arrow the
//! table draws that no longer exists, so the map stays true both ways.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// Crate name → the workspace crates it depends on.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The document that draws the arrows, relative to the workspace root.
pub const ARCHITECTURE: &str = "docs/architecture.md";

/// One way the drawn graph and the real one differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// `from` depends on `to`, and the table does not say so.
    Undrawn { from: String, to: String },
    /// The table says `from` depends on `to`, and it does not.
    Stale { from: String, to: String },
    /// A workspace crate without a row in the table.
    NoRow { krate: String },
    /// A row for a crate the workspace does not have.
    UnknownRow { krate: String },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Undrawn { from, to } => write!(
                f,
                "`{from}` depends on `{to}`, which {ARCHITECTURE} does not draw \
                 (add it to the row's \"depends on\" column, or remove the dependency)"
            ),
            Self::Stale { from, to } => write!(
                f,
                "{ARCHITECTURE} says `{from}` depends on `{to}`, and it does not"
            ),
            Self::NoRow { krate } => {
                write!(f, "`{krate}` has no row in {ARCHITECTURE}'s crate table")
            }
            Self::UnknownRow { krate } => write!(
                f,
                "{ARCHITECTURE}'s crate table has a row for `{krate}`, which is not in the workspace"
            ),
        }
    }
}

/// Checks the workspace at `root` against its architecture document.
pub fn run(root: &Path) -> anyhow::Result<()> {
    let doc_path = root.join(ARCHITECTURE);
    let doc = std::fs::read_to_string(&doc_path)
        .with_context(|| format!("reading {}", doc_path.display()))?;
    let drawn = drawn_graph(&doc)?;
    let actual = workspace_graph(root)?;
    let mismatches = compare(&actual, &drawn);
    if mismatches.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = mismatches.iter().map(|m| format!("  {m}")).collect();
    bail!(
        "the dependency graph differs from {ARCHITECTURE}:\n{}",
        lines.join("\n")
    )
}

/// The arrows between workspace crates, from `cargo metadata`.
pub fn workspace_graph(root: &Path) -> anyhow::Result<Graph> {
    // `cargo test` and `cargo run` say which cargo is running them.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("reading cargo metadata's JSON")?;
    graph_of_metadata(&meta)
}

/// The graph in `cargo metadata --no-deps` output: every package is a
/// workspace member, and only arrows to members are kept.
pub fn graph_of_metadata(meta: &serde_json::Value) -> anyhow::Result<Graph> {
    let packages = meta["packages"]
        .as_array()
        .context("cargo metadata has no `packages` list")?;
    let members: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut graph = Graph::new();
    for p in packages {
        let name = p["name"].as_str().context("a package without a name")?;
        let deps = graph.entry(name.to_owned()).or_default();
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let Some(dep) = d["name"].as_str() else {
                continue;
            };
            // `kind` is null for normal dependencies; dev-dependencies are
            // for tests and may reach anywhere.
            if d["kind"].as_str() == Some("dev") || !members.contains(dep) {
                continue;
            }
            deps.insert(dep.to_owned());
        }
    }
    Ok(graph)
}

/// The graph the architecture document draws: the `## Crates` table's
/// first column (the crate, in backticks) and last ("depends on": each
/// workspace crate in backticks).
pub fn drawn_graph(doc: &str) -> anyhow::Result<Graph> {
    let mut graph = Graph::new();
    let mut in_crates = false;
    let mut header_seen = false;
    for (i, line) in doc.lines().enumerate() {
        let line_no = i + 1;
        if let Some(heading) = line.strip_prefix("## ") {
            in_crates = heading.trim() == "Crates";
            continue;
        }
        if !in_crates || !line.trim_start().starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if !header_seen {
            // The header row, then the `|---|` row.
            if cells.last().map(|c| c.trim()) != Some("depends on") {
                bail!(
                    "{ARCHITECTURE}:{line_no}: the crate table's last column is not \"depends on\""
                );
            }
            header_seen = true;
            continue;
        }
        if cells
            .iter()
            .all(|c| c.trim().chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        let [first, .., last] = cells.as_slice() else {
            bail!("{ARCHITECTURE}:{line_no}: a crate row needs at least two columns");
        };
        let Some(krate) = backticked(first).into_iter().next() else {
            bail!("{ARCHITECTURE}:{line_no}: the first column does not name a crate in backticks");
        };
        let deps = backticked(last);
        if graph
            .insert(
                krate.to_owned(),
                deps.into_iter().map(str::to_owned).collect(),
            )
            .is_some()
        {
            bail!("{ARCHITECTURE}:{line_no}: a second row for `{krate}`");
        }
    }
    if graph.is_empty() {
        bail!("{ARCHITECTURE}: no crate table under `## Crates`");
    }
    Ok(graph)
}

/// The words between backticks, in order.
fn backticked(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).map(str::trim).collect()
}

/// Every difference between the real graph and the drawn one.
pub fn compare(actual: &Graph, drawn: &Graph) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (krate, deps) in actual {
        let Some(drawn_deps) = drawn.get(krate) else {
            out.push(Mismatch::NoRow {
                krate: krate.clone(),
            });
            continue;
        };
        for to in deps.difference(drawn_deps) {
            out.push(Mismatch::Undrawn {
                from: krate.clone(),
                to: to.clone(),
            });
        }
        for to in drawn_deps.difference(deps) {
            out.push(Mismatch::Stale {
                from: krate.clone(),
                to: to.clone(),
            });
        }
    }
    for krate in drawn.keys().filter(|k| !actual.contains_key(*k)) {
        out.push(Mismatch::UnknownRow {
            krate: krate.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives in the workspace")
            .to_owned()
    }

    fn graph(rows: &[(&str, &[&str])]) -> Graph {
        rows.iter()
            .map(|(k, ds)| (k.to_string(), ds.iter().map(ToString::to_string).collect()))
            .collect()
    }

    const TABLE: &str = "\
# Architecture

## Crates

| crate | room | depends on |
|---|---|---|
| `a` | types (`T`, `U`) | serde |
| `b` | reading | `a`, regex |
| `c` | the binary | `a`, `b` |

Arrows point one way.

## Data flow

| not | a crate | table |
";

    /// The check `cargo test --workspace` runs: the workspace as it is
    /// against the document as it is.
    #[test]
    fn the_workspace_has_exactly_the_drawn_arrows() {
        run(&root()).unwrap();
    }

    #[test]
    fn the_table_reads_as_a_graph_of_backticked_crates() {
        assert_eq!(
            drawn_graph(TABLE).unwrap(),
            graph(&[("a", &[]), ("b", &["a"]), ("c", &["a", "b"])])
        );
    }

    #[test]
    fn an_extra_arrow_is_caught() {
        let drawn = drawn_graph(TABLE).unwrap();
        let actual = graph(&[("a", &["c"]), ("b", &["a"]), ("c", &["a", "b"])]);
        let found = compare(&actual, &drawn);
        assert_eq!(
            found,
            [Mismatch::Undrawn {
                from: "a".into(),
                to: "c".into()
            }]
        );
        assert!(found[0].to_string().contains("`a` depends on `c`"));
    }

    #[test]
    fn a_doctored_table_fails_against_the_real_workspace() {
        // The real document with one arrow taken out of the CLI's row: the
        // real graph now has an arrow the table does not draw.
        let doc = std::fs::read_to_string(root().join(ARCHITECTURE)).unwrap();
        let mut drawn = drawn_graph(&doc).unwrap();
        assert!(
            drawn
                .get_mut("crucible-cli")
                .unwrap()
                .remove("crucible-core")
        );
        let found = compare(&workspace_graph(&root()).unwrap(), &drawn);
        assert_eq!(
            found,
            [Mismatch::Undrawn {
                from: "crucible-cli".into(),
                to: "crucible-core".into()
            }]
        );
    }

    #[test]
    fn stale_arrows_and_missing_or_unknown_rows_are_caught() {
        let drawn = drawn_graph(TABLE).unwrap();
        let actual = graph(&[("a", &[]), ("b", &[]), ("d", &[])]);
        assert_eq!(
            compare(&actual, &drawn),
            [
                Mismatch::Stale {
                    from: "b".into(),
                    to: "a".into()
                },
                Mismatch::NoRow { krate: "d".into() },
                Mismatch::UnknownRow { krate: "c".into() },
            ]
        );
    }

    #[test]
    fn a_table_that_cannot_be_read_names_its_line() {
        let e = drawn_graph("## Crates\n\n| crate | room |\n|---|---|\n").unwrap_err();
        assert!(
            e.to_string().contains(":3: the crate table's last column"),
            "{e}"
        );
        let e =
            drawn_graph("## Crates\n\n| crate | depends on |\n|---|---|\n| a | b |\n").unwrap_err();
        assert!(e.to_string().contains(":5: the first column"), "{e}");
        assert!(drawn_graph("# nothing here\n").is_err());
    }

    #[test]
    fn metadata_keeps_normal_arrows_between_members_only() {
        let meta = serde_json::json!({"packages": [
            {"name": "a", "dependencies": [{"name": "serde", "kind": null}]},
            {"name": "b", "dependencies": [
                {"name": "a", "kind": null},
                {"name": "c", "kind": "dev"},
            ]},
            {"name": "c", "dependencies": [{"name": "a", "kind": "build"}]},
        ]});
        assert_eq!(
            graph_of_metadata(&meta).unwrap(),
            graph(&[("a", &[]), ("b", &["a"]), ("c", &["a"])])
        );
    }
}
