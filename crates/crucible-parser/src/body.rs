//! The body after the frontmatter: top-level markdown blocks, found with
//! pulldown-cmark, sorted into phases, sections and the blocks of each.
//!
//! pulldown-cmark decides where each top-level block starts and ends (fences,
//! lists and quotes have rules no line scanner gets right); the text of each
//! block is then taken from the source by its byte range, so prose is kept
//! exactly as written.

use std::ops::Range;

use crucible_core::{
    Block, CalloutKind, Phase, PhaseMeta, PlainSection, Section, SessionId, SubagentMode,
};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use crate::error::ParseErrorKind;
use crate::source::LineCounter;
use crate::{callout, heading, phase_meta, tasks, tool_calls, usage_line};

/// The info string of the system prompt block.
pub(crate) const SYSTEM_PROMPT: &str = "system-prompt";
/// The info string of the block of the prompt a session started from.
pub(crate) const PROMPT: &str = "prompt";

/// A `[[link]]` or `![[embed]]` of a subagent callout, with its file line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRef {
    pub target: SessionId,
    pub mode: SubagentMode,
    pub line: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Body {
    pub preamble: Vec<Block>,
    pub sections: Vec<Section>,
    pub errors: Vec<(usize, ParseErrorKind)>,
    pub warnings: Vec<(usize, String)>,
    pub links: Vec<LinkRef>,
}

#[derive(Debug, PartialEq)]
enum Kind {
    Heading,
    Paragraph,
    List,
    Quote,
    Fenced { info: String, content: String },
    Html,
    Rule,
    Other,
}

#[derive(Debug)]
struct TopBlock {
    kind: Kind,
    range: Range<usize>,
}

/// The top-level blocks of `body` with their source ranges, including any
/// text pulldown-cmark emits no event for (link reference definitions), so
/// that nothing is lost.
fn top_blocks(body: &str) -> Vec<TopBlock> {
    let mut raw = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<(Kind, usize)> = None;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Heading { .. } => Kind::Heading,
                        Tag::Paragraph => Kind::Paragraph,
                        Tag::List(_) => Kind::List,
                        Tag::BlockQuote(_) => Kind::Quote,
                        // Only the fences cru reads need their text collected.
                        Tag::CodeBlock(CodeBlockKind::Fenced(info))
                            if matches!(
                                info.split_whitespace().next(),
                                Some(tasks::INFO | SYSTEM_PROMPT | PROMPT)
                            ) =>
                        {
                            Kind::Fenced {
                                info: info.to_string(),
                                content: String::new(),
                            }
                        }
                        Tag::HtmlBlock => Kind::Html,
                        _ => Kind::Other,
                    };
                    open = Some((kind, range.start));
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some((kind, start)) = open.take()
                {
                    raw.push(TopBlock {
                        kind,
                        range: start..range.end,
                    });
                }
            }
            Event::Text(t) if depth == 1 => {
                if let Some((Kind::Fenced { content, .. }, _)) = open.as_mut() {
                    content.push_str(&t);
                }
            }
            Event::Rule if depth == 0 => raw.push(TopBlock {
                kind: Kind::Rule,
                range,
            }),
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut prev_end = 0;
    for mut block in raw {
        // A block's range may start after its indentation; its line starts it.
        if block.range.start > 0 && body.as_bytes()[block.range.start - 1] != b'\n' {
            let line_start = body[..block.range.start].rfind('\n').map_or(0, |p| p + 1);
            if body[line_start..block.range.start].trim().is_empty() {
                block.range.start = line_start.max(prev_end);
            }
        }
        push_gap(body, prev_end..block.range.start, &mut out);
        block.range.end = block.range.start + trim_blank_tail(&body[block.range.clone()]).len();
        prev_end = prev_end.max(block.range.end);
        out.push(block);
    }
    push_gap(body, prev_end..body.len(), &mut out);
    out
}

fn push_gap(body: &str, gap: Range<usize>, out: &mut Vec<TopBlock>) {
    let Some(text) = body.get(gap.clone()) else {
        return;
    };
    if text.trim().is_empty() {
        return;
    }
    let lead = text.len() - text.trim_start_matches(['\n', '\r']).len();
    let start = gap.start + lead;
    out.push(TopBlock {
        kind: Kind::Other,
        range: start..start + trim_blank_tail(&body[start..gap.end]).len(),
    });
}

/// Drops trailing line breaks and blank lines, but not the trailing spaces
/// of a line with text (a callout line `>   ` keeps its spaces).
fn trim_blank_tail(s: &str) -> &str {
    let mut s = s.trim_end_matches(['\n', '\r']);
    // The common case: the block ends in text.
    if s.as_bytes()
        .last()
        .is_some_and(|b| !b.is_ascii_whitespace())
    {
        return s;
    }
    while let Some(nl) = s.rfind('\n') {
        if !s[nl + 1..].trim().is_empty() {
            break;
        }
        s = s[..nl].trim_end_matches(['\n', '\r']);
    }
    if s.trim().is_empty() { "" } else { s }
}

