//! `cru doctor [--format text|json]`: what cru sees on this machine, and
//! the silent failures people hit: a sessions directory that is not where
//! they think, an index that cannot be used, agent stores never imported,
//! hooks that stopped firing, a watcher that died.
//!
//! Each section is a list of checks; a check is fine, a note, a warning
//! or a problem. Exit 1 when any check is a problem, so a script can run
//! it; warnings (something a person may want to look at) do not fail it.

mod capture;
mod left_out;
mod report;
mod store;

use clap::{Args, ValueEnum};

use crate::context::Context;
use crate::error::Outcome;
use crate::render::output;
use report::{Level, Report};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = DoctorFormat::Text)]
    pub format: DoctorFormat,
}

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum DoctorFormat {
    /// A section per thing checked, a line per check.
    #[default]
    Text,
    /// `{"version": 1, "sections": [{"name", "checks": [{"level", "what", "message", "hint"}]}]}` (docs/json.md).
    Json,
}

pub fn run(ctx: &Context, args: &DoctorArgs) -> anyhow::Result<Outcome> {
    let mut sections = vec![store::sessions_dir(ctx)];
    sections.extend(store::indexes(ctx));
    // Capture writes to the user's sessions directory, which is not the
    // one commands read inside a project that keeps its own.
    let cap = crate::commands::session::import::capture_context(ctx)?;
    let capture_dir = cap.store.dir();
    if capture_dir != ctx.store.dir() {
        let mut section = store::capture_dir(&cap);
        // Inside a project with its own directory: its captured sessions
        // are not here, and where they are is said.
        let elsewhere = crate::commands::session::import::captured_elsewhere(ctx);
        if let Some(note) = elsewhere
            .and_then(|(n, dir)| crate::commands::session::import::captured_elsewhere_note(n, &dir))
        {
            section
                .checks
                .push(report::Check::new(Level::Note, "this project", note));
        }
        sections.push(section);
    }
    let now = std::time::SystemTime::now();
    sections.push(capture::stores(capture_dir));
    sections.push(capture::watcher(capture_dir, now));
    sections.push(capture::hooks(capture_dir, now));
    let report = Report { sections };
    match args.format {
        DoctorFormat::Json => output::print_json(&report)?,
        DoctorFormat::Text => report::print_text(&report)?,
    }
    let failed = report
        .sections
        .iter()
        .flat_map(|s| &s.checks)
        .any(|c| c.level == Level::Problem);
    Ok(if failed {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}
