//! Workflows as canonical markup: frontmatter, title, intro, then each step
//! (heading, prose, flow lines, conditions, execution blocks) with the
//! sections that followed it, one blank line between blocks.

use std::fmt::Write;

use crucible_core::workflow::{Step, StepMarker, Workflow};

use super::toon_block;

pub fn write_workflow(w: &Workflow) -> String {
    let mut out = String::new();
    if let Some(fm) = w.frontmatter.as_ref().filter(|m| !m.is_empty()) {
        out.push_str("---\n");
        out.push_str(&crate::yaml::to_string(fm));
        out.push_str("---\n\n");
    }
    if let Some(t) = &w.title {
        let _ = write!(out, "# {t}\n\n");
    }
    if !w.intro.is_empty() {
        out.push_str(&w.intro);
        out.push_str("\n\n");
    }
    sections_after(w, None, &mut out);
    for (i, s) in w.steps.iter().enumerate() {
        step(s, &mut out);
        sections_after(w, Some(i), &mut out);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

fn sections_after(w: &Workflow, after: Option<usize>, out: &mut String) {
    for s in w.sections.iter().filter(|s| s.after_step == after) {
        let _ = write!(out, "{} {}\n\n", "#".repeat(usize::from(s.level)), s.title);
        if !s.text.is_empty() {
            out.push_str(&s.text);
            out.push_str("\n\n");
        }
    }
}

/// `## Name @agent #channel !`.
pub(crate) fn heading(s: &Step) -> String {
    let mut h = format!(
        "{} {}",
        "#".repeat(usize::from(s.level.clamp(2, 6))),
        s.name
    );
    if let Some(a) = &s.agent {
        let _ = write!(h, " @{a}");
    }
    if let Some(c) = &s.channel {
        let _ = write!(h, " #{c}");
    }
    match s.marker {
        StepMarker::Critical => h.push_str(" !"),
        StepMarker::Optional => h.push_str(" ?"),
        StepMarker::None => {}
    }
    h
}

fn step(s: &Step, out: &mut String) {
    out.push_str(&heading(s));
    out.push('\n');
    if !s.prose.is_empty() {
        out.push_str(&s.prose);
        out.push('\n');
    }
    for f in &s.flows {
        let side = |ports: &[crucible_core::workflow::Port]| {
            ports
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "{} → {}", side(&f.inputs), side(&f.outputs));
    }
    for c in &s.conditions {
        match &c.condition {
            Some(cond) => {
                let _ = writeln!(out, "If {cond} → proceed to {}", c.target);
            }
            None => {
                let _ = writeln!(out, "Otherwise → {}", c.target);
            }
        }
    }
    out.push('\n');
    for b in &s.executions {
        toon_block::write(b, out);
        out.push('\n');
    }
}
