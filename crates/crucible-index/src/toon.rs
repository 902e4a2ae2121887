//! The TOON the index is made of: top-level `key: value` lines and tabular
//! arrays (`name[N]{field,...}:` then N rows), read and written as a stream.
//!
//! toon-format goes through a `serde_json::Value` tree in both directions,
//! which at 100,000 rows costs seconds and near a gigabyte (see
//! docs/decisions/0003-index-toon.md). This module writes rows straight into
//! a buffer and reads them as slices of the file, decoding only the fields a
//! query asks for. Quoting is decided by toon-format's own `needs_quoting`
//! and `escape_string`, and tests check both directions against its encoder
//! and decoder.

use std::borrow::Cow;

/// One cell of a row being written.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    Str(&'a str),
    Num(u64),
    Null,
    /// A cell already written as TOON (by [`encode_cell`]): a value that
    /// repeats on many rows is checked and escaped once.
    Encoded(&'a str),
}

/// `value` as a row cell would hold it (quoted and escaped when it must be).
pub fn encode_cell(out: &mut String, value: &str) {
    write_cell(out, Cell::Str(value));
}

impl<'a> From<Option<&'a str>> for Cell<'a> {
    fn from(v: Option<&'a str>) -> Self {
        v.map_or(Cell::Null, Cell::Str)
    }
}

impl From<Option<u64>> for Cell<'_> {
    fn from(v: Option<u64>) -> Self {
        v.map_or(Cell::Null, Cell::Num)
    }
}

/// Writes `key: value`.
pub fn write_scalar(out: &mut String, key: &str, value: Cell<'_>) {
    out.push_str(key);
    out.push_str(": ");
    write_cell(out, value);
    out.push('\n');
}

/// Writes `name[len]{fields}:`; an empty array is `name[0]:`, as toon-format writes it.
pub fn write_header(out: &mut String, name: &str, len: usize, fields: &[&str]) {
    out.push_str(name);
    out.push('[');
    out.push_str(&len.to_string());
    out.push(']');
    if len > 0 {
        out.push('{');
        out.push_str(&fields.join(","));
        out.push('}');
    }
    out.push_str(":\n");
}

/// Writes one row, indented by two spaces.
pub fn write_row(out: &mut String, cells: &[Cell<'_>]) {
    write_row_parts(out, &[cells]);
}

/// Writes one row whose cells come in several runs (a record's own cells
/// around the count cells every table shares).
pub fn write_row_parts(out: &mut String, parts: &[&[Cell<'_>]]) {
    out.push_str("  ");
    for (i, c) in parts.iter().flat_map(|p| p.iter()).enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_cell(out, *c);
    }
    out.push('\n');
}

fn write_cell(out: &mut String, c: Cell<'_>) {
    match c {
        Cell::Null => out.push_str("null"),
        Cell::Num(n) => push_number(out, n),
        Cell::Str(s) if needs_quotes(s) => {
            out.push('"');
            push_escaped(out, s);
            out.push('"');
        }
        Cell::Str(s) | Cell::Encoded(s) => out.push_str(s),
    }
}

/// `n` in decimal, without the allocation of `to_string` (a rebuild writes
/// some 15 million numbers).
fn push_number(out: &mut String, mut n: u64) {
    // Most cells are counts, one digit long.
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[start..].iter().map(|&d| char::from(d)));
}

/// Whether a cell must be quoted: TOON's rule (§7.2) for a cell of a
/// comma-delimited row, on bytes. A rebuild writes millions of cells, and
/// toon-format's version walks each string several times and allocates to
/// escape; a test holds this to toon-format's `needs_quoting` on generated
/// strings, and the escaping to its `escape_string`.
fn needs_quotes(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return true;
    };
    matches!(first, b' ' | b'\t' | b'-' | b'#')
        || matches!(last, b' ' | b'\t')
        || matches!(s, "null" | "true" | "false")
        || numeric_like(b)
        || b.iter().any(|&c| QUOTED_BY[usize::from(c)])
}

/// The bytes that make a cell quoted wherever they are: control characters
/// and TOON's punctuation. (A table: the rebuild checks some ten million
/// cells, and a chain of comparisons per byte was a visible part of it.)
const QUOTED_BY: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    let punctuation = b":\"\\[]{},";
    let mut i = 0;
    while i < punctuation.len() {
        t[punctuation[i] as usize] = true;
        i += 1;
    }
    t
};

