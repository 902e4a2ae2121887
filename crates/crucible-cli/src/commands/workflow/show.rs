//! `cru workflow show FILE [--format text|json|mermaid|html]`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crucible_core::workflow::{Workflow, WorkflowGraph};
use crucible_parser::workflow::CheckedWorkflow;

use crate::error::Outcome;
use crate::render::{duration, plural, thousands};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A workflow file.
    pub file: PathBuf,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShowFormat {
    /// Steps in run order with agents, channels, inputs, outputs and run totals.
    Text,
    /// The workflow, its graph, run totals and problems.
    Json,
    /// A Mermaid flowchart (GitHub and Obsidian draw it).
    Mermaid,
    /// One self-contained page: the step graph drawn in SVG, then each
    /// step (no network, no script).
    Html,
}

pub fn run(args: &ShowArgs) -> anyhow::Result<Outcome> {
    let checked = super::read(&args.file)?;
    match &args.output {
        Some(file) if file.is_dir() => {
            return Err(crate::error::CliError::usage(format!(
                "-o {}: is a folder; name a file",
                file.display()
            ))
            .into());
        }
        Some(file) => {
            crucible_core::store::atomic::write_output(
                file,
                render(&checked, args.format)?.as_bytes(),
            )
            .map_err(|e| crate::error::CliError::new(format!("{}: {e}", file.display())))?;
        }
        None => print(&checked, args.format)?,
    }
    for line in super::problem_lines(&args.file, &checked) {
        eprintln!("{line}");
    }
    // Shown all the same (what there is of it helps to mend it), but a
    // script must not take an invalid workflow for a good one.
    Ok(if checked.has_errors() {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}

/// Prints a checked workflow in `format` (also used by `session codify`).
pub fn print(checked: &CheckedWorkflow, format: ShowFormat) -> anyhow::Result<()> {
    let mut out = crate::render::data_out();
    out.write_all(render(checked, format)?.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// A checked workflow in `format`, as text.
pub fn render(checked: &CheckedWorkflow, format: ShowFormat) -> anyhow::Result<String> {
    let mut out: Vec<u8> = Vec::new();
    match format {
        ShowFormat::Text => out.write_all(text(&checked.workflow, &checked.graph).as_bytes())?,
        ShowFormat::Mermaid => {
            out.write_all(crucible_codify::mermaid(&checked.workflow, &checked.graph).as_bytes())?;
        }
        ShowFormat::Html => out.write_all(
            crucible_view::workflow::workflow_page(
                &checked.workflow,
                &checked.graph,
                &checked
                    .problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
                None,
            )
            .as_bytes(),
        )?,
        ShowFormat::Json => {
            let doc = super::json::WorkflowJson {
                version: super::json::VERSION,
                body: super::json::WorkflowBody::of(checked),
            };
            serde_json::to_writer_pretty(&mut out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn text(w: &Workflow, g: &WorkflowGraph) -> String {
    let mut out = String::new();
    let runs: usize = w.steps.iter().map(|s| s.rows().count()).sum();
    out.push_str(&format!(
        "{} — {} {}, {} {}, {} {}\n",
        w.title.as_deref().unwrap_or("(untitled workflow)"),
        w.steps.len(),
        plural(w.steps.len(), "step", "steps"),
        g.edges.len(),
        plural(g.edges.len(), "edge", "edges"),
        runs,
        plural(runs, "run", "runs"),
    ));
    let order: Vec<usize> = if let Some(o) = &g.order {
        o.clone()
    } else {
        out.push_str("(the graph has a cycle: steps in document order)\n");
        (0..w.steps.len()).collect()
    };
    for (n, &i) in order.iter().enumerate() {
        let s = &w.steps[i];
        let mut head = format!("{:>3}. {}", n + 1, s.name);
        if let Some(a) = &s.agent {
            head.push_str(&format!(" @{a}"));
        }
        if let Some(c) = &s.channel {
            head.push_str(&format!(" #{c}"));
        }
        match s.marker {
            crucible_core::workflow::StepMarker::Critical => head.push_str("  [critical]"),
            crucible_core::workflow::StepMarker::Optional => head.push_str("  [optional]"),
            crucible_core::workflow::StepMarker::None => {}
        }
        if let Some(p) = s.parent {
            head.push_str(&format!("  (in {})", w.steps[p].name));
        }
        out.push_str(&head);
        out.push('\n');
        let list = |ports: Vec<&crucible_core::workflow::Port>| {
            ports
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (inputs, outputs) = (list(s.inputs()), list(s.outputs()));
        if !inputs.is_empty() {
            out.push_str(&format!("       in:  {inputs}\n"));
        }
        if !outputs.is_empty() {
            out.push_str(&format!("       out: {outputs}\n"));
        }
        for c in &s.conditions {
            out.push_str(&format!(
                "       if {} → {}\n",
                c.condition.as_deref().unwrap_or("otherwise"),
                c.target
            ));
        }
        let t = super::json::Totals::of(s);
        if t.runs > 0 {
            out.push_str(&format!(
                "       runs: {} ({} success, {} failed), {} total, {} tokens\n",
                t.runs,
                t.success,
                t.failed,
                duration(i64::try_from(t.duration_ms).unwrap_or(i64::MAX)),
                thousands(t.tokens_used)
            ));
        }
    }
    if !g.inputs.is_empty() {
        out.push_str(&format!("Inputs: {}\n", g.inputs.join(", ")));
    }
    out
}
