//! Session summaries for the index, read fast.
//!
//! The index needs counts (phases, tool calls, callouts) and the frontmatter,
//! not the text. [`summarize`] reads them with a line scanner that knows the
//! shape cru writes (blocks at column 0, blank lines between them) and hands
//! any file it is not sure about (indented blocks, HTML, lazy lines, a
//! `**Tool calls:**` inside a paragraph) to the full parser instead. It must
//! give exactly what `parse_session(...).summary()` gives; tests check that
//! on every fixture, a generated corpus and generated sessions.

use std::path::Path;

use crucible_core::{Counts, PhaseSummary, SessionSummary};

use crate::{
    ParseError, callout, frontmatter, heading, parse_session, phase_meta, source, tasks, tool_calls,
};

/// The summary of a session file: by the fast scanner when it can, else by
/// the full parser (whose errors it returns).
pub fn summarize(path: &Path, bytes: &[u8]) -> Result<SessionSummary, ParseError> {
    match fast_summary(bytes) {
        Some(s) => Ok(s),
        None => parse_session(path, bytes).map(|log| log.summary()),
    }
}

/// A blank line as CommonMark has it (spaces and tabs only), decided by the
/// first byte for the usual line, which starts with printable ASCII.
fn is_blank(line: &str) -> bool {
    match line.as_bytes().first() {
        None => true,
        Some(&b) if b > b' ' && b < 0x7f => false,
        Some(_) => line.bytes().all(|b| b == b' ' || b == b'\t'),
    }
}

/// A line that starts with whitespace other than a space or tab (a vertical
/// tab, form feed, no-break space, ...). Markdown readers differ on it and
/// the parser trims it when it looks for the tool-call header, so such a
/// file goes to the full parser.
fn starts_with_odd_whitespace(line: &str) -> bool {
    match line.as_bytes().first() {
        Some(&b) if b > b' ' && b < 0x7f => false,
        Some(b' ') | None => false,
        Some(_) => line.starts_with(char::is_whitespace),
    }
}

/// Anything that opens a bullet item in CommonMark, empty ones included.
fn is_list_marker(line: &str) -> bool {
    matches!(
        line.as_bytes(),
        [b'-' | b'*' | b'+'] | [b'-' | b'*' | b'+', b' ' | b'\t', ..]
    )
}

/// What the scanner is in the middle of.
enum Section {
    Preamble,
    Phase(usize),
    Plain,
}

