//! The files a patch changes: Codex's `apply_patch` format (`*** Update
//! File:`, `*** Add File:`, `*** Delete File:`, `*** Move to:`) and unified
//! diffs (`--- a/p`, `+++ b/p`).

use super::as_path;

/// What a patch does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// Created: its old content does not matter.
    Add,
    /// Changed in place: read, then written.
    Update,
    /// Removed: a new version (gone) of a file that was there.
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Patched {
    pub path: String,
    pub change: Change,
}

/// Whether `text` looks like a patch of either format.
pub(super) fn is_patch(text: &str) -> bool {
    text.contains("*** Begin Patch")
        || text.contains("*** Update File:")
        || text.contains("*** Add File:")
        || (text.contains("\n+++ ") && text.contains("--- "))
}

/// Each file `text` changes, once, in order (`⏎` counts as a newline).
pub(super) fn paths(text: &str) -> Vec<Patched> {
    const MARKERS: [(&str, Change); 5] = [
        ("*** Add File:", Change::Add),
        ("*** Move to:", Change::Add),
        ("*** Update File:", Change::Update),
        ("*** Delete File:", Change::Delete),
        ("+++ ", Change::Update),
    ];
    let mut out: Vec<Patched> = Vec::new();
    for line in text.split(['\n', '⏎']) {
        let l = line.trim();
        let Some((p, change)) = MARKERS
            .iter()
            .find_map(|(m, c)| l.strip_prefix(m).map(|p| (p.trim(), *c)))
        else {
            continue;
        };
        // `+++ b/src/a.rs	2024-01-01 ...`: the path, without git's prefix
        // or a timestamp.
        let p = p.split('\t').next().unwrap_or(p);
        let p = if l.starts_with("+++ ") {
            p.strip_prefix("b/").unwrap_or(p)
        } else {
            p
        };
        if let Some(path) = as_path(p)
            && !out.iter().any(|q| q.path == path)
        {
            out.push(Patched { path, change });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_and_unified_patches() {
        let codex = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b\n*** Add File: src/new.rs\n+x\n*** Delete File: old.txt\n*** End Patch";
        assert_eq!(
            paths(codex),
            [
                Patched {
                    path: "src/main.rs".into(),
                    change: Change::Update
                },
                Patched {
                    path: "src/new.rs".into(),
                    change: Change::Add
                },
                Patched {
                    path: "old.txt".into(),
                    change: Change::Delete
                },
            ]
        );
        let unified = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b\n";
        assert!(is_patch(unified));
        assert_eq!(paths(unified)[0].path, "src/lib.rs");
        // A line added by the patch that starts with `++` is no header.
        assert_eq!(paths("*** Update File: a.rs⏎+++ counter⏎").len(), 1);
    }
}
