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
    ParseError, callout, frontmatter, heading, parse_session, phase_meta, source, tasks,
    tool_calls, usage_line,
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
    let mut scan = Scan::new(split.body);
    scan.run()?;
    if fm
        .resume_point
        .is_some_and(|p| p.index() >= scan.phases.len())
    {
        return None;
    }
    let title = fm.title.clone().or(scan.title);
    Some(SessionSummary {
        frontmatter: fm,
        title,
        phases: scan.phases,
        totals: scan.totals,
    })
}

/// The line scanner over a body: what it has counted so far, and where it is.
/// Each block reader returns `None` when the file needs the full parser.
struct Scan<'a> {
    body: &'a str,
    lines: Vec<&'a str>,
    /// The next line to read.
    i: usize,
    phases: Vec<PhaseSummary>,
    totals: Counts,
    /// The first level-1 heading of the preamble.
    title: Option<String>,
    section: Section,
    section_level: Option<u8>,
    /// True when the previous line ended a block (or there was none).
    at_block_start: bool,
    /// True right after a phase heading, where its metadata comment goes.
    after_heading: bool,
}

impl<'a> Scan<'a> {
    fn new(body: &'a str) -> Self {
        let mut lines: Vec<&str> = Vec::with_capacity(body.len() / 40 + 1);
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', body.as_bytes()) {
            lines.push(&body[start..end]);
            start = end + 1;
        }
        lines.push(&body[start..]);
        Self {
            body,
            lines,
            i: 0,
            phases: Vec::new(),
            totals: Counts::default(),
            title: None,
            section: Section::Preamble,
            section_level: None,
            at_block_start: true,
            after_heading: false,
        }
    }

    /// Reads every line, block by block.
    fn run(&mut self) -> Option<()> {
        while self.i < self.lines.len() {
            let line = self.lines[self.i];
            self.i += 1;
            let was_after_heading = std::mem::replace(&mut self.after_heading, false);
            if is_blank(line) {
                self.at_block_start = true;
                continue;
            }
            // Blocks that are not at column 0 are beyond what the scanner is sure of.
            if line.starts_with('\t')
                || (line.starts_with(' ') && !line.starts_with("    "))
                || starts_with_odd_whitespace(line)
            {
                return None;
            }
            // Indented code, or a paragraph's continuation: neither counts.
            let ended_a_block = if line.starts_with("    ") {
                false
            } else if let Some(fence) = fence_len(line) {
                self.fenced_block(line, fence)?;
                true
            } else if line.starts_with('#') {
                self.heading(line)?;
                true
            } else if line.starts_with('<') {
                self.phase_meta(line, was_after_heading)?;
                true
            } else if line.starts_with('>') {
                self.quote()?;
                true
            } else if line.starts_with('*') && tool_calls::is_header(line) {
                self.tool_calls()?
            } else {
                false
            };
            self.at_block_start = ended_a_block;
        }
        Some(())
    }

    /// The phase the scanner is in, if any.
    fn current_phase(&self) -> Option<usize> {
        match self.section {
            Section::Phase(p) => Some(p).filter(|p| *p < self.phases.len()),
            _ => None,
        }
    }

    /// Adds counts to the totals and to the current phase.
    fn count(&mut self, n: &Counts) {
        self.totals.add(n);
        if let Some(p) = self.current_phase() {
            self.phases[p].counts.add(n);
        }
    }

    /// A fenced block opened by `line` (its marker `fence` long): skipped,
    /// except a tasks block, whose content is checked.
    fn fenced_block(&mut self, line: &str, fence: usize) -> Option<()> {
        let marker = &line[..fence];
        let info = line[fence..].trim();
        if marker.starts_with('`') && info.contains('`') {
            return None; // not a fence in CommonMark: inline code
        }
        // Only a tasks fence's content is read; the others are skipped.
        let is_tasks = info.split_whitespace().next() == Some(tasks::INFO);
        let first = self.i;
        let mut closed = false;
        while self.i < self.lines.len() {
            let l = self.lines[self.i];
            self.i += 1;
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
            let offset = |line: &str| line.as_ptr() as usize - self.body.as_ptr() as usize;
            let content = &self.body[offset(self.lines[first])..offset(self.lines[self.i - 1])];
            if !tasks::is_valid(content) {
                return None;
            }
        }
        Some(())
    }

    /// A heading: a phase opens, the preamble's title, or a plain section.
    fn heading(&mut self, line: &str) -> Option<()> {
        let h = heading::parse(line)?;
        if h.is_phase() {
            self.phases.push(PhaseSummary {
                name: h.name.to_owned(),
                level: h.level,
                agent: h.agent,
                channel: h.channel,
                ..PhaseSummary::default()
            });
            self.section = Section::Phase(self.phases.len() - 1);
            self.section_level = Some(h.level);
            self.after_heading = true;
            return Some(());
        }
        match self.section_level {
            None if h.level == 1 => {
                if self.title.is_none() {
                    self.title = Some(h.text.to_owned());
                }
            }
            Some(current) if h.level > current => {}
            _ => {
                self.section = Section::Plain;
                self.section_level = Some(h.level);
            }
        }
        Some(())
    }

    /// HTML: only the phase metadata comment, right under its heading.
    fn phase_meta(&mut self, line: &str, was_after_heading: bool) -> Option<()> {
        if usage_line::is_usage_line(line) {
            let p = self.current_phase()?;
            let record = usage_line::parse(line)?.ok()?;
            self.phases[p].usage.push(record);
            return Some(());
        }
        let p = self.current_phase().filter(|_| was_after_heading)?;
        let meta = phase_meta::parse(line)?.ok()?;
        let phase = &mut self.phases[p];
        phase.started = meta.started;
        phase.duration_ms = meta.duration_ms;
        phase.tokens = meta.tokens;
        phase.model = meta.model;
        phase.cost_usd = meta.cost_usd;
        Some(())
    }

    /// A block quote, counted when it is a callout.
    fn quote(&mut self) -> Option<()> {
        let start = self.i - 1;
        while self.i < self.lines.len() && self.lines[self.i].starts_with('>') {
            self.i += 1;
        }
        if self.lines.get(self.i).is_some_and(|l| !is_blank(l)) {
            return None; // a lazy continuation line, or a block glued to the quote
        }
        // Only a subagent callout needs its body read (to check it);
        // for the others the kind on the first line is all that counts.
        let Some(kind) = callout::parse(self.lines[start]).map(|c| c.kind()) else {
            return Some(());
        };
        if kind == crucible_core::CalloutKind::Subagent {
            callout::parse(&self.lines[start..self.i].join("\n"))?
                .subagent()
                .ok()?;
        }
        let mut n = Counts::default();
        n.add_callout(&kind);
        self.count(&n);
        Some(())
    }

    /// After a `**Tool calls:**` header: the bullet list that follows, counted.
    /// `Some(false)` when no list follows (the header is a paragraph).
    fn tool_calls(&mut self) -> Option<bool> {
        if !self.at_block_start {
            return None;
        }
        let lines = &self.lines;
        let mut j = self.i;
        while j < lines.len() && is_blank(lines[j]) {
            j += 1;
        }
        let Some(&marker) = lines
            .get(j)
            .and_then(|l| l.as_bytes().first())
            .filter(|_| tool_calls::bullet_item(lines[j]).is_some())
        else {
            return Some(false);
        };
        // A list goes on while its items keep the first one's marker
        // (another marker starts another list, in CommonMark).
        let is_item =
            |l: &str| l.as_bytes().first() == Some(&marker) && tool_calls::bullet_item(l).is_some();
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
        if let Some((calls, failed)) = tool_calls::count_list(lines[start..j].iter().copied()) {
            self.count(&Counts {
                tool_calls: calls,
                failed_tool_calls: failed,
                ..Counts::default()
            });
        }
        self.i = j;
        Some(true)
    }
}

/// The length of the fence marker `line` opens with (three or more of the
/// same backtick or tilde), if it opens one.
fn fence_len(line: &str) -> Option<usize> {
    let fence = line.bytes().take_while(|&b| b == b'`' || b == b'~').count();
    (fence >= 3 && line.bytes().take(fence).all(|b| b == line.as_bytes()[0])).then_some(fence)
}
