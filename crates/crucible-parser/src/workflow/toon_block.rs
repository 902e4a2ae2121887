//! `session-toon` blocks: one TOON tabular array, `execution[N]{fields}:`,
//! with rows indented by one space (as in the wild) or two (canonical TOON).
//!
//! A small reader of its own rather than toon-format's decoder, for two
//! reasons: errors must name the line and column and what is missing, and
//! one-space rows are not canonical TOON. Tests check that toon-format reads
//! the canonical form of every sample block to the same values.

use crucible_core::workflow::{ExecutionBlock, ExecutionRow, WorkflowProblem};

/// The array name the spec gives execution history.
pub(crate) const TABLE: &str = "execution";

/// Reads a block whose content lines start at file line `first_line`; the
/// fence itself is on `fence_line`. Problems are pushed; a block whose
/// header cannot be read gives `None`.
pub(crate) fn parse(
    lines: &[&str],
    first_line: usize,
    fence_line: usize,
    problems: &mut Vec<WorkflowProblem>,
) -> Option<ExecutionBlock> {
    let mut numbered = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (first_line + i, *l))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = numbered.next() else {
        problems.push(WorkflowProblem::error(
            fence_line,
            1,
            "empty session-toon block (expected `execution[N]{phase,status,...}:`)",
        ));
        return None;
    };
    let (count, fields) = match parse_header(header) {
        Ok(h) => h,
        Err((column, message)) => {
            problems.push(WorkflowProblem::error(header_line, column, message));
            return None;
        }
    };
    let mut rows = Vec::new();
    let mut seen = 0;
    for (line, text) in numbered {
        let indent = text.len() - text.trim_start_matches(' ').len();
        if indent == 0 {
            problems.push(WorkflowProblem::error(
                line,
                1,
                "expected an indented row of the execution table",
            ));
            continue;
        }
        seen += 1;
        match split_row(text.trim()) {
            Ok(cells) if cells.len() == fields.len() => rows.push(ExecutionRow {
                line,
                values: fields.iter().cloned().zip(cells).collect(),
            }),
            Ok(cells) => problems.push(WorkflowProblem::error(
                line,
                indent + 1,
                format!(
                    "row has {} cells; the header has {} fields",
                    cells.len(),
                    fields.len()
                ),
            )),
            Err((column, message)) => {
                problems.push(WorkflowProblem::error(line, indent + column, message));
            }
        }
    }
    if seen != count {
        problems.push(WorkflowProblem::error(
            header_line,
            TABLE.len() + 2,
            format!("the header says {count} rows; the block has {seen}"),
        ));
    }
    Some(ExecutionBlock {
        line: fence_line,
        fields,
        rows,
    })
}

/// `execution[N]{a,b,c}:` → (N, fields); errors give a 1-based column.
fn parse_header(h: &str) -> Result<(usize, Vec<String>), (usize, String)> {
    let lead = h.len() - h.trim_start().len();
    let h = h.trim();
    let col = |byte: usize| lead + h[..byte.min(h.len())].chars().count() + 1;
    let expected = format!("expected `{TABLE}[N]{{phase,status,...}}:`");
    let open = h
        .find('[')
        .ok_or_else(|| (col(0), format!("{expected}: no `[`")))?;
    let name = &h[..open];
    if name != TABLE {
        return Err((col(0), format!("{expected}, found `{name}`")));
    }
    let close = h[open..]
        .find(']')
        .map(|i| open + i)
        .filter(|&c| !h[open..c].contains('{'))
        .ok_or_else(|| {
            let at = h[open + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(h.len(), |i| open + 1 + i);
            (col(at), "expected `]` after the row count".to_owned())
        })?;
    let count_text = &h[open + 1..close];
    let count: usize = count_text.parse().map_err(|_| {
        (
            col(open + 1),
            format!("the row count `{count_text}` is not a whole number"),
        )
    })?;
    let rest = &h[close + 1..];
    let Some(fields_text) = rest.strip_prefix('{') else {
        return Err((
            col(close + 1),
            "expected `{` and the field names after `]`".into(),
        ));
    };
    let end = fields_text.find('}').ok_or_else(|| {
        (
            col(h.len()),
            "expected `}` after the field names".to_owned(),
        )
    })?;
    if fields_text[end + 1..].trim() != ":" {
        return Err((col(close + 2 + end + 1), "expected `:` after `}`".into()));
    }
    let fields: Vec<String> = fields_text[..end]
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_owned())
        .collect();
    if let Some(i) = fields.iter().position(String::is_empty) {
        return Err((col(close + 2), format!("field {} has no name", i + 1)));
    }
    Ok((count, fields))
}

