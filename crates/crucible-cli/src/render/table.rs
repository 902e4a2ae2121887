//! The one table renderer for people: plain columns two spaces apart, no
//! borders, a bold header (anstream drops the bold when stdout is piped or
//! NO_COLOR is set). `comfy-table` lays the columns out and measures cells
//! by display width, so CJK and emoji line up; every table cru prints goes
//! through here.

use std::io::Write;

use comfy_table::{CellAlignment, ColumnConstraint, ContentArrangement, presets};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The most columns a table cell takes: more than the longest session id,
/// so an id is never cut. A longer cell (a title or an agent name pasted by
/// mistake, or a hostile file) is cut with `…`; the JSON and TOON formats
/// keep it whole.
pub const MAX_CELL_WIDTH: usize = 200;

/// Spaces between two columns.
const GAP: u16 = 2;

/// Where a cell's text sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table being filled: a header, rows of cells, and how each column is
/// aligned.
#[derive(Debug, Default)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
    bold_last_row: bool,
}

impl Table {
    /// A table with these column names, every column aligned left.
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            align: vec![Align::Left; header.len()],
            ..Self::default()
        }
    }

    /// Aligns column `index` (numbers read better aligned right).
    #[must_use]
    pub fn align(mut self, index: usize, align: Align) -> Self {
        if let Some(a) = self.align.get_mut(index) {
            *a = align;
        }
        self
    }

    /// Shows the last row in bold too (a total).
    #[must_use]
    pub fn bold_last_row(mut self) -> Self {
        self.bold_last_row = true;
        self
    }

    /// Adds a row; each cell is cut to [`MAX_CELL_WIDTH`] and kept on one
    /// line.
    pub fn push(&mut self, row: impl IntoIterator<Item = String>) {
        self.rows
            .push(row.into_iter().map(|c| fit(&c, MAX_CELL_WIDTH)).collect());
    }

    /// Adds a column on the right: its name and a cell for each row.
    pub fn push_column(&mut self, name: &str, cells: impl IntoIterator<Item = String>) {
        self.header.push(name.to_owned());
        self.align.push(Align::Left);
        let mut cells = cells.into_iter();
        for row in &mut self.rows {
            row.push(fit(&cells.next().unwrap_or_default(), MAX_CELL_WIDTH));
        }
    }

    /// The display width of the widest line.
    pub fn width(&self) -> usize {
        self.lines().iter().map(|l| l.width()).max().unwrap_or(0)
    }

    /// The table's lines, header first, without trailing spaces.
    pub fn lines(&self) -> Vec<String> {
        let mut t = comfy_table::Table::new();
        t.load_preset(presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(&self.header);
        for row in &self.rows {
            t.add_row(row);
        }
        let last = self.header.len().saturating_sub(1);
        for (i, align) in self.align.iter().enumerate() {
            if let Some(column) = t.column_mut(i) {
                column.set_padding((0, if i == last { 0 } else { GAP }));
                column.set_cell_alignment(match align {
                    Align::Left => CellAlignment::Left,
                    Align::Right => CellAlignment::Right,
                });
                // Cells are already cut: never wrap one onto a second line.
                column.set_constraint(ColumnConstraint::ContentWidth);
            }
        }
        t.lines().map(|l| l.trim_end().to_owned()).collect()
    }

    /// Writes the table to `out`, the header (and a total) in bold.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let bold = anstyle::Style::new().bold();
        let lines = self.lines();
        let last = lines.len().saturating_sub(1);
        for (i, line) in lines.iter().enumerate() {
            if i == 0 || (i == last && self.bold_last_row) {
                writeln!(out, "{bold}{line}{bold:#}")?;
            } else {
                writeln!(out, "{line}")?;
            }
        }
        Ok(())
    }
}

/// `text` on one line with nothing a terminal would obey: control
/// characters (a newline, an escape sequence's ESC) become spaces. Every
/// value from a session printed on a line of plain text goes through it.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(char::is_control) {
        text.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// `text` on one line and at most `width` columns wide, ending in `…` when
/// it was cut. Control characters (a newline in a title) become spaces: a
/// cell never breaks its row.
pub fn fit(text: &str, width: usize) -> String {
    let one_line = |c: char| if c.is_control() { ' ' } else { c };
    if text.width() <= width && !text.contains(char::is_control) {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    let mut chars = text.chars().map(one_line).peekable();
    while let Some(c) = chars.next() {
        let w = c.width().unwrap_or(0);
        // Room for `…` unless this is the last character.
        let room = if chars.peek().is_some() {
            width.saturating_sub(1)
        } else {
            width
        };
        if used + w > room {
            out.push('…');
            return out;
        }
        out.push(c);
        used += w;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_by_display_width() {
        let mut t = Table::new(&["name", "n"]).align(1, Align::Right);
        t.push(["会话标题".to_owned(), "1".to_owned()]);
        t.push(["🚀 launch".to_owned(), "22".to_owned()]);
        t.push(["plain".to_owned(), "333".to_owned()]);
        let lines = t.lines();
        assert_eq!(
            lines,
            [
                format!("name{}n", " ".repeat(9)),
                format!("会话标题{}1", " ".repeat(5)),
                "🚀 launch   22".to_owned(),
                "plain      333".to_owned(),
            ]
        );
        let widths: Vec<usize> = lines.iter().map(|l| l.width()).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{lines:#?}");
    }

    #[test]
    fn cells_are_cut_by_width_and_kept_on_one_line() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abcd", 4), "abcd");
        assert_eq!(fit("会话标题", 5), "会话…");
        assert_eq!(fit("a\nb", 10), "a b");
    }
}