/// The fast path alone: `None` when the file needs the full parser.
pub fn fast_summary(bytes: &[u8]) -> Option<SessionSummary> {
    let text = source::decode(bytes).ok()?;
    // Decoding turned every CRLF into LF, copying the text only if it held
    // a CR; a CR left over is a line ending of its own to CommonMark, which
    // this scanner (splitting at LF) would read as part of a line.
    if matches!(text, std::borrow::Cow::Owned(_))
        && memchr::memchr(b'\r', text.as_bytes()).is_some()
    {
        return None;
    }
    let split = frontmatter::split(&text).ok()?;
    let fm = frontmatter::parse(split.yaml).ok()?;
    let body = split.body;
    let mut lines: Vec<&str> = Vec::with_capacity(body.len() / 40 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', body.as_bytes()) {
        lines.push(&body[start..end]);
        start = end + 1;
    }
    lines.push(&body[start..]);
    let mut phases: Vec<PhaseSummary> = Vec::new();
    let mut totals = Counts::default();
    let mut title: Option<String> = None;
    let mut section = Section::Preamble;
    let mut section_level: Option<u8> = None;
    // True when the previous line ended a block (or there was none).
    let mut at_block_start = true;
    let mut after_heading = false;
    let mut i = 0;

    let counts_of = |phases: &mut Vec<PhaseSummary>, section: &Section| -> Option<usize> {
        match section {
            Section::Phase(p) => Some(*p).filter(|p| *p < phases.len()),
            _ => None,
        }
    };

    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let was_after_heading = std::mem::replace(&mut after_heading, false);
        if is_blank(line) {
            at_block_start = true;
            continue;
        }
        // Blocks that are not at column 0 are beyond what the scanner is sure of.
        if line.starts_with('\t')
            || (line.starts_with(' ') && !line.starts_with("    "))
            || starts_with_odd_whitespace(line)
        {
            return None;
        }
        if line.starts_with("    ") {
            // Indented code, or a paragraph's continuation: neither counts.
            at_block_start = false;
            continue;
        }
        let fence = line.bytes().take_while(|&b| b == b'`' || b == b'~').count();
        if fence >= 3 && line.bytes().take(fence).all(|b| b == line.as_bytes()[0]) {
            let marker = &line[..fence];
            let info = line[fence..].trim();
            if marker.starts_with('`') && info.contains('`') {
                return None; // not a fence in CommonMark: inline code
            }
            // Only a tasks fence's content is read; the others are skipped.
            let is_tasks = info.split_whitespace().next() == Some(tasks::INFO);
            let first = i;
            let mut closed = false;
            while i < lines.len() {
                let l = lines[i];
                i += 1;
                if l.starts_with(marker)
                    && l[fence..]
                        .trim()
                        .chars()
                        .all(|c| c == marker.as_bytes()[0] as char)
                {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return None;
            }
            if is_tasks {
                // The lines between the fences, each with its newline: a
                // slice of the body, as the lines are.
                let offset = |line: &str| line.as_ptr() as usize - body.as_ptr() as usize;
                let content = &body[offset(lines[first])..offset(lines[i - 1])];
                if !tasks::is_valid(content) {
                    return None;
                }
            }
            at_block_start = true;
            continue;
        }
        if line.starts_with('#') {
            let h = heading::parse(line)?;
            if h.is_phase() {
                phases.push(PhaseSummary {
                    name: h.name.to_owned(),
                    level: h.level,
                    agent: h.agent,
                    channel: h.channel,
                    ..PhaseSummary::default()
                });
                section = Section::Phase(phases.len() - 1);
                section_level = Some(h.level);
                after_heading = true;
            } else {
                match section_level {
                    None if h.level == 1 => {
                        if title.is_none() {
                            title = Some(h.text.to_owned());
                        }
                    }
                    Some(current) if h.level > current => {}
                    _ => {
                        section = Section::Plain;
                        section_level = Some(h.level);
                    }
                }
            }
            at_block_start = true;
            continue;
        }
        if line.starts_with('<') {
            // Only the phase metadata comment, right under its heading.
            let p = counts_of(&mut phases, &section).filter(|_| was_after_heading)?;
            match phase_meta::parse(line)? {
                Ok(meta) => {
                    phases[p].started = meta.started;
                    phases[p].duration_ms = meta.duration_ms;
                    phases[p].tokens = meta.tokens;
                }
                Err(_) => return None,
            }
            at_block_start = true;
            continue;
        }
        if line.starts_with('>') {
            let start = i - 1;
            while i < lines.len() && lines[i].starts_with('>') {
                i += 1;
            }
            if lines.get(i).is_some_and(|l| !is_blank(l)) {
                return None; // a lazy continuation line, or a block glued to the quote
            }
            // Only a subagent callout needs its body read (to check it);
            // for the others the kind on the first line is all that counts.
            let kind = callout::parse(lines[start]).map(|c| c.kind());
            if let Some(kind) = kind {
                if kind == crucible_core::CalloutKind::Subagent {
                    callout::parse(&lines[start..i].join("\n"))?
                        .subagent()
                        .ok()?;
                }
                let mut n = Counts::default();
                n.add_callout(&kind);
                totals.add(&n);
                if let Some(p) = counts_of(&mut phases, &section) {
                    phases[p].counts.add(&n);
                }
            }
            at_block_start = true;
            continue;
        }
        if line.starts_with('*') && tool_calls::is_header(line) {
            if !at_block_start {
                return None;
            }
            let mut j = i;
            while j < lines.len() && is_blank(lines[j]) {
                j += 1;
            }
            if let Some(&marker) = lines
                .get(j)
                .and_then(|l| l.as_bytes().first())
                .filter(|_| tool_calls::bullet_item(lines[j]).is_some())
            {
                // A list goes on while its items keep the first one's marker
                // (another marker starts another list, in CommonMark).
                let is_item = |l: &str| {
                    l.as_bytes().first() == Some(&marker) && tool_calls::bullet_item(l).is_some()
                };
                let start = j;
                while j < lines.len()
                    && (is_item(lines[j])
                        || (is_blank(lines[j]) && lines.get(j + 1).is_some_and(|l| is_item(l))))
                {
                    j += 1;
                }
                if lines.get(j).is_some_and(|l| !is_blank(l)) {
                    return None; // a line glued to the list: CommonMark's rules, not ours
                }
                // After blank lines, an indented line or another item (an
                // empty `-`, another marker) may still belong to the list.
                let next = lines[j..].iter().find(|l| !is_blank(l));
                if next.is_some_and(|l| l.starts_with([' ', '\t']) || is_list_marker(l)) {
                    return None;
                }
                if let Some((calls, failed)) =
                    tool_calls::count_list(lines[start..j].iter().copied())
                {
                    let n = Counts {
                        tool_calls: calls,
                        failed_tool_calls: failed,
                        ..Counts::default()
                    };
                    totals.add(&n);
                    if let Some(p) = counts_of(&mut phases, &section) {
                        phases[p].counts.add(&n);
                    }
                }
                i = j;
                at_block_start = true;
                continue;
            }
        }
        at_block_start = false;
    }
    if fm.resume_point.is_some_and(|p| p.index() >= phases.len()) {
        return None;
    }
    let title = fm.title.clone().or(title);
    Some(SessionSummary {
        frontmatter: fm,
        title,
        phases,
        totals,
    })
}