/// `[+-]?digits(.digits)?([eE][+-]?digits)?`: text a reader would take for
/// a number.
fn numeric_like(b: &[u8]) -> bool {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let n = digits(i);
    if n == 0 {
        return false;
    }
    i += n;
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// `s` escaped for a quoted cell, straight into `out`.
fn push_escaped(out: &mut String, s: &str) {
    // By bytes: every escaped character is ASCII, and no byte of a longer
    // UTF-8 sequence is, so the cuts fall between characters.
    let mut plain = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let escaped = match c {
            b'\\' => "\\\\",
            b'"' => "\\\"",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if escaped.is_empty() {
            use std::fmt::Write;
            let _ = write!(out, "\\u{c:04x}");
        } else {
            out.push_str(escaped);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
}

/// A problem reading an index file, with its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ToonError {
    pub line: usize,
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> ToonError {
    ToonError {
        line,
        message: message.into(),
    }
}

/// A tabular array as slices of the document.
#[derive(Debug, Clone)]
pub struct Table<'a> {
    pub name: &'a str,
    pub fields: Vec<&'a str>,
    /// Each row without its indentation.
    pub rows: Vec<&'a str>,
}

impl Table<'_> {
    /// The position of `field`, if the table has it.
    pub fn column(&self, field: &str) -> Option<usize> {
        self.fields.iter().position(|f| *f == field)
    }
}

/// A document: its `key: value` lines and its tables, in order.
#[derive(Debug, Default)]
pub struct Document<'a> {
    pub scalars: Vec<(&'a str, &'a str)>,
    pub tables: Vec<Table<'a>>,
}

impl<'a> Document<'a> {
    pub fn scalar(&self, key: &str) -> Option<&'a str> {
        self.scalars
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    pub fn table(&self, name: &str) -> Option<&Table<'a>> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// A table's header line (`name[len]{fields}:`): its name, row count and
/// fields.
#[derive(Debug)]
pub struct TableHeader<'a> {
    pub name: &'a str,
    pub len: usize,
    pub fields: Vec<&'a str>,
}

/// A table's header line; `None` when the line is not a header (a
/// `key: value`).
pub fn table_header(line: &str) -> Result<Option<TableHeader<'_>>, String> {
    let Some(open) = line.find('[').filter(|&b| !line[..b].contains(':')) else {
        return Ok(None);
    };
    let name = &line[..open];
    let rest = &line[open + 1..];
    let close = rest.find(']').ok_or("table header without `]`")?;
    let len: usize = rest[..close]
        .parse()
        .map_err(|_| format!("`{}` is not a row count", &rest[..close]))?;
    let rest = &rest[close + 1..];
    let (fields, rest) = match rest.strip_prefix('{') {
        Some(r) => {
            let end = r.find('}').ok_or("field list without `}`")?;
            (r[..end].split(',').map(str::trim).collect(), &r[end + 1..])
        }
        None => (Vec::new(), rest),
    };
    if rest.trim() != ":" {
        return Err("table header must end with `:`".into());
    }
    Ok(Some(TableHeader { name, len, fields }))
}

/// Reads a document made of scalars and tabular arrays (the shape the index
/// writes, and the one toon-format writes for it).
pub fn parse(text: &str) -> Result<Document<'_>, ToonError> {
    let mut doc = Document::default();
    // SIMD line splitting: std's scalar search was a tenth of `list`.
    let mut start = 0;
    let mut lines = memchr::memchr_iter(b'\n', text.as_bytes())
        .chain(std::iter::once(text.len()))
        .map(|end| {
            let line = &text[start.min(end)..end];
            start = end + 1;
            line
        })
        .enumerate()
        .peekable();
    while let Some((i, line)) = lines.next() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(' ') {
            return Err(err(i + 1, "indented line outside a table"));
        }
        let Some(TableHeader { name, len, fields }) =
            table_header(line).map_err(|m| err(i + 1, m))?
        else {
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| err(i + 1, "expected `key: value` or a table header"))?;
            doc.scalars.push((key.trim(), value.trim()));
            continue;
        };
        // The declared count is the file's word, not a promise: a row takes
        // at least two bytes, so no more rows than that are reserved (a
        // header declaring 10^18 rows would otherwise abort the allocation).
        let mut rows = Vec::with_capacity(len.min(text.len() / 2));
        while rows.len() < len {
            match lines.next() {
                Some((_, row)) if row.starts_with(' ') => {
                    let row = row.strip_suffix('\r').unwrap_or(row);
                    rows.push(row.trim_start_matches(' '));
                }
                _ => {
                    return Err(err(
                        i + 1,
                        format!("table `{name}` declares {len} rows but has {}", rows.len()),
                    ));
                }
            }
        }
        if lines
            .peek()
            .is_some_and(|(_, l)| l.starts_with(' ') && !l.trim().is_empty())
        {
            return Err(err(
                i + 1,
                format!("table `{name}` has more rows than the {len} it declares"),
            ));
        }
        doc.tables.push(Table { name, fields, rows });
    }
    Ok(doc)
}

/// Splits a row into its raw cells (quoted cells keep their quotes) without
/// allocating beyond `out`.
pub fn split_row<'a>(row: &'a str, out: &mut Vec<&'a str>) -> Result<(), String> {
    split_row_prefix(row, usize::MAX, out)
}

