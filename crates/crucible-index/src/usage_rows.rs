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
    /// path is `session_path`. `cells` and `ordered` are the caller's
    /// buffers.
    pub(crate) fn cell(
        &self,
        i: usize,
        session_path: &str,
        cells: &mut Vec<&'a str>,
        ordered: &mut Vec<&'a str>,
    ) -> Result<&'a str, IndexFileError> {
        let row = self.rows.get(i).ok_or_else(|| self.corrupt(i, "missing"))?;
        toon::split_row(row, cells).map_err(|m| self.corrupt(i, m))?;
        self.columns.order(cells, ordered);
        let [path, usage] = ordered[..] else {
            let found = ordered.len();
            return Err(self.corrupt(i, format!("expected 2 cells, found {found}")));
        };
        let path = toon::text(path).map_err(|m| self.corrupt(i, m))?;
        if path.as_deref() != Some(session_path) {
            return Err(self.corrupt(
                i,
                format!(
                    "path {} where the sessions table has {session_path}",
                    path.as_deref().unwrap_or("null")
                ),
            ));
        }
        Ok(usage)
    }

    /// The error for row `i` of the usage table.
    pub(crate) fn corrupt(&self, i: usize, message: impl std::fmt::Display) -> IndexFileError {
        IndexFileError::Corrupt {
            path: self.path.to_owned(),
            line: i + 1,
            message: format!("table `usage`, row {}: {message}", i + 1),
        }
    }
}
