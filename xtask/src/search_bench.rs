//! Search at 100,000 sessions (issue 20): `cru session search` against
//! `rg -l -i -w` over the same files, whole processes, warm page cache,
//! best of several runs; and the build of the search index against
//! tantivy's own indexing speed on the same text.
//!
//! The baselines of the build are tantivy with its default schema and
//! tokenizer (one text field, positions kept), fed either the session files
//! as they are (one document per file, read as it goes), or the very text
//! cru indexes (every part of every session, as `crucible-search` extracts
//! it, read from one file prepared beforehand): what tantivy costs with
//! nothing of ours around it. cru's build is a whole process from no index:
//! the walk, reading and parsing the files, our schema and tokenizer.

use std::fmt::Write as _;
use std::io::{BufRead as _, Write as _};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use crucible_core::SessionStore;
use crucible_parser::MarkdownCodec;

use crate::index_bench::{Measured, mb, measure, measure_each, ms, which};

/// The common word: in nearly every session of the generated corpus, so
/// the worst case for both (rg stops at the first match in each file).
const COMMON_WORD: &str = "flaky";
/// A phrase of three words, in a few hundred sessions of the 100,000.
const PHRASE: &str = "atomic decision migration";

fn size_of_tree(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| size_of_tree(&e.path()))
            .sum()
    } else {
        meta.len()
    }
}

/// The text `crucible-search` indexes of every session in `dir`, one part
/// per record (NUL-separated), written to `out`; its size in bytes.
fn extract_text(dir: &Path, out: &Path) -> anyhow::Result<u64> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
    let mut bytes = 0;
    for path in crucible_core::store::session_files(dir)? {
        let raw = std::fs::read(&path)?;
        let Ok(log) = crucible_parser::read::full(&path, &raw) else {
            continue;
        };
        let doc = crucible_search::document::session_doc(&log, &String::from_utf8_lossy(&raw));
        for part in &doc.parts {
            for field in [
                &part.text,
                &part.tool,
                &part.decision,
                &part.error,
                &part.user,
            ] {
                w.write_all(field.as_bytes())?;
                w.write_all(b"\n")?;
                bytes += field.len() as u64 + 1;
            }
            w.write_all(b"\0")?;
        }
    }
    w.flush()?;
    Ok(bytes)
}

/// Tantivy alone, with its default schema and tokenizer and the memory
/// budget cru's rebuild uses, into `scratch`: the time to index `docs`
/// (read as they are taken) and commit.
fn tantivy_alone(
    scratch: &Path,
    docs: impl Iterator<Item = anyhow::Result<String>>,
) -> anyhow::Result<Duration> {
    use tantivy::schema::{Schema, TEXT};
    let _ = std::fs::remove_dir_all(scratch);
    std::fs::create_dir_all(scratch)?;
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", TEXT);
    let index = tantivy::Index::create_in_dir(scratch, schema.build())?;
    let started = Instant::now();
    let mut writer: tantivy::IndexWriter = index.writer(crucible_search::index::WRITER_BYTES)?;
    for doc in docs {
        writer.add_document(tantivy::doc!(body => doc?))?;
    }
    writer.commit()?;
    writer.wait_merging_threads()?;
    let took = started.elapsed();
    let _ = std::fs::remove_dir_all(scratch);
    Ok(took)
}

/// The parts in `text` (as [`extract_text`] wrote them), one by one.
fn parts_of(text: &Path) -> anyhow::Result<impl Iterator<Item = anyhow::Result<String>>> {
    let mut reader = std::io::BufReader::new(std::fs::File::open(text)?);
    Ok(std::iter::from_fn(move || {
        let mut part = Vec::new();
        match reader.read_until(0, &mut part) {
            Ok(0) => None,
            Ok(_) => Some(Ok(String::from_utf8_lossy(
                part.strip_suffix(b"\0").unwrap_or(&part),
            )
            .into_owned())),
            Err(e) => Some(Err(e.into())),
        }
    }))
}

/// A word of one session's title (`Synthetic task N`): in that session's
/// text and, as a number, in a few usage records elsewhere.
fn rare_word(dir: &Path) -> anyhow::Result<String> {
    let files = crucible_core::store::session_files(dir)?;
    let middle = files.get(files.len() / 2).context("empty corpus")?;
    let text = std::fs::read_to_string(middle)?;
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("title: "))
        .context("a title in the corpus")?;
    title
        .split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .map(str::to_owned)
        .context("a number in the title")
}

/// Saves one session through cru's store (an atomic rename, as every
/// save is), so the next search must catch up.
fn save_one(dir: &Path, path: &Path) -> anyhow::Result<()> {
    let store = SessionStore::new(dir, MarkdownCodec);
    let mut log = store.load_path(path)?;
    log.frontmatter.title = Some(match log.frontmatter.title.take() {
        Some(t) if t.ends_with('.') => t.trim_end_matches('.').to_owned(),
        Some(t) => format!("{t}."),
        None => "Saved again".to_owned(),
    });
    store.save(&log)?;
    Ok(())
}

