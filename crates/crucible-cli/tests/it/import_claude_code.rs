//! `cru session import` on real Claude Code transcripts: the per-file
//! report, `--strict`, and sessions that validate.

use crate::kiln::{TestKiln, fixtures};

fn real(rel: &str) -> std::path::PathBuf {
    fixtures().join("real/claude-code").join(rel)
}

#[test]
fn a_real_transcript_imports_reports_its_records_and_validates() {
    let kiln = TestKiln::empty();
    // Opens with file-history-snapshot lines: once read as another format.
    let src = real("agentcmd/full/full-session-two.jsonl");
    let out = kiln.run(&["session", "import", "--strict", &src.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "full-session-two.jsonl: 41 records read (assistant 16, file-history-snapshot 6, user 19)"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("1 created"), "{}", out.stderr);
    let id = out.stdout.trim();
    let session = std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap();
    assert!(session.contains("format: claude-code"), "{session}");
    // The image the user pasted stands as a marker in the markdown.
    assert!(session.contains("[image: image/"), "{session}");
    let v = kiln.run(&["session", "validate"]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
}

#[test]
fn strict_refuses_a_transcript_with_a_line_type_cru_does_not_know() {
    let kiln = TestKiln::empty();
    let mut text = std::fs::read_to_string(real("spotter/short.jsonl")).unwrap();
    // A type a later Claude Code release might add (written here, in a
    // scratch copy: the fixture itself is untouched).
    text.push_str("{\"type\":\"future-kind\",\"sessionId\":\"s\"}\n");
    let src = kiln.write("short.jsonl", &text);
    let src = src.display().to_string();
    let strict = kiln.run(&["session", "import", "--strict", &src]);
    assert_ne!(strict.code, 0);
    assert!(strict.stderr.contains("future-kind 1"), "{}", strict.stderr);
    let lax = kiln.run(&["session", "import", &src]);
    assert_eq!(lax.code, 0, "{}", lax.stderr);
    assert!(
        lax.stderr
            .contains("future-kind 1: a record type cru does not know"),
        "{}",
        lax.stderr
    );
}

/// A token count that is no count (negative, a fraction, a string, more
/// than any request has) is counted 0 and named, with its line; `--strict`
/// refuses the file.
#[test]
fn a_damaged_token_count_is_named_with_its_line() {
    let kiln = TestKiln::empty();
    let text = std::fs::read_to_string(real("spotter/short.jsonl")).unwrap();
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("\"input_tokens\":"))
        .expect("a line with usage");
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["message"]["usage"]["input_tokens"] = serde_json::json!(-1000);
    v["message"]["usage"]["output_tokens"] = serde_json::json!("lots");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[n] = v.to_string();
    let src = kiln.write("short.jsonl", &(lines.join("\n") + "\n"));
    let src = src.display().to_string();
    let lax = kiln.run(&["session", "import", &src]);
    assert_eq!(lax.code, 0, "{}", lax.stderr);
    let said = format!(
        "short.jsonl:{}: token counts that are no whole number",
        n + 1
    );
    assert!(lax.stderr.contains(&said), "{}", lax.stderr);
    assert!(
        lax.stderr
            .contains("input_tokens -1000, output_tokens \"lots\""),
        "{}",
        lax.stderr
    );
    let other = TestKiln::empty();
    let strict = other.run(&["session", "import", "--strict", &src]);
    assert_ne!(strict.code, 0, "{}", strict.stderr);
}

/// A real project folder (Claude Code 2.0.74): flat `agent-*.jsonl`
/// subagent files linked to their transcripts (one placed by time, which
/// once overflowed the link's position), summary-only files and a
/// `/clear`-only session refused as nothing, the rest validating.
#[test]
fn a_real_project_folder_imports_with_its_subagents_and_validates() {
    let kiln = TestKiln::empty();
    let src = real("kfischer-claude-history").display().to_string();
    let out = kiln.run(&["session", "import", &src]);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("22 created, 0 updated, 0 unchanged, 3 skipped"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("nothing to import"), "{}", out.stderr);
    let v = kiln.run(&["session", "validate"]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    let said = format!("{}{}", v.stdout, v.stderr);
    assert!(said.contains("22 valid"), "{said}");
}

/// `cru session export --to claude-code` of an imported real transcript
/// writes JSON lines that `cru session import` reads back as Claude Code,
/// with the same tool calls.
#[test]
fn an_imported_transcript_exports_to_claude_code_and_back() {
    let kiln = TestKiln::empty();
    let src = real("spotter/tool_heavy.jsonl").display().to_string();
    let out = kiln.run(&["session", "import", &src]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let exported = kiln.run(&["session", "export", &id, "--to", "claude-code"]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    for line in exported.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["type"].is_string(), "{line}");
    }
    let file = kiln.write("again.jsonl", &exported.stdout);
    let back = kiln.run(&["session", "import", &file.display().to_string()]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    let text =
        |id: &str| std::fs::read_to_string(kiln.sessions().join(format!("{id}.md"))).unwrap();
    let calls = |t: &str| t.lines().filter(|l| l.starts_with("- `")).count();
    let (a, b) = (text(&id), text(back.stdout.trim()));
    assert!(calls(&a) > 5, "{a}");
    assert_eq!(calls(&a), calls(&b));
}

/// `--from claude-code` takes transcripts that open with a summary line or
/// consist of usage lines without a type (ccusage's fixtures): both were
/// refused before detection read a file's whole shape.
#[test]
fn from_claude_code_accepts_transcripts_that_open_with_other_lines() {
    let kiln = TestKiln::empty();
    let files = [
        "sniffly/-Users-chip-dev-ai-music/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl",
        "ccusage-fixtures/fixtures/claude/projects/project-alpha/session-alpha/chat.jsonl",
    ];
    let paths: Vec<String> = files
        .iter()
        .map(|f| real(f).display().to_string())
        .collect();
    let mut args = vec!["session", "import", "--strict", "--from", "claude-code"];
    args.extend(paths.iter().map(String::as_str));
    let out = kiln.run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("chat.jsonl: 3 records read (usage 3)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("2 created"), "{}", out.stderr);
}
