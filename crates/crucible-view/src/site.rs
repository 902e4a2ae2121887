//! The static site of a sessions directory (`cru site`): index pages with
//! a table of sessions that sorts and filters in the browser, a page per
//! session beside them, and the data the filter searches.
//!
//! Layout of the output folder:
//!
//! - `index.html`, `index-2.html`, ...: [`ROWS_PER_PAGE`] sessions each,
//!   newest first (100,000 sessions are 200 pages, never one giant one);
//! - `s/<id>.html`: the page of each session ([`crate::SessionPage`]);
//! - `site.js`: the index pages' script ([`SCRIPT`]);
//! - `sessions.js`: every session's row as data (`window.cruSessions =
//!   [...]`), which the filter box of every index page searches. A script
//!   file, not JSON: a page opened from `file://` may load a script beside
//!   it, not fetch a file.
//!
//! The filter is typed in the box or given in the address, after `#q=`
//! (`index.html#q=flaky%20paused`): every word must appear in the id,
//! title, status, agents or project. The page's script writes text with
//! `textContent` only, never markup.

use crate::escape::{escaped, push};
use crate::page::{duration, thousands};

/// Sessions per index page.
pub const ROWS_PER_PAGE: usize = 500;

/// One session as the index shows it, borrowed from what the caller holds
/// (100,000 of them are made on every run of `cru site`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Row<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub status: &'a str,
    pub agents: std::borrow::Cow<'a, str>,
    pub project: &'a str,
    pub started: &'a str,
    /// Milliseconds; 0 when unknown.
    pub duration_ms: u64,
    pub tokens: u64,
}

/// The address of session `id`'s page from an index page.
pub fn session_href(id: &str) -> String {
    format!("s/{id}.html")
}

/// The file name of index page `n` (from 1).
pub fn index_name(n: usize) -> String {
    if n <= 1 {
        "index.html".to_owned()
    } else {
        format!("index-{n}.html")
    }
}