/// `cru session search WORD --limit 10 --dir D`.
fn search_args<'a>(query: &'a str, d: &'a str) -> [&'a str; 7] {
    ["session", "search", query, "--limit", "10", "--dir", d]
}

fn row(
    out: &mut String,
    name: &str,
    m: &Measured,
    rg: Option<f64>,
    target: &str,
) -> anyhow::Result<()> {
    let speedup = rg.map_or(String::new(), |r| {
        format!(" ({:.1}× faster than rg)", r / ms(m.best))
    });
    writeln!(
        out,
        "| {name} | {:.0} ms{speedup} | {} | {target} |",
        ms(m.best),
        mb(m)
    )?;
    Ok(())
}

/// The search rows of `cargo xtask bench`, over the corpus in `dir`.
pub fn run(cru: &Path, dir: &Path, scratch: &Path, runs: usize) -> anyhow::Result<String> {
    let d = dir.to_str().context("corpus path is not UTF-8")?;
    let files = crucible_core::store::session_files(dir)?;
    let bytes: u64 = files
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut out = String::new();
    writeln!(
        out,
        "search corpus: {d} ({} sessions, {:.0} MB)",
        files.len(),
        bytes as f64 / 1e6
    )?;
    writeln!(out, "| operation | time | peak memory | target |")?;
    writeln!(out, "|---|---:|---:|---|")?;
    build_rows(&mut out, cru, dir, scratch, bytes)?;
    let rg_common = query_rows(&mut out, cru, dir, &files, runs)?;
    watched_rows(&mut out, cru, dir, &files, runs, rg_common, scratch)?;
    Ok(out)
}

/// A `cru watch` of the sessions directory, stopped (SIGTERM, as Ctrl-C
/// would) when dropped.
struct Watcher(std::process::Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.0.id()) {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
        let _ = self.0.wait();
    }
}

