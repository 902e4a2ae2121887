//! The usage file's rows beside the base's sessions rows.
//!
//! The usage cells are most of an index's bytes (at 100,000 sessions with
//! usage records, 190 MB of 227), and `list` never reads them: they live in
//! `.index-usage.toon`, one row (`path,usage`) per row of the base's
//! sessions table, in the same order. Row `i` of one is row `i` of the
//! other; each row names its path, and a path that differs, or tables of
//! different lengths, make the index corrupt (it is rebuilt).

use std::path::Path;

use crate::files::IndexFileError;
use crate::record::{Columns, USAGE_FIELDS};
use crate::toon;

/// The usage file's rows, to join with the base's sessions rows by place.
#[derive(Debug)]
pub(crate) struct UsageRows<'a> {
    path: &'a Path,
    columns: Columns,
    rows: Vec<&'a str>,
}

impl<'a> UsageRows<'a> {
    /// The rows of `usage` (the usage file's table, at `path`), checked to
    /// be as many as the base's `sessions` rows.
    pub(crate) fn new(
        path: &'a Path,
        usage: Option<&toon::Table<'a>>,
        sessions: usize,
    ) -> Result<Self, IndexFileError> {
        let found = usage.map_or(0, |t| t.rows.len());
        if found != sessions {
            return Err(IndexFileError::Corrupt {
                path: path.to_owned(),
                line: 1,
                message: format!(
                    "table `usage` has {found} rows for the base's {sessions} session rows"
                ),
            });
        }
        Ok(Self {
            path,
            columns: usage.map_or(Columns::identity(), |t| Columns::new(t, USAGE_FIELDS)),
            rows: usage.map(|t| t.rows.clone()).unwrap_or_default(),
        })
    }

    /// The usage cell (raw, as in the file) of the `i`th sessions row, whose
    /// raw path cell is `session_path`. `cells` and `ordered` are the
    /// caller's buffers.
    pub(crate) fn cell(
        &self,
        i: usize,
        session_path: &str,
        cells: &mut Vec<&'a str>,
        ordered: &mut Vec<&'a str>,
    ) -> Result<&'a str, IndexFileError> {
        let corrupt = |message: String| IndexFileError::Corrupt {
            path: self.path.to_owned(),
            line: i + 1,
            message: format!("table `usage`, row {}: {message}", i + 1),
        };
        let row = self.rows.get(i).ok_or_else(|| corrupt("missing".into()))?;
        toon::split_row(row, cells).map_err(corrupt)?;
        self.columns.order(cells, ordered);
        let [path, usage] = ordered[..] else {
            return Err(corrupt(format!(
                "expected 2 cells, found {}",
                ordered.len()
            )));
        };
        // Both written by one writer: the raw cells are equal. A file
        // rewritten by another TOON writer may quote differently.
        if path != session_path && toon::text(path).ok() != toon::text(session_path).ok() {
            return Err(corrupt(format!(
                "path {path} where the sessions table has {session_path}"
            )));
        }
        Ok(usage)
    }
}
