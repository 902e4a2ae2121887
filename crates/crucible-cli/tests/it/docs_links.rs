//! The docs are complete on their own: every link in README.md and docs/
//! leads to a page on the web or to a file of this repository that exists,
//! and no text points at a file beside the repository (`../shared/...`).
//! Links to headings are not checked: only that the file is there.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// README.md and every markdown file under docs/.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The targets of `[text](target)` links and of relative paths written as
/// text (`../x`), outside fenced code blocks, with their line numbers.
fn references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push((i + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
        // A path in the text that climbs out of its folder into another
        // (`../shared/design.md`); a lone `../x` is an example of a name,
        // as in the pages on hostile files.
        for (at, _) in line.match_indices("../") {
            let starts_word = at == 0
                || line[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c == '`' || c == ' ');
            let path: String = line[at..]
                .chars()
                .take_while(|c| !matches!(c, '`' | ' ' | ')' | ',' | ';'))
                .collect();
            if starts_word && path.trim_start_matches("../").contains('/') {
                out.push((i + 1, path));
            }
        }
    }
    out
}

/// Why `target`, referenced from `page`, is not a page of its own: `None`
/// when it is fine.
fn offence(root: &Path, page: &Path, target: &str) -> Option<String> {
    let target = target.split_whitespace().next().unwrap_or("");
    if target.is_empty()
        || target.starts_with('#')
        || ["http://", "https://", "mailto:"]
            .iter()
            .any(|s| target.starts_with(s))
    {
        return None;
    }
    let file = target.split('#').next().unwrap();
    let resolved = page.parent().unwrap().join(file);
    let Ok(real) = resolved.canonicalize() else {
        return Some(format!("`{target}` does not exist"));
    };
    (!real.starts_with(root)).then(|| format!("`{target}` is outside the repository"))
}

#[test]
fn every_link_in_the_docs_stays_inside_the_repository() {
    let root = repo();
    let mut bad = Vec::new();
    for page in pages(&root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, target) in references(&text) {
            if let Some(why) = offence(&root, &page, &target) {
                let rel = page.strip_prefix(&root).unwrap().display().to_string();
                bad.push(format!("{rel}:{line}: {why}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_reference_beside_the_repository_is_caught() {
    let root = repo();
    let page = root.join("docs/architecture.md");
    let refs = references("See `../shared/design.md` and [x](../../etc/passwd).\n");
    let found: Vec<Option<String>> = refs.iter().map(|(_, t)| offence(&root, &page, t)).collect();
    assert_eq!(found.len(), 2, "{refs:?}");
    assert!(found.iter().all(Option::is_some), "{found:?}");
    assert_eq!(offence(&root, &page, "recording.md#when"), None);
    assert_eq!(offence(&root, &page, "https://example.com/x"), None);
}