struct Builder<'a> {
    body: &'a str,
    lines: LineCounter<'a>,
    pending_prose: Option<Range<usize>>,
    out: Body,
}

impl Builder<'_> {
    fn container(&mut self) -> &mut Vec<Block> {
        match self.out.sections.last_mut() {
            Some(Section::Phase(p)) => &mut p.blocks,
            Some(Section::Plain(s)) => &mut s.blocks,
            None => &mut self.out.preamble,
        }
    }

    fn flush(&mut self) {
        if let Some(r) = self.pending_prose.take() {
            let text = self.body[r].to_owned();
            self.container().push(Block::Prose { text });
        }
    }

    fn push(&mut self, block: Block) {
        self.flush();
        self.container().push(block);
    }

    fn prose(&mut self, range: Range<usize>) {
        self.pending_prose = Some(match self.pending_prose.take() {
            Some(p) => p.start..range.end,
            None => range,
        });
    }

    fn heading(&mut self, h: heading::HeadingLine) {
        self.flush();
        if h.is_phase() {
            self.out.sections.push(Section::Phase(Phase {
                usage: Vec::new(),
                level: h.level,
                name: h.name.to_owned(),
                agent: h.agent,
                channel: h.channel,
                meta: PhaseMeta::default(),
                blocks: Vec::new(),
            }));
            return;
        }
        let text = h.text.to_owned();
        match self.out.sections.last().map(Section::level) {
            None if h.level == 1 => self.container().push(Block::Heading { level: 1, text }),
            Some(current) if h.level > current => self.container().push(Block::Heading {
                level: h.level,
                text,
            }),
            _ => self.out.sections.push(Section::Plain(PlainSection {
                level: h.level,
                title: text,
                blocks: Vec::new(),
            })),
        }
    }

    /// The phase whose heading was the last thing read, if any.
    /// A `<!-- usage: ... -->` line inside a phase: a record of that phase
    /// (true). One that cannot be read stays prose, with a warning.
    fn usage(&mut self, range: Range<usize>) -> bool {
        let Some(parsed) = usage_line::parse(&self.body[range.clone()]) else {
            return false;
        };
        if !matches!(self.out.sections.last(), Some(Section::Phase(_))) {
            return false;
        }
        match parsed {
            Ok(record) => {
                if let Some(why) = crate::phase_meta::not_a_cost(&record.extra) {
                    let line = self.lines.line_at(range.start);
                    self.out.warnings.push((line, format!("usage line: {why}")));
                }
                // Text on both sides stays two paragraphs, as written.
                self.flush();
                if let Some(Section::Phase(p)) = self.out.sections.last_mut() {
                    p.usage.push(record);
                }
            }
            Err(why) => {
                let line = self.lines.line_at(range.start);
                self.out
                    .warnings
                    .push((line, format!("usage line kept as prose: {why}")));
                self.prose(range);
            }
        }
        true
    }

    fn fresh_phase(&mut self) -> Option<&mut Phase> {
        if self.pending_prose.is_some() {
            return None;
        }
        match self.out.sections.last_mut() {
            Some(Section::Phase(p))
                if p.blocks.is_empty() && p.meta.is_empty() && p.usage.is_empty() =>
            {
                Some(p)
            }
            _ => None,
        }
    }
}

pub(crate) fn parse(body: &str, first_line: usize) -> Body {
    let blocks = top_blocks(body);
    let mut b = Builder {
        body,
        lines: LineCounter::new(body, first_line),
        pending_prose: None,
        out: Body::default(),
    };
    let mut i = 0;
    while i < blocks.len() {
        let block = &blocks[i];
        let range = block.range.clone();
        let raw = &body[range.clone()];
        i += 1;
        match &block.kind {
            Kind::Heading => match heading::parse(raw.lines().next().unwrap_or("")) {
                Some(h) => b.heading(h),
                // A setext heading (text underlined with `===`/`---`) is kept as prose.
                None => b.prose(range),
            },
            // The header alone, or as the last line of a paragraph (written
            // right under some text, CommonMark makes it part of that text).
            Kind::Paragraph if tool_calls::is_header(raw.rsplit('\n').next().unwrap_or(raw)) => {
                match blocks.get(i).filter(|n| n.kind == Kind::List) {
                    Some(list) => {
                        b.tool_calls(range, &list.range);
                        i += 1;
                    }
                    None => b.prose(range),
                }
            }
            Kind::Quote => b.quote(range),
            Kind::Fenced { info, content } => b.fenced(range, info, content),
            Kind::Html => b.html(range),
            Kind::Rule => b.push(Block::Rule),
            Kind::Paragraph | Kind::List | Kind::Other => b.prose(range),
        }
    }
    b.flush();
    b.out
}