/// Splits a row at commas outside quotes; quoted cells are unescaped and an
/// unquoted `null` is an empty cell.
pub(crate) fn split_row(row: &str) -> Result<Vec<String>, (usize, String)> {
    let mut cells = Vec::new();
    let mut chars = row.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| *c == ' ').is_some() {}
        let mut cell = String::new();
        if let Some(&(start, '"')) = chars.peek() {
            chars.next();
            let mut closed = false;
            while let Some((_, c)) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, 'n')) => cell.push('\n'),
                        Some((_, 't')) => cell.push('\t'),
                        Some((_, 'r')) => cell.push('\r'),
                        Some((_, other)) => cell.push(other),
                        None => break,
                    },
                    other => cell.push(other),
                }
            }
            if !closed {
                return Err((start + 1, "a quoted cell is not closed".into()));
            }
            while chars.next_if(|(_, c)| *c == ' ').is_some() {}
            match chars.next() {
                None => {
                    cells.push(cell);
                    return Ok(cells);
                }
                Some((_, ',')) => cells.push(cell),
                Some((i, _)) => return Err((i + 1, "expected `,` after a quoted cell".into())),
            }
        } else {
            let mut end = false;
            loop {
                match chars.next() {
                    None => {
                        end = true;
                        break;
                    }
                    Some((_, ',')) => break,
                    Some((_, c)) => cell.push(c),
                }
            }
            let v = cell.trim();
            cells.push(if v == "null" {
                String::new()
            } else {
                v.to_owned()
            });
            if end {
                return Ok(cells);
            }
        }
    }
}

/// Writes a cell, quoted when TOON needs it.
pub(crate) fn cell(value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    let literal = plain_number(value) || value == "true" || value == "false";
    if toon_format::needs_quoting(value, ',') && !literal {
        format!("\"{}\"", toon_format::escape_string(value))
    } else {
        value.to_owned()
    }
}

/// Numbers (and `true`/`false`) are written bare, as TOON writes them; the
/// row keeps their text either way.
fn plain_number(v: &str) -> bool {
    v.parse::<f64>().is_ok_and(f64::is_finite) && !v.starts_with(['+', '.']) && !v.ends_with('.')
}

/// The block as canonical TOON: two-space rows, `execution[N]{...}:`.
pub(crate) fn write(block: &ExecutionBlock, out: &mut String) {
    let fields: Vec<String> = block.fields.iter().map(|f| cell(f)).collect();
    out.push_str(&format!(
        "```session-toon\n{TABLE}[{}]{{{}}}:\n",
        block.rows.len(),
        fields.join(",")
    ));
    for r in &block.rows {
        let cells: Vec<String> = block
            .fields
            .iter()
            .map(|f| cell(r.get(f).unwrap_or("")))
            .collect();
        out.push_str("  ");
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out.push_str("```\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut problems = Vec::new();
        parse(&lines, 11, 10, &mut problems);
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn reads_one_and_two_space_rows_and_custom_fields() {
        let lines = [
            "execution[2]{phase,status,note}:",
            " Load,success,\"a, b\"",
            "  Load,failed,null",
        ];
        let mut problems = Vec::new();
        let b = parse(&lines, 2, 1, &mut problems).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(b.rows[0].get("note"), Some("a, b"));
        assert_eq!(b.rows[1].get("note"), None);
        assert_eq!(b.rows[1].line, 4);
    }

    #[test]
    fn a_malformed_header_names_line_column_and_what_is_missing() {
        assert_eq!(
            problems_of("execution[2{phase,agent}:"),
            vec!["11:12: error: expected `]` after the row count"]
        );
        assert_eq!(
            problems_of("execution[2]{phase,status:"),
            vec!["11:27: error: expected `}` after the field names"]
        );
        assert_eq!(
            problems_of("runs[1]{phase,status}:\n A,success"),
            vec!["11:1: error: expected `execution[N]{phase,status,...}:`, found `runs`"]
        );
        assert_eq!(
            problems_of("execution[x]{phase}:"),
            vec!["11:11: error: the row count `x` is not a whole number"]
        );
    }

    #[test]
    fn bad_rows_are_errors_and_the_rest_is_read() {
        assert_eq!(
            problems_of("execution[3]{phase,status}:\n A,success,extra\n \"open,x\n B,success"),
            vec![
                "12:2: error: row has 3 cells; the header has 2 fields",
                "13:2: error: a quoted cell is not closed",
            ]
        );
    }

    #[test]
    fn cells_are_quoted_only_when_needed() {
        assert_eq!(cell("loaded_df"), "loaded_df");
        assert_eq!(cell("1200"), "1200");
        assert_eq!(cell("89.99"), "89.99");
        assert_eq!(cell("a, b"), "\"a, b\"");
        assert_eq!(cell("https://x.example"), "\"https://x.example\"");
        assert_eq!(cell("true"), "true");
        assert_eq!(cell("-a"), "\"-a\"");
    }
}
