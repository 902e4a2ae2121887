//! Listing the files of a sessions directory.

use std::path::{Path, PathBuf};

use super::StoreError;

/// Every `*.md` file below `dir`, in path order, skipping hidden files and
/// folders (`.git`, `.obsidian`, our own temporary files). A directory that
/// does not exist holds no files.
pub fn session_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(d) = pending.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && d == dir => return Ok(out),
            Err(source) => return Err(StoreError::Io { path: d, source }),
        };
        for entry in entries {
            let entry = entry.map_err(|source| StoreError::Io {
                path: d.clone(),
                source,
            })?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            // Symlinked folders are not followed: they could loop.
            if kind.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markdown_in_subfolders_and_skips_hidden() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        for f in [
            "a.md",
            "2025-12/b.md",
            ".hidden/c.md",
            ".d.md",
            "e.txt",
            "x/.obsidian/f.md",
        ] {
            let path = p.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found: Vec<_> = session_files(p)
            .unwrap()
            .into_iter()
            .map(|f| f.strip_prefix(p).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(found, ["2025-12/b.md", "a.md"]);
        assert!(session_files(&p.join("missing")).unwrap().is_empty());
    }
}