/// Starts `cru watch` on `dir` (its own empty HOME, so no agent store is
/// watched) and waits until reads trust it: it has caught up and beats.
fn start_watcher(cru: &Path, dir: &Path, scratch: &Path) -> anyhow::Result<Watcher> {
    use crucible_index::watcher::WatcherHeartbeat;
    let home = scratch.join("watch-home");
    std::fs::create_dir_all(&home)?;
    let child = std::process::Command::new(cru)
        .arg("--dir")
        .arg(dir)
        .arg("watch")
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_DATA_HOME")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let watcher = Watcher(child);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(beat)) = WatcherHeartbeat::read(dir)
            && beat.is_trusted(std::time::SystemTime::now())
            && beat.applied == beat.received
        {
            return Ok(watcher);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    anyhow::bail!("cru watch was not trusted within 10 minutes")
}

/// The queries again with `cru watch` running: a search it vouches for
/// skips the `stat` of every file.
fn watched_rows(
    out: &mut String,
    cru: &Path,
    dir: &Path,
    files: &[std::path::PathBuf],
    runs: usize,
    rg_common: Option<f64>,
    scratch: &Path,
) -> anyhow::Result<()> {
    let d = dir.to_str().context("corpus path is not UTF-8")?;
    let _watcher = start_watcher(cru, dir, scratch)?;
    let m = measure(cru, &search_args(COMMON_WORD, d), runs)?.context("cru")?;
    row(
        out,
        &format!("`cru session search {COMMON_WORD} --limit 10` with `cru watch` running"),
        &m,
        rg_common,
        "≤ 60 ms, ≥ 10× faster than rg",
    )?;
    phrase_row(out, cru, d, runs, ", `cru watch` running", "≤ 100 ms")?;
    after_save_row(
        out,
        cru,
        dir,
        files,
        runs,
        ", `cru watch` running",
        "≤ 150 ms",
    )
}

/// The build from nothing against tantivy alone, and the index's size.
fn build_rows(
    out: &mut String,
    cru: &Path,
    dir: &Path,
    scratch: &Path,
    bytes: u64,
) -> anyhow::Result<()> {
    let d = dir.to_str().context("corpus path is not UTF-8")?;
    std::fs::create_dir_all(scratch)?;
    let text = scratch.join("parts.txt");
    let text_bytes = extract_text(dir, &text)?;
    let on_parts = tantivy_alone(&scratch.join("tantivy"), parts_of(&text)?)?;
    let _ = std::fs::remove_file(&text);
    let files = crucible_core::store::session_files(dir)?;
    let on_files = tantivy_alone(
        &scratch.join("tantivy"),
        files
            .iter()
            .map(|f| Ok(String::from_utf8_lossy(&std::fs::read(f)?).into_owned())),
    )?;
    for (what, took) in [
        ("the session files, one document each".to_owned(), on_files),
        (
            format!(
                "the text cru indexes ({:.0} MB of parts)",
                text_bytes as f64 / 1e6
            ),
            on_parts,
        ),
    ] {
        writeln!(
            out,
            "| tantivy alone, default schema: {what} | {:.0} ms ({:.1} MB/s of sessions) | | baseline |",
            ms(took),
            bytes as f64 / 1e6 / took.as_secs_f64()
        )?;
    }
    // The first search builds the index from nothing.
    let home = dir.join(crucible_core::store::names::SEARCH_INDEX);
    let build = measure_each(cru, &search_args(COMMON_WORD, d), 1, &|| {
        let _ = std::fs::remove_dir_all(&home);
        Ok(())
    })?
    .context("cru")?;
    writeln!(
        out,
        "| `cru session search` building the index from nothing | {:.0} ms ({:.1} MB/s: {:.0}% of tantivy's speed on the files, {:.0}% on the parts) | {} | ≥ 75% of tantivy, ≤ 500 MB |",
        ms(build.best),
        bytes as f64 / 1e6 / build.best.as_secs_f64(),
        100.0 * on_files.as_secs_f64() / build.best.as_secs_f64(),
        100.0 * on_parts.as_secs_f64() / build.best.as_secs_f64(),
        mb(&build)
    )?;
    let index_bytes = size_of_tree(&home);
    writeln!(
        out,
        "| search index size | {:.0} MB ({:.0}% of the sessions) | | ≤ 50% |",
        index_bytes as f64 / 1e6,
        100.0 * index_bytes as f64 / bytes as f64
    )?;
    Ok(())
}

/// The queries, each against rg where rg answers the same question; rg's
/// time for the common word.
fn query_rows(
    out: &mut String,
    cru: &Path,
    dir: &Path,
    files: &[std::path::PathBuf],
    runs: usize,
) -> anyhow::Result<Option<f64>> {
    let d = dir.to_str().context("corpus path is not UTF-8")?;
    let rare = rare_word(dir)?;
    let mut rg_common = None;
    for (word, what) in [
        (COMMON_WORD, "in nearly every session"),
        (rare.as_str(), "in one session's title"),
    ] {
        let rg = match which("rg") {
            Some(rg) => measure(&rg, &["-l", "-i", "-w", word, d], runs)?,
            None => None,
        };
        let rg_ms = rg.as_ref().map(|m| ms(m.best));
        if word == COMMON_WORD {
            rg_common = rg_ms;
        }
        if let Some(m) = &rg {
            row(
                out,
                &format!("`rg -l -i -w {word}` ({what})"),
                m,
                None,
                "baseline",
            )?;
        }
        let m = measure(cru, &search_args(word, d), runs)?.context("cru")?;
        row(
            out,
            &format!("`cru session search {word} --limit 10`, nothing changed"),
            &m,
            rg_ms,
            "≤ 150 ms, ≥ 3× faster than rg, ≤ 200 MB",
        )?;
    }
    phrase_row(out, cru, d, runs, "", "≤ 150 ms")?;
    after_save_row(
        out,
        cru,
        dir,
        files,
        runs,
        "",
        "≤ 150 ms, the catch-up included",
    )?;
    Ok(rg_common)
}

/// The three-word phrase, the row's name ending with `also`.
fn phrase_row(
    out: &mut String,
    cru: &Path,
    d: &str,
    runs: usize,
    also: &str,
    target: &str,
) -> anyhow::Result<()> {
    let phrase = format!("\"{PHRASE}\"");
    let m = measure(cru, &search_args(&phrase, d), runs)?.context("cru")?;
    row(
        out,
        &format!("`cru session search '{phrase}'` (three-word phrase){also}"),
        &m,
        None,
        target,
    )
}

/// The common word searched right after one session was saved by cru
/// (before each run), the row's name ending with `also`.
fn after_save_row(
    out: &mut String,
    cru: &Path,
    dir: &Path,
    files: &[std::path::PathBuf],
    runs: usize,
    also: &str,
    target: &str,
) -> anyhow::Result<()> {
    let d = dir.to_str().context("corpus path is not UTF-8")?;
    let saved = files.get(files.len() / 3).context("empty corpus")?;
    let m = measure_each(cru, &search_args(COMMON_WORD, d), runs, &|| {
        save_one(dir, saved)
    })?
    .context("cru")?;
    row(
        out,
        &format!("`cru session search {COMMON_WORD}` after one session saved by cru{also}"),
        &m,
        None,
        target,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row on a tiny corpus with the test profile's `cru`, so the
    /// harness cannot rot.
    #[test]
    fn search_bench_smoke_run_on_a_small_corpus() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = crate::corpus::small(20, 1, 4, 5);
        let scratch = tempfile::tempdir().unwrap();
        let table = run(&cru, dir.path(), scratch.path(), 1).unwrap();
        assert!(table.contains("20 sessions"), "{table}");
        assert!(
            table.contains("tantivy alone, default schema: the session files"),
            "{table}"
        );
        assert!(
            table.contains("tantivy alone, default schema: the text cru indexes"),
            "{table}"
        );
        assert!(table.contains("building the index from nothing"), "{table}");
        assert!(table.contains("after one session saved by cru"), "{table}");
        assert!(table.contains("three-word phrase"), "{table}");
        assert!(table.contains("with `cru watch` running"), "{table}");
        assert!(!table.contains("| 0 MB (0% of the sessions)"), "{table}");
    }
}
