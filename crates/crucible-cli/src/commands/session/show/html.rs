//! `cru session show --format html`: the session as one page.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crucible_core::{DataRecord, Section, SessionData, SessionId, SessionLog};
use crucible_usage::CostMode;
use crucible_view::{Figures, Neighbours, SessionPage};

use crate::context::Context;
use crate::error::CliError;

/// Writes the page of `log` (read from `path`), of its phase `phase` alone
/// when given, to `output` or standard output.
pub fn write(
    ctx: &Context,
    path: &Path,
    log: &SessionLog,
    phase: Option<usize>,
    output: Option<&Path>,
) -> anyhow::Result<()> {
    if let Some(file) = output {
        crate::output_guard::not_a_session(ctx, file)?;
    }
    let data = ctx.store.load_data_for(path, log).map_err(CliError::from)?;
    let (log, data) = match phase {
        Some(n) => only_phase(log, data, n),
        None => (log.clone(), data),
    };
    let figures = figures(ctx, &log)?;
    let neighbours = StoreNeighbours {
        ctx,
        found: std::cell::RefCell::default(),
        beside: output.map(|o| {
            o.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_owned)
        }),
    };
    let page = SessionPage {
        first_phase: phase.unwrap_or(1),
        log: &log,
        data: data.as_ref(),
        figures,
        neighbours: &neighbours,
        home: None,
    }
    .render();
    if let Some(file) = output {
        crucible_core::store::atomic::write_output(file, page.as_bytes())
            .map_err(|e| CliError::new(format!("{}: {e}", file.display())))?;
    } else {
        let mut out = crate::render::data_out();
        out.write_all(page.as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// The session with its phase `n` (from 1) as its only section, and the
/// sidecar's calls of that phase renumbered to match.
fn only_phase(
    log: &SessionLog,
    data: Option<SessionData>,
    n: usize,
) -> (SessionLog, Option<SessionData>) {
    let section = log
        .sections
        .iter()
        .filter(|s| matches!(s, Section::Phase(_)))
        .nth(n - 1)
        .cloned();
    let alone = SessionLog {
        sections: section.into_iter().collect(),
        ..log.clone()
    };
    let data = data.map(|d| SessionData {
        records: d
            .records
            .into_iter()
            .filter_map(|r| match r {
                DataRecord::Call(mut c) if c.phase == n - 1 => {
                    c.phase = 0;
                    Some(DataRecord::Call(c))
                }
                DataRecord::Call(_) => None,
                other => Some(other),
            })
            .collect(),
    });
    (alone, data)
}

/// The session's tokens and cost by the price table, as `cru usage` counts
/// them.
fn figures(ctx: &Context, log: &SessionLog) -> anyhow::Result<Option<Figures>> {
    let lines = log.usage_lines();
    if lines.is_empty() {
        return Ok(None);
    }
    let table = crate::commands::usage::prices::price_table(ctx, jiff::Timestamp::now())?;
    let mut figures = Figures::default();
    let mut priced = false;
    let mut total = crucible_usage::Cost::default();
    for line in &lines {
        figures.tokens += line.total();
        let cost = table.cost_of(line, CostMode::Auto);
        priced |= cost.unpriced_tokens < line.total();
        total.add(cost);
    }
    figures.cost_usd = priced.then(|| total.usd());
    Ok(Some(figures))
}

/// Other sessions as the page links to them: the page of one beside the
/// output file when there is one (as `cru site` names pages), else its
/// session file.
struct StoreNeighbours<'c> {
    ctx: &'c Context,
    /// The folder the page is written to (`None`: standard output).
    beside: Option<PathBuf>,
    /// Each session looked up so far: a page asks for an embed's link and
    /// then its content, and finding a file by its id may read the whole
    /// directory (to refuse an id two files declare).
    found: std::cell::RefCell<std::collections::HashMap<String, Option<(PathBuf, SessionLog)>>>,
}

impl StoreNeighbours<'_> {
    /// The file of session `id` exactly (not a prefix of another id).
    fn file_of(&self, id: &str) -> Option<(PathBuf, SessionLog)> {
        if let Some(found) = self.found.borrow().get(id) {
            return found.clone();
        }
        let found = SessionId::new(id).ok().and_then(|sid| {
            let path = self.ctx.store.resolve_id(&sid).ok()?;
            let log = self.ctx.store.load_path(&path).ok()?;
            (log.id() == &sid).then_some((path, log))
        });
        self.found.borrow_mut().insert(id.to_owned(), found.clone());
        found
    }
}

impl Neighbours for StoreNeighbours<'_> {
    fn href(&self, id: &str) -> Option<String> {
        let (path, _) = self.file_of(id)?;
        if let Some(beside) = &self.beside {
            let page = format!("{id}.html");
            if beside.join(&page).is_file() {
                return Some(page);
            }
        }
        // Relative to where the page is (or to here, for a page on standard
        // output): an absolute path would be broken on anyone else's machine
        // and would show the writer's folders (`/home/NAME/...`).
        let from = self.beside.clone().unwrap_or_else(|| PathBuf::from("."));
        let path = relative_path(&from, &path).unwrap_or(path);
        Some(path.to_string_lossy().into_owned())
    }

    fn embedded(&self, id: &str) -> Option<(SessionLog, Option<SessionData>)> {
        let (path, log) = self.file_of(id)?;
        let data = self.ctx.store.load_data_for(&path, &log).ok().flatten();
        Some((log, data))
    }
}

/// The path of `to` as seen from the folder `from` (`../s/a.md`); `None`
/// when either cannot be made absolute.
pub(crate) fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    // Resolved where they exist (`a/../b` and links), else made absolute.
    let real = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .ok()
    };
    let from = real(from)?;
    let to = real(to)?;
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for part in &to[common..] {
        relative.push(part);
    }
    Some(relative)
}

#[cfg(test)]
mod tests {
    use super::relative_path;
    use std::path::{Path, PathBuf};

    #[test]
    fn a_link_to_a_session_file_is_relative_to_the_page() {
        let rel = |from: &str, to: &str| relative_path(Path::new(from), Path::new(to)).unwrap();
        assert_eq!(rel("/a/pages", "/a/s/x.md"), PathBuf::from("../s/x.md"));
        assert_eq!(rel("/a", "/a/s/x.md"), PathBuf::from("s/x.md"));
        assert_eq!(rel("/a/b/c", "/x.md"), PathBuf::from("../../../x.md"));
    }
}
