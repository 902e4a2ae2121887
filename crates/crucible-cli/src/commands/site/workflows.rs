//! The workflows of a site (`cru site --workflows DIR`): a page each with
//! its step graph (`cru workflow show --format html`), and `workflows.html`
//! listing them.

use std::path::Path;

use crucible_core::store::walk;
use crucible_view::site::{self, WorkflowRow};

/// Writes the page of every workflow file below `dir` into `out`, and the
/// list; a file that is not a workflow is named in `warnings`. How many
/// workflows were written.
pub fn write(dir: &Path, out: &Path, warnings: &mut Vec<String>) -> anyhow::Result<usize> {
    // A folder mistyped is an error, not a site without workflows.
    std::fs::metadata(dir).map_err(|e| anyhow::anyhow!("--workflows {}: {e}", dir.display()))?;
    let tree = walk::walk_with(
        dir,
        walk::WalkOptions {
            file_filter: &walk::is_markdown,
            utf8_names: true,
            recursive: true,
            confine_to: None,
        },
        &walk::WORKFLOWS,
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    warnings.extend(tree.skipped.iter().map(ToString::to_string));
    std::fs::create_dir_all(out.join("w"))?;
    let mut rows = Vec::new();
    // Pages are named after the files' paths with `/` and dots made `-`:
    // `a/x.md` and `a-x.md` would share one; the second gets a number.
    let mut taken = std::collections::HashSet::new();
    for file in &tree.files {
        let checked = match crate::commands::workflow::read(file) {
            Ok(c) if !c.workflow.steps.is_empty() => c,
            Ok(_) => {
                warnings.push(format!(
                    "{}: not a workflow (no step); left out",
                    file.display()
                ));
                continue;
            }
            Err(e) => {
                warnings.push(format!("{e}; left out"));
                continue;
            }
        };
        let relative = file
            .strip_prefix(dir)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned();
        let href = unique(&site::workflow_href(&relative), &mut taken);
        let problems: Vec<String> = checked.problems.iter().map(ToString::to_string).collect();
        if checked.has_errors() {
            warnings.push(format!(
                "{}: the workflow has errors (its page lists them; `cru workflow validate` explains)",
                file.display()
            ));
        }
        let html = crucible_view::workflow::workflow_page(
            &checked.workflow,
            &checked.graph,
            &problems,
            Some("../workflows.html"),
        );
        super::write_if_changed(&out.join(&href), html.as_bytes())?;
        rows.push(WorkflowRow {
            title: checked
                .workflow
                .title
                .clone()
                .unwrap_or_else(|| relative.clone()),
            href,
            file: relative,
            steps: checked.workflow.steps.len(),
        });
    }
    if !rows.is_empty() {
        super::write_if_changed(
            &out.join("workflows.html"),
            site::workflows_page(&rows).as_bytes(),
        )?;
    }
    Ok(rows.len())
}

/// `href` itself, or with `-2`, `-3`, ... before `.html` when it is taken.
fn unique(href: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = href.to_owned();
    let mut n = 1;
    while !taken.insert(candidate.clone()) {
        n += 1;
        let stem = href.strip_suffix(".html").unwrap_or(href);
        candidate = format!("{stem}-{n}.html");
    }
    candidate
}
