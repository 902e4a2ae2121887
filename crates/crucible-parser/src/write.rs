//! The canonical markdown of a session.

use crucible_core::{Block, Section, SessionLog};

use crate::body::{PROMPT, SYSTEM_PROMPT};
use crate::{callout, frontmatter, heading, phase_meta, tasks, tool_calls, usage_line};

/// Writes `log` as canonical markdown: LF line endings, no BOM, one blank
/// line between blocks, known frontmatter keys in a fixed order then unknown
/// keys in theirs. `parse_session(write_session(log)) == log`.
pub fn write_session(log: &SessionLog) -> String {
    let mut out = String::with_capacity(4096);
    frontmatter::write(&log.frontmatter, &mut out);
    let mut w = Chunks { out, first: true };
    for block in &log.preamble {
        w.block(block);
    }
    for section in &log.sections {
        w.start();
        match section {
            Section::Phase(p) => {
                w.out.push_str(&heading::write_phase(
                    p.level,
                    &p.name,
                    p.agent.as_ref(),
                    p.channel.as_deref(),
                ));
                if let Some(meta) = phase_meta::write(&p.meta) {
                    w.out.push('\n');
                    w.out.push_str(&meta);
                }
                // The requests, a line each, under the heading with the
                // metadata: above the phase's text, so no text (an HTML
                // comment left open, say) can swallow them.
                for r in &p.usage {
                    w.out.push('\n');
                    usage_line::write(r, &mut w.out);
                }
            }
            Section::Plain(s) => w.out.push_str(&heading::write_plain(s.level, &s.title)),
        }
        for block in section.blocks() {
            w.block(block);
        }
    }
    if !w.first {
        w.out.push('\n');
    }
    w.out
}

struct Chunks {
    out: String,
    first: bool,
}

impl Chunks {
    /// Separates chunks by one blank line (and the body from the frontmatter).
    fn start(&mut self) {
        self.out.push_str(if self.first { "\n" } else { "\n\n" });
        self.first = false;
    }

    fn block(&mut self, block: &Block) {
        self.start();
        let out = &mut self.out;
        match block {
            Block::Heading { level, text } => out.push_str(&heading::write_plain(*level, text)),
            Block::Prose { text } => out.push_str(text),
            Block::Rule => out.push_str("---"),
            Block::ToolCalls { calls } => tool_calls::write(calls, out),
            Block::Callout(c) => callout::write(c, out),
            Block::Tasks { tasks } => tasks::write(tasks, out),
            Block::SystemPrompt { text } => fenced(SYSTEM_PROMPT, text, out),
            Block::Prompt { text } => fenced(PROMPT, text, out),
        }
    }
}

/// A fenced block whose text is kept exactly: the fence is longer than any
/// run of backticks inside, so no line of the text can close it.
fn fenced(info: &str, text: &str, out: &mut String) {
    let fence = "`".repeat(longest_backtick_run(text).max(2) + 1);
    out.push_str(&format!("{fence}{info}\n{text}\n{fence}"));
}

fn longest_backtick_run(s: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for b in s.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}