/// The block readers of [`parse`], one per kind of top-level block that can
/// be more than prose.
impl Builder<'_> {
    /// A paragraph ending in the tool-call header (`header`), and the list
    /// after it (`list`): a tool-call list, or prose with a warning.
    fn tool_calls(&mut self, header: Range<usize>, list: &Range<usize>) {
        let raw = &self.body[header.clone()];
        if let Some(cut) = raw.rfind('\n') {
            let before = raw[..cut].trim_end();
            self.prose(header.start..header.start + before.len());
        }
        match tool_calls::parse_list(&self.body[list.clone()]) {
            Ok(calls) => self.push(Block::ToolCalls { calls }),
            Err((item_line, why)) => {
                let line = self.lines.line_at(list.start) + item_line;
                self.out.warnings.push((
                    line,
                    format!("tool-call list item {why}; the list is kept as prose"),
                ));
                self.prose(header.start..list.end);
            }
        }
    }

    /// A block quote: a callout (a subagent's link checked and kept), or prose.
    fn quote(&mut self, range: Range<usize>) {
        let Some(c) = callout::parse(&self.body[range.clone()]) else {
            self.prose(range);
            return;
        };
        if c.kind() == CalloutKind::Subagent {
            let line = self.lines.line_at(range.start);
            match c.subagent() {
                Ok(s) => {
                    if let Some(target) = s.target {
                        self.out.links.push(LinkRef {
                            target,
                            mode: s.mode,
                            line,
                        });
                    }
                }
                Err(e) => self.out.errors.push((line, e.into())),
            }
        }
        self.push(Block::Callout(c));
    }

    /// A fenced block: tasks, the system prompt, the prompt, or prose.
    fn fenced(&mut self, range: Range<usize>, info: &str, content: &str) {
        match info.split_whitespace().next() {
            Some(tasks::INFO) => match tasks::parse(content) {
                Ok(tasks) => self.push(Block::Tasks { tasks }),
                Err((line, message)) => {
                    let fence = self.lines.line_at(range.start);
                    self.out
                        .errors
                        .push((fence + line, ParseErrorKind::BadTasks { message }));
                    self.prose(range);
                }
            },
            Some(SYSTEM_PROMPT) => {
                let text = content.strip_suffix('\n').unwrap_or(content).to_owned();
                self.push(Block::SystemPrompt { text });
            }
            Some(PROMPT) => {
                let text = content.strip_suffix('\n').unwrap_or(content).to_owned();
                self.push(Block::Prompt { text });
            }
            _ => self.prose(range),
        }
    }

    /// HTML: the metadata comment of the phase just opened, a usage line of
    /// the current phase, or prose.
    fn html(&mut self, range: Range<usize>) {
        if self.usage(range.clone()) {
            return;
        }
        match phase_meta::parse(&self.body[range.clone()]) {
            Some(parsed) if self.fresh_phase().is_some() => match parsed {
                Ok(meta) => {
                    if let Some(why) = crate::phase_meta::not_a_cost(&meta.extra) {
                        let line = self.lines.line_at(range.start);
                        self.out
                            .warnings
                            .push((line, format!("phase metadata: {why}")));
                    }
                    if let Some(p) = self.fresh_phase() {
                        p.meta = meta;
                    }
                }
                Err(why) => {
                    let line = self.lines.line_at(range.start);
                    self.out
                        .warnings
                        .push((line, format!("phase metadata kept as prose: {why}")));
                    self.prose(range);
                }
            },
            _ => self.prose(range),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text_pulldown_has_no_event_for() {
        let body = "[ref]: https://example.com\n\n## P @a\n";
        let out = parse(body, 1);
        assert_eq!(out.preamble, [Block::prose("[ref]: https://example.com")]);
    }

    #[test]
    fn plain_headings_nest_or_start_sections_by_level() {
        let out = parse(
            "# T\n\n## A @x\n\n### Notes\n\ntext\n\n## Summary\n\n### Metrics\n",
            1,
        );
        assert_eq!(
            out.preamble,
            [Block::Heading {
                level: 1,
                text: "T".into()
            }]
        );
        assert_eq!(out.sections.len(), 2);
        assert_eq!(
            out.sections[0].blocks()[0],
            Block::Heading {
                level: 3,
                text: "Notes".into()
            }
        );
        assert!(matches!(&out.sections[1], Section::Plain(s) if s.title == "Summary"));
    }

    #[test]
    fn a_tool_call_header_under_text_still_starts_a_list() {
        let out = parse(
            "## P @a\nSome text.\n**Tool calls:**\n- `ls` → 2 files\n",
            1,
        );
        let blocks = out.sections[0].blocks();
        assert_eq!(blocks[0], Block::prose("Some text."));
        assert!(matches!(&blocks[1], Block::ToolCalls { calls } if calls.len() == 1));
    }

    #[test]
    fn adjacent_prose_blocks_merge_verbatim() {
        let body = "para one\n- item\n\n    indented code\n\n> plain quote\n";
        let out = parse(body, 1);
        assert_eq!(out.preamble, [Block::prose(body.trim_end())]);
    }
}
