//! Every `cru ...` line the seeds quote works exactly as written
//! (`fixtures/seed-commands.txt`): placeholders are filled with a fixture
//! session, and each line must give a sensible result and exit 0.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kiln::{Output, TestKiln, fixtures};

/// One line of the fixture: where it came from, and the command.
struct SeedLine {
    source: String,
    command: String,
}

fn seed_lines() -> Vec<SeedLine> {
    let text = std::fs::read_to_string(fixtures().join("seed-commands.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (source, command) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("seed-commands.txt: no tab in `{l}`"));
            SeedLine {
                source: source.to_owned(),
                command: command.to_owned(),
            }
        })
        .collect()
}

/// The paused fixture session every placeholder names.
const SESSION: &str = "2025-12-10-fix-flaky-test";

/// The command lines `line` stands for, as arguments after `cru`: each
/// placeholder filled in (`<format>` once per export format).
fn expand(line: &str, session_file: &Path) -> Vec<Vec<String>> {
    let words: Vec<&str> = line
        .strip_prefix("cru ")
        .unwrap_or_else(|| panic!("not a cru line: {line}"))
        .split_whitespace()
        .collect();
    let formats: &[&str] = if words.contains(&"<format>") {
        &["jsonl", "markdown", "puzzle"]
    } else {
        &[""]
    };
    formats
        .iter()
        .map(|format| {
            words
                .iter()
                .map(|w| match *w {
                    "<session-file>" => session_file.display().to_string(),
                    "<session-id>" | "<id>" => SESSION.to_owned(),
                    "<format>" => (*format).to_owned(),
                    other => other.to_owned(),
                })
                .collect()
        })
        .collect()
}

/// Runs one expanded line: `--refine` with the scripted agent of
/// `fixtures/agentcmd` (through the configuration), everything else with
/// no agent, no editor and no terminal.
fn run(kiln: &TestKiln, args: &[String]) -> Output {
    let mut cmd = kiln.command();
    cmd.args(args)
        .env_remove("VISUAL")
        .env_remove("EDITOR")
        .env_remove("PAGER")
        .write_stdin("");
    if args.iter().any(|a| a == "--refine") {
        let agent = fixtures().join("agentcmd/refine-keep.sh");
        let config = kiln.root.path().join("refine-config.toml");
        std::fs::write(
            &config,
            format!("[agent]\ncommand = \"sh '{}'\"\n", agent.display()),
        )
        .unwrap();
        cmd.env("CRUCIBLE_CONFIG", config);
    }
    kiln.run_cmd(&mut cmd)
}

/// What a person running the line expects to see.
fn check(args: &[String], out: &Output) {
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let verb = args[1].as_str();
    match verb {
        "resume" => {
            assert!(
                out.stdout.contains("Fix the flaky store test"),
                "{}",
                out.stdout
            );
            assert!(
                out.stdout.contains("Keep the 200-run loop"),
                "decisions: {}",
                out.stdout
            );
        }
        "codify" => {
            assert!(
                out.stdout.starts_with("---\ntype: workflow\n"),
                "{}",
                out.stdout
            );
            if has("--refine") {
                assert!(
                    out.stderr.contains("to refine the workflow"),
                    "{}",
                    out.stderr
                );
                assert!(
                    !out.stderr.contains("not valid") && !out.stderr.contains("keeping"),
                    "the refined workflow is used: {}",
                    out.stderr
                );
            }
        }
        "learn" => {
            let format = args
                .iter()
                .position(|a| a == "--export")
                .map(|i| args[i + 1].as_str());
            match format {
                Some("jsonl") => {
                    assert!(!out.stdout.is_empty(), "{}", out.stderr);
                    for l in out.stdout.lines() {
                        let v: Value = serde_json::from_str(l).unwrap();
                        assert!(v["metadata"]["case_id"].is_string(), "{l}");
                    }
                }
                Some("markdown") => assert!(out.stdout.starts_with("# Learning cases\n")),
                Some("puzzle") => assert!(out.stdout.contains("### Puzzle `puz-")),
                // No --export: readable cases, puzzles only with --type puzzle.
                None => {
                    assert!(out.stdout.contains("### Puzzle `puz-"), "{}", out.stdout);
                    assert!(!out.stdout.contains("Correction"), "{}", out.stdout);
                }
                other => panic!("no check for learn --export {other:?}"),
            }
        }
        "list" => {
            assert!(out.stdout.contains(SESSION), "{}", out.stdout);
            if has("--status") {
                let rows = out.stdout.lines().skip(1).count();
                assert_eq!(rows, 1, "only the paused session: {}", out.stdout);
            }
        }
        "show" => {
            assert!(
                out.stdout.contains("Fix the flaky store test"),
                "{}",
                out.stdout
            );
            assert!(out.stdout.contains("Reproduce"), "{}", out.stdout);
        }
        other => panic!("no check for `cru session {other}`: add one"),
    }
}

#[test]
fn every_seed_command_line_works_as_written() {
    let lines = seed_lines();
    assert!(lines.len() >= 13, "{} lines", lines.len());
    for seed in &lines {
        let kiln = TestKiln::with_fixtures();
        let file = kiln.sessions().join(format!("{SESSION}.md"));
        for args in expand(&seed.command, &file) {
            let out = run(&kiln, &args);
            let shown = format!("{} ({}): cru {}", seed.command, seed.source, args.join(" "));
            assert_eq!(out.code, 0, "{shown}\n{}", out.stderr);
            check(&args, &out);
        }
    }
}

#[test]
fn learn_with_an_id_and_type_puzzle_shows_puzzles() {
    // The example of a line that failed: no --export given.
    let kiln = TestKiln::with_fixtures();
    let out = kiln.run(&["session", "learn", SESSION, "--type", "puzzle"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.matches("### Puzzle `puz-").count(),
        1,
        "{}",
        out.stdout
    );
}

/// The `cru ...` lines quoted in a seed, with their line numbers.
fn quoted_cru_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find("`cru ") {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            out.push((n + 1, after[..end].to_owned()));
            rest = &after[end + 1..];
        }
    }
    out
}

/// The seeds, when this checkout sits beside them (not on CI).
fn seeds_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds");
    dir.is_dir().then_some(dir)
}

#[test]
fn the_fixture_holds_every_cru_line_of_the_seeds() {
    let from_fixture: Vec<String> = seed_lines()
        .into_iter()
        .filter(|s| s.source != "design-card")
        .map(|s| format!("{}\t{}", s.source, s.command))
        .collect();
    assert!(quoted_cru_lines("run `cru session list` or `cru x`").len() == 2);
    let Some(dir) = seeds_dir() else {
        return; // CI has only the fixture, which the test above runs.
    };
    let mut found = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, cmd) in quoted_cru_lines(&text) {
            found.push(format!("{name}:{n}\t{cmd}"));
        }
    }
    assert_eq!(from_fixture, found);
}
