//! `cru session validate [<path|id|dir>...] [--format text|json]`.

use std::io::Write;
use std::path::PathBuf;

use anstyle::{AnsiColor, Style};
use clap::{Args, ValueEnum};
use crucible_core::store::session_tree;
use crucible_core::{SessionFile, StoreError};
use crucible_parser::validate::{FileReport, validate_file};

use crate::context::Context;
use crate::error::Outcome;
use crate::render::output::{
    self,
    validate::{ValidateAnswer, ValidatedFile, ValidationProblem},
};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Session files, ids, id prefixes, or directories (every `*.md` in them is
    /// checked). None: every file in the sessions directory that declares
    /// `type: session`.
    pub targets: Vec<String>,
    /// How to print the problems.
    #[arg(long, value_enum, default_value_t = ValidateFormat::Text)]
    pub format: ValidateFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ValidateFormat {
    /// `file:line: error: message`, one per line.
    Text,
    /// `{"version": 1, "files": [{path, valid, problems}]}` (docs/json.md).
    Json,
}

/// A target that could not be turned into files, or a sidecar that does
/// not match its session: reported like a file error.
struct Unresolved {
    target: String,
    line: Option<usize>,
    message: String,
}

fn expand(ctx: &Context, targets: &[String]) -> (Vec<PathBuf>, Vec<Unresolved>) {
    let mut files = Vec::new();
    let mut unresolved = Vec::new();
    if targets.is_empty() {
        // Other notes may share the directory (an Obsidian vault): only files
        // that say they are sessions are checked. Unreadable ones are reported.
        for found in ctx.store.scan() {
            // Each problem under the file it is about, said once.
            let (target, message) = match found {
                Ok(f) => {
                    files.push(f.path);
                    continue;
                }
                Err(StoreError::Skipped(s)) => (s.path.display().to_string(), s.reason),
                Err(StoreError::Unsafe(u)) => (u.path().display().to_string(), u.reason()),
                Err(e) => (ctx.store.dir().display().to_string(), e.to_string()),
            };
            unresolved.push(Unresolved {
                target,
                line: None,
                message,
            });
        }
    }
    for t in targets {
        let p = std::path::Path::new(t);
        if p.is_dir() {
            match session_tree(p) {
                Ok(tree) => {
                    files.extend(tree.files);
                    unresolved.extend(tree.skipped.into_iter().map(|s| Unresolved {
                        target: s.path.display().to_string(),
                        line: None,
                        message: s.reason,
                    }));
                }
                Err(e) => unresolved.push(Unresolved {
                    target: t.clone(),
                    line: None,
                    message: e.to_string(),
                }),
            }
            continue;
        }
        match ctx.store.resolve(t) {
            Ok(path) => files.push(path),
            // Each file that shares the id is checked, and says so.
            Err(StoreError::DuplicateId { paths, .. }) => files.extend(paths),
            Err(e) => unresolved.push(Unresolved {
                target: t.clone(),
                line: None,
                message: e.to_string(),
            }),
        }
    }
    (files, unresolved)
}

pub fn run(ctx: &Context, args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let (files, mut unresolved) = expand(ctx, &args.targets);
    let folders = sidecar_folders(ctx, &args.targets, &files);
    unresolved.extend(sidecar_problems(ctx, &files, &folders));
    let scan: Vec<SessionFile> = ctx
        .store
        .scan()
        .into_iter()
        .filter_map(Result::ok)
        .collect();
    let reports: Vec<FileReport> = files
        .iter()
        .map(|p| validate_file(&ctx.store, &scan, p))
        .collect();
    let invalid = reports.iter().filter(|r| !r.is_valid()).count() + unresolved.len();
    match args.format {
        ValidateFormat::Text => {
            let mut out = anstream::stdout().lock();
            print_text(&mut out, &reports, &unresolved)?;
            out.flush()?;
        }
        ValidateFormat::Json => print_json(&reports, &unresolved)?,
    }
    let errors: usize = reports.iter().map(|r| r.errors.len()).sum::<usize>() + unresolved.len();
    let warnings: usize = reports.iter().map(|r| r.warnings.len()).sum();
    let checked = reports.len() + unresolved.len();
    crate::render::checked_summary(("file", "files"), checked, invalid, errors, warnings)?;
    Ok(if invalid > 0 {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}

/// What is wrong with the sidecars of `files` and, in `folders`, sidecars
/// whose session is gone ([`crucible_interop::sidecar`]).
fn sidecar_problems(ctx: &Context, files: &[PathBuf], folders: &[PathBuf]) -> Vec<Unresolved> {
    let problems = files
        .iter()
        .flat_map(|p| crucible_interop::sidecar::problems_of(&ctx.store, p))
        .chain(crucible_interop::sidecar::orphans(folders));
    problems
        .map(|p| Unresolved {
            target: p.path.display().to_string(),
            line: p.line,
            message: p.message,
        })
        .collect()
}

/// The folders whose sidecars are checked for a lost session: every folder
/// of the sessions directory when no target is named, else the named
/// folders and the folders of the named files.
fn sidecar_folders(ctx: &Context, targets: &[String], files: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = std::collections::BTreeSet::new();
    let roots = if targets.is_empty() {
        vec![ctx.store.dir().to_owned()]
    } else {
        targets
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .collect()
    };
    for root in roots {
        if let Ok(tree) = session_tree(&root) {
            folders.extend(tree.dirs);
        }
    }
    folders.extend(files.iter().filter_map(|f| f.parent().map(PathBuf::from)));
    folders.into_iter().collect()
}

fn print_text(
    out: &mut impl Write,
    reports: &[FileReport],
    unresolved: &[Unresolved],
) -> std::io::Result<()> {
    let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let yellow = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
    for u in unresolved {
        let line = u.line.map(|l| format!(":{l}")).unwrap_or_default();
        writeln!(out, "{}{line}: {red}error{red:#}: {}", u.target, u.message)?;
    }
    for r in reports {
        let mut lines: Vec<(usize, bool, String)> = r
            .errors
            .iter()
            .map(|e| (e.line, true, e.kind.to_string()))
            .chain(
                r.warnings
                    .iter()
                    .map(|w| (w.line, false, w.message.clone())),
            )
            .collect();
        lines.sort_by_key(|(line, is_error, _)| (*line, !*is_error));
        for (line, is_error, message) in lines {
            let (style, word) = if is_error {
                (red, "error")
            } else {
                (yellow, "warning")
            };
            writeln!(
                out,
                "{}:{line}: {style}{word}{style:#}: {message}",
                r.path.display()
            )?;
        }
    }
    Ok(())
}

fn print_json(reports: &[FileReport], unresolved: &[Unresolved]) -> anyhow::Result<()> {
    let problem = |line, severity, message: &str| ValidationProblem {
        line,
        severity,
        message: message.to_owned(),
    };
    let mut files: Vec<ValidatedFile> = unresolved
        .iter()
        .map(|u| ValidatedFile {
            path: u.target.clone(),
            valid: false,
            problems: vec![problem(u.line, "error", &u.message)],
        })
        .collect();
    files.extend(reports.iter().map(|r| {
        let errors = r
            .errors
            .iter()
            .map(|e| problem(Some(e.line), "error", &e.kind.to_string()));
        let warnings = r
            .warnings
            .iter()
            .map(|w| problem(Some(w.line), "warning", &w.message));
        ValidatedFile {
            path: r.path.display().to_string(),
            valid: r.is_valid(),
            problems: errors.chain(warnings).collect(),
        }
    }));
    let invalid = files.iter().filter(|f| !f.valid).count();
    output::print_json(&ValidateAnswer {
        valid: files.len() - invalid,
        invalid,
        files,
    })
}
