//! `cru session search` over sessions imported from real Claude Code and
//! Codex files (`fixtures/real/`, written by those tools, collected from
//! public repositories): every hit names a line of its file that holds
//! the word, and every imported session whose markdown shows the word as
//! text is found.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::kiln::{TestKiln, fixtures};

/// The lines of a session's markdown that are searched as text: outside
/// the frontmatter and the HTML comments cru keeps metadata in.
fn text_lines(markdown: &str) -> Vec<(usize, &str)> {
    let mut lines = markdown.lines().enumerate();
    let mut out = Vec::new();
    if markdown.starts_with("---") {
        lines.next();
        for (_, l) in lines.by_ref() {
            if l == "---" {
                break;
            }
        }
    }
    let mut in_comment = false;
    for (i, l) in lines {
        let t = l.trim_start();
        if in_comment || t.starts_with("<!--") {
            in_comment = !l.contains("-->");
            continue;
        }
        out.push((i + 1, l));
    }
    out
}

/// Sessions are compared by file name: the hits name the directory as
/// cru resolved it.
fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Whether `line` holds `word` as a whole word (ASCII letters, any case).
fn holds_word(line: &str, word: &str) -> bool {
    let lower = line.to_lowercase();
    lower.match_indices(word).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Whether cru's tokenizer finds `word` in `line` (a part of a compound).
fn holds_token(line: &str, word: &str) -> bool {
    crucible_search::tokenizer::tokens(line)
        .iter()
        .any(|t| t.text == word)
}

/// Lower-case words of 7 to 12 ASCII letters, with the sessions showing
/// each in their text.
fn words_by_session(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut by_word: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let file = name_of(&path);
        for (_, line) in text_lines(&text) {
            for w in line.split(|c: char| !c.is_ascii_alphabetic()) {
                if (7..=12).contains(&w.len()) && holds_word(line, &w.to_lowercase()) {
                    by_word
                        .entry(w.to_lowercase())
                        .or_default()
                        .insert(file.clone());
                }
            }
        }
    }
    by_word
}

#[test]
fn every_hit_in_imported_real_sessions_names_a_line_holding_the_word() {
    let kiln = TestKiln::empty();
    for source in ["real/claude-code", "real/codex"] {
        let src = fixtures().join(source);
        let out = kiln.run(&["session", "import", &src.display().to_string()]);
        assert!(out.code == 0 || out.code == 3, "{}", out.stderr);
    }
    let by_word = words_by_session(&kiln.sessions());
    assert!(by_word.len() > 200, "{} words", by_word.len());
    // Every 25th word, so the test stays quick: words in one session and
    // words in many.
    let mut checked = 0;
    for (word, expected) in by_word.iter().step_by(25) {
        let out = kiln.run(&[
            "session",
            "search",
            word,
            "--limit",
            "0",
            "--per-session",
            "1000",
            "--format",
            "json",
        ]);
        assert_eq!(out.code, 0, "{word}: {}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        let hits = v["hits"].as_array().unwrap();
        let found: BTreeSet<String> = hits
            .iter()
            .map(|h| name_of(Path::new(h["file"].as_str().unwrap())))
            .collect();
        let missing: Vec<_> = expected.difference(&found).collect();
        assert!(missing.is_empty(), "{word}: not found in {missing:?}");
        // Each hit names a line of its file; a session showing the word
        // has a hit at a line that shows it (a part found only by its
        // sidecar's full results points at its phase's first line).
        let mut shown = BTreeSet::new();
        for hit in hits {
            let file = hit["file"].as_str().unwrap();
            let line = usize::try_from(hit["line"].as_u64().unwrap()).unwrap();
            let text =
                std::fs::read_to_string(kiln.sessions().join(name_of(Path::new(file)))).unwrap();
            let at = text.lines().nth(line - 1);
            assert!(at.is_some(), "{word}: {file}:{line} is past the end");
            if holds_word(at.unwrap(), word) || holds_token(at.unwrap(), word) {
                shown.insert(name_of(Path::new(file)));
            }
        }
        // (A line shows the word as rg -w finds it, or as a part of a word
        // such as `createdAt`, which cru splits: docs/search.md.)
        let unshown: Vec<_> = expected.difference(&shown).collect();
        assert!(
            unshown.is_empty(),
            "{word}: no hit at a line showing it in {unshown:?}"
        );
        checked += 1;
    }
    assert!(checked > 10, "{checked} words checked");
}
