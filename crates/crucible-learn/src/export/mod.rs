//! Writing cases: JSONL in three schemas, a markdown document, the puzzle
//! format.

mod chat;
mod text;

use std::io::Write;

use crate::case::{Case, CaseKind};

pub use chat::{dpo_line, sft_line, sharegpt_line};
pub use text::{markdown_case, markdown_header, puzzle_case};

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    Jsonl(Schema),
    Markdown,
    Puzzle,
}

/// The JSONL shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schema {
    /// `{"messages": [...], "metadata": {...}}`: OpenAI fine-tuning, TRL SFT, Axolotl.
    #[default]
    Sft,
    /// `{"prompt", "chosen", "rejected"}` (conversational), as TRL's DPO trainer reads.
    Dpo,
    /// `{"conversations": [{"from", "value"}]}`.
    ShareGpt,
}

/// What an export wrote and left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    pub puzzles: usize,
    pub corrections: usize,
    /// Cases the format cannot hold (an open puzzle has no answer to train
    /// on; a DPO pair needs a rejected side).
    pub left_out: usize,
}

/// One case in `export`'s form; `None` when the format cannot hold it.
pub fn render(case: &Case, export: Export) -> Option<String> {
    match export {
        Export::Jsonl(Schema::Sft) => sft_line(case),
        Export::Jsonl(Schema::Dpo) => dpo_line(case),
        Export::Jsonl(Schema::ShareGpt) => sharegpt_line(case),
        Export::Markdown => Some(markdown_case(case)),
        Export::Puzzle => Some(puzzle_case(case)),
    }
}

/// Writes cases as they come, in one format.
#[derive(Debug)]
pub struct CaseWriter<W: Write> {
    out: W,
    export: Export,
    pub written: Written,
    started: bool,
}

impl<W: Write> CaseWriter<W> {
    pub fn new(out: W, export: Export) -> Self {
        Self {
            out,
            export,
            written: Written::default(),
            started: false,
        }
    }

    /// Writes one case (or counts it as left out).
    pub fn write(&mut self, case: &Case) -> std::io::Result<()> {
        let text = render(case, self.export);
        self.write_rendered(case.meta.kind, text.as_deref())
    }

    /// Writes a case already rendered with [`render`] (on another thread,
    /// say); `None` counts it as left out.
    pub fn write_rendered(&mut self, kind: CaseKind, text: Option<&str>) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            if self.export == Export::Markdown {
                self.out.write_all(markdown_header().as_bytes())?;
            }
        }
        match text {
            Some(t) => {
                self.out.write_all(t.as_bytes())?;
                match kind {
                    CaseKind::Puzzle => self.written.puzzles += 1,
                    CaseKind::Correction => self.written.corrections += 1,
                }
            }
            None => self.written.left_out += 1,
        }
        Ok(())
    }

    pub fn finish(mut self) -> std::io::Result<(W, Written)> {
        self.out.flush()?;
        Ok((self.out, self.written))
    }
}
