//! Tool-call lists: `**Tool calls:**` then ``- `tool args` → summary``.

use crucible_core::ToolCall;

/// The paragraph that announces a tool-call list.
pub(crate) const HEADER: &str = "**Tool calls:**";

pub(crate) fn is_header(paragraph: &str) -> bool {
    paragraph.trim().eq_ignore_ascii_case(HEADER)
}

const FAIL_MARK: char = '✗';

/// The text of `- text` (or `*`, `+`): an item on one line, as cru writes
/// them; `None` for any other line.
pub(crate) fn bullet_item(line: &str) -> Option<&str> {
    matches!(line.as_bytes(), [b'-' | b'*' | b'+', b' ', ..]).then(|| &line[2..])
}

/// Reads every item of a bullet list as a tool call. On the first item that
/// is not one, returns its 0-based line within the list and why.
pub(crate) fn parse_list(list: &str) -> Result<Vec<ToolCall>, (usize, &'static str)> {
    let mut calls = Vec::with_capacity(list.bytes().filter(|&b| b == b'\n').count() + 1);
    for (i, line) in list.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let Some(item) = bullet_item(line) else {
            return Err((i, "is not a `- ` list item on one line"));
        };
        calls.push(
            parse_item(item.trim_start()).ok_or((i, "is not of the form `tool args` → summary"))?,
        );
    }
    Ok(calls)
}

/// Counts the calls of a list and the failed ones, with exactly the checks
/// of [`parse_list`] but without building them (the index only counts).
pub(crate) fn count_list<'a>(lines: impl Iterator<Item = &'a str>) -> Option<(u64, u64)> {
    let (mut calls, mut failed) = (0, 0);
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // An item is never blank: the blank test only for the other lines.
        let item = match bullet_item(line) {
            Some(item) => item.trim_start(),
            None if line.trim().is_empty() => continue,
            None => return None,
        };
        let (content, rest) = code_span(item)?;
        // The tool is what comes before the first space: empty only so.
        if content.is_empty() || content.starts_with(' ') {
            return None;
        }
        let rest = rest.trim();
        if !rest.is_empty() {
            let summary = rest
                .strip_prefix('→')
                .or_else(|| rest.strip_prefix("->"))?
                .trim();
            failed += u64::from(summary.starts_with(FAIL_MARK));
        }
        calls += 1;
    }
    Some((calls, failed))
}

fn parse_item(item: &str) -> Option<ToolCall> {
    let (content, rest) = code_span(item)?;
    let (tool, args) = content.split_once(' ').unwrap_or((content, ""));
    if tool.is_empty() {
        return None;
    }
    let rest = rest.trim();
    let mut call = ToolCall::new(tool, args);
    if rest.is_empty() {
        return Some(call);
    }
    let summary = rest
        .strip_prefix('→')
        .or_else(|| rest.strip_prefix("->"))?
        .trim();
    let summary = match summary.strip_prefix(FAIL_MARK) {
        Some(s) => {
            call.failed = true;
            s.trim()
        }
        None => summary,
    };
    if !summary.is_empty() {
        call.summary = Some(summary.to_owned());
    }
    Some(call)
}

/// A CommonMark code span at the start of `s`: its content and what follows.
fn code_span(s: &str) -> Option<(&str, &str)> {
    let n = s.bytes().take_while(|&b| b == b'`').count();
    if n == 0 {
        return None;
    }
    let body = &s[n..];
    let mut search = 0;
    while let Some(found) = memchr::memchr(b'`', &body.as_bytes()[search..]) {
        let start = search + found;
        let run = body[start..].bytes().take_while(|&b| b == b'`').count();
        if run == n {
            let content = &body[..start];
            let content = if content.len() >= 2
                && content.starts_with(' ')
                && content.ends_with(' ')
                && !content.bytes().all(|b| b == b' ')
            {
                &content[1..content.len() - 1]
            } else {
                content
            };
            return Some((content, &body[start + n..]));
        }
        search = start + run;
    }
    None
}

/// Writes the header and one line per call.
pub(crate) fn write(calls: &[ToolCall], out: &mut String) {
    out.push_str(HEADER);
    for call in calls {
        out.push_str("\n- ");
        let content = if call.args.is_empty() {
            call.tool.clone()
        } else {
            format!("{} {}", call.tool, call.args)
        };
        write_code_span(&content, out);
        match (&call.summary, call.failed) {
            (Some(s), true) => out.push_str(&format!(" → {FAIL_MARK} {s}")),
            (None, true) => out.push_str(&format!(" → {FAIL_MARK}")),
            (Some(s), false) => out.push_str(&format!(" → {s}")),
            (None, false) => {}
        }
    }
}

/// A code span that reads back as exactly `content`: a backtick fence longer
/// than any run inside, padded when the content touches a backtick or would
/// lose a space to CommonMark's stripping.
pub(crate) fn write_code_span(content: &str, out: &mut String) {
    let mut longest = 0;
    let mut run = 0;
    for b in content.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = content.starts_with('`')
        || content.ends_with('`')
        || (content.len() >= 2
            && content.starts_with(' ')
            && content.ends_with(' ')
            && !content.bytes().all(|b| b == b' '));
    let sp = if pad { " " } else { "" };
    out.push_str(&format!("{fence}{sp}{content}{sp}{fence}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_summaries_failures_and_ascii_arrows() {
        let calls = parse_list(
            "- `grep \"session\" crates/` → 12 matches\n- `cargo test` -> ✗ 2 failed\n- `ls`",
        )
        .unwrap();
        assert_eq!(calls[0].tool, "grep");
        assert_eq!(calls[0].args, "\"session\" crates/");
        assert_eq!(calls[0].summary.as_deref(), Some("12 matches"));
        assert!(calls[1].failed);
        assert_eq!(calls[1].summary.as_deref(), Some("2 failed"));
        assert_eq!(calls[2], ToolCall::new("ls", ""));
    }

    #[test]
    fn rejects_items_that_are_not_calls() {
        assert_eq!(parse_list("- `a` → b\n- plain words").unwrap_err().0, 1);
        assert!(parse_list("- `a` then b").is_err());
        assert!(parse_list("1. `a`").is_err());
    }

    #[test]
    fn code_spans_with_backticks_round_trip() {
        for content in [
            "echo `date`",
            "a``b",
            "x ` ",
            "sh -c 'x'",
            "t  two  spaces ",
        ] {
            let mut s = String::new();
            write_code_span(content, &mut s);
            assert_eq!(code_span(&s).unwrap().0, content, "{s}");
        }
    }
}
