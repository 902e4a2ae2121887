//! Tables line up by display width: CJK characters and emoji take two
//! columns each, so a table measured in characters would push every column
//! after them out of line.

use unicode_width::UnicodeWidthStr;

use crate::kiln::TestKiln;

fn session(id: &str, title: &str, started: &str, agent: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\ntitle: \"{title}\"\nstarted: {started}\n\
         status: completed\nparticipants:\n  - {agent}\n---\n\n## Work @{agent} #dev\n\ntext\n"
    )
}

fn kiln() -> TestKiln {
    let kiln = TestKiln::empty();
    for (id, title, started, agent) in [
        (
            "cjk",
            "修复解析器的时间戳",
            "2026-01-03T10:00:00Z",
            "翻译助手@1.0",
        ),
        ("emoji", "🚀 发布 v2", "2026-01-02T10:00:00Z", "🤖bot@2.0"),
        ("plain", "plain title", "2026-01-01T10:00:00Z", "claude@4"),
    ] {
        kiln.write(&format!("{id}.md"), &session(id, title, started, agent));
    }
    kiln
}

/// The display column where each of `header`'s names starts.
fn starts(header: &str) -> Vec<usize> {
    let mut at = Vec::new();
    let mut prev = ' ';
    for (i, c) in header.char_indices() {
        if c != ' ' && prev == ' ' {
            at.push(header[..i].width());
        }
        prev = c;
    }
    at
}

/// Whether a cell of `line` starts at display column `col`: the character
/// there is no space, the one before it is.
fn cell_starts_at(line: &str, col: usize) -> bool {
    let mut width = 0;
    let mut prev = ' ';
    for c in line.chars() {
        if width == col {
            return c != ' ' && prev == ' ';
        }
        if width > col {
            return false;
        }
        width += c.to_string().width();
        prev = c;
    }
    false
}

fn table(kiln: &TestKiln, args: &[&str]) -> Vec<String> {
    let mut full = vec!["--dir", ".crucible/sessions", "session"];
    full.extend_from_slice(args);
    let out = kiln.run(&full);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn session_list_lines_up_cjk_and_emoji_agents() {
    let lines = table(&kiln(), &["list"]);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.contains("翻译助手@1.0")),
        "{lines:#?}"
    );
    let cols = starts(&lines[0]);
    assert_eq!(cols.len(), 4, "{lines:#?}");
    for line in &lines[1..] {
        for &col in &cols {
            assert!(
                cell_starts_at(line, col),
                "column {col}:\n{}",
                lines.join("\n")
            );
        }
    }
}

/// The display column just after each of `header`'s names ends.
fn ends(header: &str) -> Vec<usize> {
    let mut at = Vec::new();
    let mut chars = header.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != ' ' && chars.peek().is_none_or(|(_, n)| *n == ' ') {
            at.push(header[..i].width() + 1);
        }
    }
    at
}

/// Whether a cell of `line` ends just before display column `col`: the
/// character before it is no space, the one there (if any) is.
fn cell_ends_at(line: &str, col: usize) -> bool {
    let mut width = 0;
    let mut before = ' ';
    for c in line.chars() {
        if width == col {
            return before != ' ' && c == ' ';
        }
        width += c.to_string().width();
        before = c;
    }
    width == col && before != ' '
}

#[test]
fn session_stats_lines_up_cjk_and_emoji_groups() {
    let lines = table(&kiln(), &["stats", "--group-by", "agent"]);
    // Three agents and the total.
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("🤖bot ")), "{lines:#?}");
    // The numbers are aligned right under their names.
    let cols = ends(&lines[0]);
    assert_eq!(cols.len(), 13, "{lines:#?}");
    for line in &lines[1..] {
        for &col in &cols[1..] {
            assert!(
                cell_ends_at(line, col),
                "column {col}:\n{}",
                lines.join("\n")
            );
        }
    }
}