/// Splits at most the first `n` cells of a row. A byte loop: cells are short,
/// and a search call per cell cost more than it saved.
pub fn split_row_prefix<'a>(row: &'a str, n: usize, out: &mut Vec<&'a str>) -> Result<(), String> {
    out.clear();
    let b = row.as_bytes();
    let mut i = 0;
    while out.len() < n {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let start = i;
        if i < b.len() && b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return Err("unterminated quoted value".into());
            }
            i += 1;
            out.push(&row[start..i]);
            while i < b.len() && b[i] == b' ' {
                i += 1;
            }
        } else {
            while i < b.len() && b[i] != b',' {
                i += 1;
            }
            let mut end = i;
            while end > start && b[end - 1] == b' ' {
                end -= 1;
            }
            out.push(&row[start..end]);
        }
        match b.get(i) {
            None => return Ok(()),
            Some(b',') => i += 1,
            Some(_) => return Err("expected `,` after a quoted value".into()),
        }
    }
    Ok(())
}

/// A cell as text: `None` for `null`, quotes removed and escapes undone.
pub fn text(cell: &str) -> Result<Option<Cow<'_, str>>, String> {
    if cell == "null" {
        return Ok(None);
    }
    match cell.strip_prefix('"').and_then(|c| c.strip_suffix('"')) {
        Some(inner) if inner.contains('\\') => {
            toon_format::unescape_string(inner).map(|s| Some(Cow::Owned(s)))
        }
        Some(inner) => Ok(Some(Cow::Borrowed(inner))),
        None => Ok(Some(Cow::Borrowed(cell))),
    }
}

/// A cell as a whole number: `None` for `null`.
pub fn number(cell: &str) -> Result<Option<u64>, String> {
    if cell == "null" {
        return Ok(None);
    }
    cell.parse()
        .map(Some)
        .map_err(|_| format!("`{cell}` is not a whole number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_declared_row_count_is_an_error_not_an_allocation() {
        let text = format!("t[{}]{{a}}:\n  1\n", usize::MAX);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn writes_and_reads_a_table() {
        let mut out = String::new();
        write_scalar(&mut out, "version", Cell::Num(1));
        write_header(&mut out, "t", 2, &["a", "b", "c"]);
        write_row(&mut out, &[Cell::Str("x, y"), Cell::Num(3), Cell::Null]);
        write_row(
            &mut out,
            &[Cell::Str("say \"hi\"\n"), Cell::Str("42"), Cell::Str("")],
        );
        write_header(&mut out, "empty", 0, &["a"]);
        let doc = parse(&out).unwrap();
        assert_eq!(doc.scalar("version"), Some("1"));
        let t = doc.table("t").unwrap();
        let mut cells = Vec::new();
        split_row(t.rows[0], &mut cells).unwrap();
        assert_eq!(text(cells[0]).unwrap().as_deref(), Some("x, y"));
        assert_eq!(number(cells[1]).unwrap(), Some(3));
        assert_eq!(text(cells[2]).unwrap(), None);
        split_row(t.rows[1], &mut cells).unwrap();
        assert_eq!(text(cells[0]).unwrap().as_deref(), Some("say \"hi\"\n"));
        assert_eq!(text(cells[1]).unwrap().as_deref(), Some("42"));
        assert_eq!(text(cells[2]).unwrap().as_deref(), Some(""));
        assert!(doc.table("empty").unwrap().rows.is_empty());
    }

    proptest::proptest! {
        /// Our quoting and escaping are toon-format's, on strings made of
        /// the characters that matter (delimiters, quotes, brackets, signs,
        /// digits, exponents, spaces, controls, non-ASCII).
        #[test]
        fn quoting_and_escaping_agree_with_toon_format(
            s in "[a-eE0-9 \\t\\n\\r\\x01\\x1f+\\-.#:,\"\\\\\\[\\]{}@/_é→]{0,12}"
        ) {
            proptest::prop_assert_eq!(needs_quotes(&s), toon_format::needs_quoting(&s, ','), "{:?}", s);
            let mut out = String::new();
            push_escaped(&mut out, &s);
            proptest::prop_assert_eq!(out, toon_format::escape_string(&s));
        }
    }

    #[test]
    fn literals_and_numbers_are_quoted() {
        for s in [
            "true", "false", "null", "12", "-3.5", "1e9", "+1", "05", "", " a", "a ", "-x", "#x",
            "a:b", "a,b",
        ] {
            assert!(needs_quotes(s), "{s:?}");
            assert!(toon_format::needs_quoting(s, ','), "{s:?}");
        }
        for s in [
            "True",
            "NaN",
            "inf",
            "e5",
            "1.",
            ".5",
            "1e",
            "coder@1.0",
            "a b",
            "2025-12-05x",
        ] {
            assert_eq!(needs_quotes(s), toon_format::needs_quoting(s, ','), "{s:?}");
        }
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 1_000_000, u64::MAX] {
            let mut out = String::new();
            push_number(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn malformed_tables_name_the_line() {
        assert_eq!(parse("a: 1\nt[2]{x}:\n  1\n").unwrap_err().line, 2);
        assert_eq!(parse("t[x]{a}:\n").unwrap_err().line, 1);
        assert!(parse("t[1]{a}:\n  1\n  2\n").is_err());
        let mut cells = Vec::new();
        assert!(split_row("\"open", &mut cells).is_err());
    }
}