/// `sessions.js`: every row, for the filter.
pub fn sessions_script(rows: &[Row<'_>]) -> String {
    let json = serde_json::to_string(rows).unwrap_or_else(|_| "[]".to_owned());
    format!("window.cruSessions = {json};\n")
}

const STYLE: &str = include_str!("site.css");
/// `site.js`, the index pages' script (sort and filter), a file beside them
/// so that their policy allows no inline script at all.
pub const SCRIPT: &str = include_str!("site.js");

/// Index page `n` (from 1) of `pages`, showing `rows` (that page's share),
/// out of `total` sessions; `workflows` when the site has a workflows page.
pub fn index_page(
    title: &str,
    rows: &[Row<'_>],
    (n, pages): (usize, usize),
    total: usize,
    workflows: bool,
) -> String {
    let mut out = String::with_capacity(512 + rows.len() * 400);
    crate::page::head(&mut out, crate::page::OWN_SCRIPT, title, STYLE);
    out.push_str("<header>\n<h1>");
    push(&mut out, title);
    out.push_str(&format!(
        "</h1>\n<p class=\"meta\">{} sessions · page {n} of {pages}{}</p>\n",
        thousands(total as u64),
        if workflows {
            " · <a href=\"workflows.html\">workflows</a>"
        } else {
            ""
        }
    ));
    out.push_str("<input id=\"filter\" type=\"search\" placeholder=\"Filter every session: words of the id, title, status, agents or project\" autocomplete=\"off\">\n<p id=\"note\" class=\"meta\"></p>\n</header>\n<main>\n");
    table(&mut out, rows);
    pager(&mut out, n, pages);
    out.push_str(
        "</main>\n<script src=\"sessions.js\"></script>\n<script src=\"site.js\"></script>\n</body>\n</html>\n",
    );
    out
}

fn table(out: &mut String, rows: &[Row<'_>]) {
    out.push_str("<table id=\"sessions\">\n<thead><tr>");
    for (key, label) in [
        ("id", "id"),
        ("title", "title"),
        ("status", "status"),
        ("agents", "agents"),
        ("project", "project"),
        ("started", "started"),
        ("duration_ms", "duration"),
        ("tokens", "tokens"),
    ] {
        out.push_str(&format!("<th data-key=\"{key}\">{label}</th>"));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        row(out, r);
    }
    out.push_str("</tbody>\n</table>\n");
}

fn row(out: &mut String, r: &Row<'_>) {
    out.push_str("<tr><td><a href=\"");
    push(out, &session_href(r.id));
    out.push_str("\">");
    push(out, r.id);
    out.push_str("</a></td><td>");
    push(out, r.title);
    out.push_str(&format!(
        "</td><td><span class=\"status status-{0}\">{0}</span></td><td>",
        escaped(r.status)
    ));
    push(out, &r.agents);
    out.push_str("</td><td>");
    push(out, r.project);
    out.push_str("</td><td>");
    push(out, r.started);
    out.push_str(&format!(
        "</td><td data-value=\"{0}\">{1}</td><td data-value=\"{2}\">{3}</td></tr>\n",
        r.duration_ms,
        if r.duration_ms > 0 {
            duration(i64::try_from(r.duration_ms).unwrap_or(i64::MAX))
        } else {
            String::new()
        },
        r.tokens,
        if r.tokens > 0 {
            thousands(r.tokens)
        } else {
            String::new()
        },
    ));
}

fn pager(out: &mut String, n: usize, pages: usize) {
    if pages <= 1 {
        return;
    }
    out.push_str("<nav class=\"pager\">");
    if n > 1 {
        out.push_str(&format!("<a href=\"{}\">← newer</a> ", index_name(n - 1)));
    }
    out.push_str(&format!("page {n} of {pages}"));
    if n < pages {
        out.push_str(&format!(" <a href=\"{}\">older →</a>", index_name(n + 1)));
    }
    out.push_str("</nav>\n");
}

/// One workflow as the site lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowRow {
    pub title: String,
    /// Its page, relative to the site.
    pub href: String,
    /// Its file, as given.
    pub file: String,
    pub steps: usize,
}

/// The address of a workflow's page from the site's root: its path below
/// the workflows folder, every character but letters, digits, `-` and `_`
/// made `-` (the page name is safe whatever the file is called).
pub fn workflow_href(relative: &str) -> String {
    let stem = relative.strip_suffix(".md").unwrap_or(relative);
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("w/{safe}.html")
}

/// `workflows.html`: every workflow of the site.
pub fn workflows_page(rows: &[WorkflowRow]) -> String {
    let mut out = String::with_capacity(1024 + rows.len() * 200);
    crate::page::head(&mut out, crate::page::NO_SCRIPT, "Workflows", STYLE);
    out.push_str("<header>\n<nav class=\"home\"><a href=\"index.html\">← all sessions</a></nav>\n<h1>Workflows</h1>\n</header>\n<main>\n<table id=\"sessions\">\n<thead><tr><th>workflow</th><th>steps</th><th>file</th></tr></thead>\n<tbody>\n");
    for r in rows {
        out.push_str("<tr><td><a href=\"");
        push(&mut out, &r.href);
        out.push_str("\">");
        push(&mut out, &r.title);
        out.push_str(&format!("</a></td><td>{}</td><td>", r.steps));
        push(&mut out, &r.file);
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</main>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r<'a>(id: &'a str, title: &'a str) -> Row<'a> {
        Row {
            id,
            title,
            status: "completed",
            agents: "dev@1".into(),
            project: "/p",
            started: "2026-01-01T00:00:00Z",
            duration_ms: 61_000,
            tokens: 1234,
        }
    }

    #[test]
    fn an_index_page_holds_its_rows_escaped_and_links_its_neighbours() {
        let page = index_page("Sessions", &[r("a", "<b>x</b>")], (2, 3), 1001, true);
        assert!(page.contains("<a href=\"workflows.html\">workflows</a>"));
        assert!(page.contains("<a href=\"s/a.html\">a</a>"));
        assert!(page.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(page.contains("<a href=\"index.html\">← newer</a>"));
        assert!(page.contains("<a href=\"index-3.html\">older →</a>"));
        assert!(page.contains("1,001 sessions · page 2 of 3"));
        assert!(page.contains("<td data-value=\"1234\">1,234</td>"));
    }

    #[test]
    fn workflow_pages_have_safe_names() {
        assert_eq!(workflow_href("review.md"), "w/review.html");
        assert_eq!(workflow_href("a/b c\"<x>.md"), "w/a-b-c--x-.html");
    }

    #[test]
    fn the_sessions_script_is_data_only() {
        let js = sessions_script(&[r("a", "</script><script>alert(1)</script>")]);
        assert!(js.starts_with("window.cruSessions = [{\"id\":\"a\""));
        assert!(js.ends_with("}];\n"));
    }
}
