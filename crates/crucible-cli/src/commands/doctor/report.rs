//! The doctor's report: sections of checks, and how they print.

use std::io::Write;

use serde::Serialize;

use anstyle::{AnsiColor, Style};

use crate::render::style::{BOLD, DIM, FAILED};

#[derive(Debug, Serialize)]
pub struct Report {
    pub sections: Vec<Section>,
}

#[derive(Debug, Serialize)]
pub struct Section {
    pub name: &'static str,
    pub checks: Vec<Check>,
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// As it should be.
    Ok,
    /// Worth knowing, nothing wrong (a store not on this machine).
    Note,
    /// Something a person may want to look at; cru works.
    Warning,
    /// cru answers wrongly or records nothing until it is mended: exit 1.
    Problem,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub level: Level,
    /// What was checked: a path, a source, a file.
    pub what: String,
    pub message: String,
    /// What to run or change, for a warning or a problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    pub fn new(level: Level, what: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            level,
            what: what.into(),
            message: message.into(),
            hint: None,
        }
    }

    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl Level {
    fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Note => "note",
            Self::Warning => "warning",
            Self::Problem => "problem",
        }
    }

    fn style(self) -> Style {
        let color = |c| Style::new().fg_color(Some(anstyle::Color::Ansi(c)));
        match self {
            Self::Ok => color(AnsiColor::Green),
            Self::Note => DIM,
            Self::Warning => color(AnsiColor::Yellow),
            Self::Problem => FAILED,
        }
    }
}

/// Sections as headings, a line per check (`level  what: message`), the
/// hint under a check; colour on a terminal only.
pub fn print_text(report: &Report) -> std::io::Result<()> {
    let mut out = anstream::stdout().lock();
    for (i, section) in report.sections.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{BOLD}{}{BOLD:#}", section.name)?;
        for check in &section.checks {
            let style = check.level.style();
            let label = check.level.label();
            writeln!(
                out,
                "  {style}{label:<8}{style:#} {}: {}",
                check.what, check.message
            )?;
            if let Some(hint) = &check.hint {
                writeln!(out, "           {DIM}hint: {hint}{DIM:#}")?;
            }
        }
    }
    Ok(())
}
