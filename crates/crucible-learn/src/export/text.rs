//! The readable exports: a markdown document with a section per case, and
//! the puzzle format (a question with its answer folded away).

use std::fmt::Write;

use crate::case::{Case, CaseBody, CaseKind};

/// `text` as a block quote (every line prefixed).
fn quote(text: &str) -> String {
    text.trim()
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_owned()
            } else {
                format!("> {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top of the markdown document.
pub fn markdown_header() -> String {
    "# Learning cases\n\nPuzzles (from `[!error]` callouts) and corrections (from `[!user]` \
     interventions), exported by `cru session learn`.\n"
        .to_owned()
}

fn meta_line(case: &Case) -> String {
    let m = &case.meta;
    let mut parts = vec![
        format!("session `{}`", m.session_id),
        format!("{} ({})", m.phase_id, m.phase),
    ];
    if let Some(a) = &m.agent {
        parts.push(format!("@{a}"));
    }
    if let Some(c) = &m.channel {
        parts.push(format!("#{c}"));
    }
    if let Some(model) = &m.model {
        parts.push(model.clone());
    }
    parts.push(format!("session {}", m.session_status));
    parts.push(m.started.clone());
    parts.join(" · ")
}

fn context(case: &Case, out: &mut String) {
    let _ = writeln!(out, "**Task:** {}\n", case.task);
    if !case.history.is_empty() {
        out.push_str("**Before this phase:**\n\n");
        for h in &case.history {
            let _ = writeln!(out, "- {h}");
        }
        out.push('\n');
    }
    if !case.actions.is_empty() {
        out.push_str("**What the agent did:**\n\n");
        for c in &case.actions {
            out.push_str("- ");
            out.push_str(&c.one_line());
            out.push('\n');
        }
        out.push('\n');
    }
}

/// One case as a markdown section.
pub fn markdown_case(case: &Case) -> String {
    let kind = match case.meta.kind {
        CaseKind::Puzzle if case.meta.open => "Open puzzle",
        CaseKind::Puzzle => "Puzzle",
        CaseKind::Correction => "Correction",
    };
    let mut out = format!(
        "\n## {kind} `{}`: {}\n\n{}\n\n",
        case.meta.case_id,
        case.meta.phase,
        meta_line(case)
    );
    match &case.body {
        CaseBody::Puzzle {
            failure,
            expected,
            expected_from,
        } => {
            context(case, &mut out);
            let _ = writeln!(out, "**What went wrong:**\n\n{}\n", quote(failure));
            match expected {
                Some(e) => {
                    let from = expected_from.as_deref().unwrap_or("resolution");
                    let _ = writeln!(out, "**What fixed it** ({from}):\n\n{}", quote(e));
                }
                None => out.push_str("**Open:** no resolution was logged.\n"),
            }
        }
        CaseBody::Correction {
            user_words,
            interpretation,
            before_text,
            after_calls,
            after_text,
        } => {
            context(case, &mut out);
            for t in before_text {
                let _ = writeln!(out, "{}\n", quote(t));
            }
            let _ = writeln!(out, "**The user said:**\n\n{}\n", quote(user_words));
            if let Some(i) = interpretation {
                let _ = writeln!(out, "**Taken as:** {}\n", i.trim());
            }
            if !after_calls.is_empty() || !after_text.is_empty() {
                out.push_str("**What was done after:**\n\n");
                for c in after_calls {
                    out.push_str("- ");
                    out.push_str(&c.one_line());
                    out.push('\n');
                }
                for t in after_text {
                    let _ = writeln!(out, "\n{}", quote(t));
                }
            }
        }
    }
    out
}

/// One case in the puzzle format: the situation and a question, the answer
/// folded in `<details>` (open puzzles say there is none yet).
pub fn puzzle_case(case: &Case) -> String {
    let mut out = format!("---\n\n### Puzzle `{}`\n\n", case.meta.case_id);
    let _ = writeln!(out, "_{}_\n", meta_line(case));
    context(case, &mut out);
    let (question, answer) = match &case.body {
        CaseBody::Puzzle {
            failure, expected, ..
        } => (
            format!(
                "Then this went wrong:\n\n{}\n\n**What should the agent do next, and why?**",
                quote(failure)
            ),
            expected.clone(),
        ),
        CaseBody::Correction {
            user_words,
            interpretation,
            after_text,
            ..
        } => {
            let mut answer = interpretation.clone().unwrap_or_default();
            for t in after_text {
                if !answer.is_empty() {
                    answer.push_str("\n\n");
                }
                answer.push_str(t);
            }
            (
                format!(
                    "Then the user stepped in:\n\n{}\n\n**What should the agent do now?**",
                    quote(user_words)
                ),
                (!answer.trim().is_empty()).then_some(answer),
            )
        }
    };
    let _ = writeln!(out, "{question}\n");
    match answer {
        Some(a) => {
            let _ = writeln!(
                out,
                "<details><summary>Answer</summary>\n\n{}\n\n</details>\n",
                a.trim()
            );
        }
        None => out.push_str("_Open: no answer was logged._\n\n"),
    }
    out
}
