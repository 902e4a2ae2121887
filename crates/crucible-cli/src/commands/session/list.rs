//! `cru session list [filters] [--limit N] [--format table|json|toon]`.

use std::io::{IsTerminal, Write};

use clap::Args;
use crucible_index::{SessionRecord, query};

use super::query::{DataFormat, FilterArgs};
use crate::context::Context;
use crate::error::Outcome;
use crate::render::output::list::ListAnswer;
use crate::render::output::{self, DuplicateId, SkippedFile};
use crate::render::table::{Table, fit};

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
    /// At most this many sessions (the newest).
    #[arg(long)]
    pub limit: Option<usize>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = DataFormat::Table)]
    pub format: DataFormat,
}

/// What `list` found, before it is printed.
pub struct Listed {
    /// Newest first, at most `--limit`.
    pub rows: Vec<SessionRecord>,
    skipped: Vec<crucible_index::Problem>,
    duplicates: Vec<crucible_index::Duplicate>,
    pub outcome: Outcome,
}

impl Listed {
    /// The answer `--format json` prints (and `cru mcp` gives).
    pub fn answer(&self) -> ListAnswer<'_> {
        ListAnswer {
            sessions: self.rows.iter().map(SessionRecord::view).collect(),
            skipped: SkippedFile::all(&self.skipped),
            duplicates: DuplicateId::all(&self.duplicates),
        }
    }
}

/// The sessions the filters take, newest first, at most `--limit`.
pub fn listed(ctx: &Context, args: &ListArgs) -> anyhow::Result<Listed> {
    let filter = args.filters.filter()?;
    let found = super::query::records(ctx, &filter)?;
    Ok(Listed {
        rows: query::sort_newest_first(found.tally, args.limit),
        skipped: found.skipped,
        duplicates: found.duplicates,
        outcome: found.outcome,
    })
}

pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<Outcome> {
    let listed = listed(ctx, args)?;
    let rows = &listed.rows;
    if rows.is_empty() {
        // Only when nothing is listed (the user's directory is read for
        // it): captured sessions of this project may be elsewhere.
        let elsewhere = crate::commands::session::import::captured_elsewhere(ctx);
        if let Some(note) = elsewhere
            .and_then(|(n, dir)| crate::commands::session::import::captured_elsewhere_note(n, &dir))
        {
            eprintln!("note: {note}");
        }
    }
    match args.format {
        DataFormat::Json => output::print_json(&listed.answer())?,
        DataFormat::Toon => output::print_toon(&listed.answer())?,
        DataFormat::Table => {
            let mut out = anstream::stdout().lock();
            // The title only on a terminal, in the room its width leaves.
            let width = terminal_size::terminal_size()
                .filter(|_| std::io::stdout().is_terminal())
                .map(|(w, _)| usize::from(w.0));
            table(&mut out, rows, width)?;
            out.flush()?;
        }
    }
    Ok(listed.outcome)
}

/// The sessions as a table; with a terminal `width`, their titles too, cut
/// to what is left of it.
fn table(
    out: &mut impl Write,
    rows: &[SessionRecord],
    width: Option<usize>,
) -> std::io::Result<()> {
    let mut table = Table::new(&["id", "status", "started", "participants"]);
    for r in rows {
        table.push([
            r.id.clone(),
            r.status.as_str().to_owned(),
            r.started.clone(),
            r.participants.join(", "),
        ]);
    }
    add_titles(
        &mut table,
        rows.iter().map(|r| r.title.as_deref().unwrap_or("")),
        width,
    );
    table.write(out)
}

/// Adds the title column when a terminal `width` leaves room enough for it
/// to be useful, each title cut to that room.
fn add_titles<'a>(table: &mut Table, titles: impl Iterator<Item = &'a str>, width: Option<usize>) {
    let room = width.map_or(0, |w| w.saturating_sub(table.width() + TITLE_MARGIN));
    if room >= 10 {
        table.push_column("title", titles.map(|t| fit(t, room)));
    }
}

/// The two spaces before the title and two kept free at the terminal's
/// right edge.
const TITLE_MARGIN: usize = 4;

#[cfg(test)]
mod tests {
    use unicode_width::UnicodeWidthStr;

    use super::*;

    fn sessions() -> Table {
        let mut t = Table::new(&["id", "status", "started", "participants"]);
        t.push(["a1", "paused", "2026-01-02", "翻译助手@1.0"].map(str::to_owned));
        t.push(["b22", "completed", "2026-01-01", "🤖 bot@2.0"].map(str::to_owned));
        t
    }

    #[test]
    fn titles_fit_the_terminal_by_display_width() {
        let mut t = sessions();
        let titles = ["修复解析器的时间戳错误并添加测试", "🚀 launch the release"];
        add_titles(&mut t, titles.into_iter(), Some(60));
        let lines = t.lines();
        assert!(lines[0].ends_with("title"), "{lines:#?}");
        // Two columns kept free at the right edge.
        assert!(lines.iter().all(|l| l.width() <= 58), "{lines:#?}");
        assert!(lines[1].ends_with('…'), "{lines:#?}");
        // Every title starts in the same display column.
        let at = lines[0].width() - "title".len();
        for (line, title) in lines[1..].iter().zip(titles) {
            let first = title.chars().next().unwrap().to_string();
            let (i, _) = line.match_indices(&first).last().unwrap();
            assert_eq!(line[..i].width(), at, "{lines:#?}");
        }
    }

    #[test]
    fn no_title_when_the_terminal_is_narrow_or_absent() {
        for width in [None, Some(40)] {
            let mut t = sessions();
            add_titles(&mut t, ["x", "y"].into_iter(), width);
            assert!(t.lines()[0].ends_with("participants"), "{width:?}");
        }
    }
}
