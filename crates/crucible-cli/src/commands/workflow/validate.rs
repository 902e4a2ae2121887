//! `cru workflow validate FILE... [--format text|json]`.

use std::io::Write;
use std::path::PathBuf;

use anstyle::{AnsiColor, Style};
use clap::{Args, ValueEnum};
use crucible_core::workflow::Severity;
use serde_json::json;

use crate::error::Outcome;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Workflow files, or directories (every `*.md` below them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// `file:line:col: error: message`, one per line.
    Text,
    /// `{"version": 1, "files": [{path, valid, problems}]}`.
    Json,
}

/// The files to check: each file named, and the `*.md` files below each
/// folder named, found by the one walker (links to folders not followed,
/// FIFOs and links out of the folder skipped), with what it skipped.
fn expand(targets: &[PathBuf]) -> (Vec<PathBuf>, Vec<crucible_core::store::Skipped>) {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for t in targets {
        if !t.is_dir() {
            files.push(t.clone());
            continue;
        }
        match crucible_core::store::session_tree(t) {
            Ok(tree) => {
                files.extend(tree.files);
                skipped.extend(tree.skipped);
            }
            Err(e) => skipped.push(crucible_core::store::Skipped {
                path: t.clone(),
                reason: format!("folder cannot be read ({e})"),
            }),
        }
    }
    (files, skipped)
}

pub fn run(args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let (files, skipped) = expand(&args.files);
    for s in &skipped {
        eprintln!("warning: {}: skipped: {}", s.path.display(), s.reason);
    }
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let yellow = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
    let mut out = anstream::stdout().lock();
    let (mut invalid, mut errors, mut warnings) = (0, 0, 0);
    let mut items = Vec::new();
    for f in &files {
        let checked = match super::read(f) {
            Ok(c) => c,
            Err(e) => {
                invalid += 1;
                errors += 1;
                match args.format {
                    Format::Text => writeln!(out, "{}: {red}error{red:#}: {}", f.display(), e.message)?,
                    Format::Json => items.push(json!({"path": f.display().to_string(), "valid": false,
                        "problems": [{"line": null, "column": null, "severity": "error", "message": e.message}]})),
                }
                continue;
            }
        };
        let e = checked
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        errors += e;
        warnings += checked.problems.len() - e;
        invalid += usize::from(e > 0);
        match args.format {
            Format::Text => {
                for p in &checked.problems {
                    let (style, word) = match p.severity {
                        Severity::Error => (red, "error"),
                        Severity::Warning => (yellow, "warning"),
                    };
                    writeln!(
                        out,
                        "{}:{}:{}: {style}{word}{style:#}: {}",
                        f.display(),
                        p.line,
                        p.column,
                        p.message
                    )?;
                }
            }
            Format::Json => items.push(json!({
                "path": f.display().to_string(),
                "valid": e == 0,
                "problems": checked.problems.iter().map(super::json::ProblemOut::from).collect::<Vec<_>>(),
            })),
        }
    }
    if let Format::Json = args.format {
        let doc = json!({"version": super::json::VERSION, "files": items});
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    }
    out.flush()?;
    let checked = files.len();
    crate::render::checked_summary(
        ("workflow", "workflows"),
        checked,
        invalid,
        errors,
        warnings,
    )?;
    Ok(if invalid > 0 {
        Outcome::Failure
    } else if !skipped.is_empty() {
        Outcome::Skipped
    } else {
        Outcome::Success
    })
}
