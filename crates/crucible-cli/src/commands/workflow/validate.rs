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

fn expand(targets: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for t in targets {
        if t.is_dir() {
            let mut found: Vec<PathBuf> = walk(t);
            found.sort();
            files.extend(found);
        } else {
            files.push(t.clone());
        }
    }
    files
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    out
}

pub fn run(args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let files = expand(&args.files);
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
    } else {
        Outcome::Success
    })
}
