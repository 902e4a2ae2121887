//! `cru session show --format text`: a session for reading in a terminal.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anstyle::Style;
use crucible_core::{
    Block, Callout, CalloutKind, Phase, Section, SessionData, SessionId, SessionLog, SessionStore,
    SubagentMode, TaskStatus,
};
use crucible_parser::MarkdownCodec;

use super::style::{BOLD, DIM, FAILED, PHASE, callout as callout_style};
use super::{duration, thousands};

type Store = SessionStore<MarkdownCodec>;

/// Renders `log` (read from `path`), loading embedded subagent sessions
/// from `store` and showing them inside their callouts.
pub fn render(
    out: &mut dyn Write,
    store: &Store,
    path: &Path,
    log: &SessionLog,
    full: bool,
) -> anyhow::Result<()> {
    render_part(out, store, path, log, full, None)
}

/// Renders the header of `log` and its phase `number` alone (counting
/// from 1, as `render` numbers them), for `show ID#phase-N`.
pub fn render_phase(
    out: &mut dyn Write,
    store: &Store,
    path: &Path,
    log: &SessionLog,
    full: bool,
    number: usize,
) -> anyhow::Result<()> {
    render_part(out, store, path, log, full, Some(number))
}

fn render_part(
    out: &mut dyn Write,
    store: &Store,
    path: &Path,
    log: &SessionLog,
    full: bool,
    only_phase: Option<usize>,
) -> anyhow::Result<()> {
    header(out, path, log)?;
    let mut r = Renderer {
        out,
        store,
        stack: HashSet::from([canonical(path)]),
        expanded: HashSet::from([canonical(path)]),
        not_expanded: 0,
        full,
        only_phase,
    };
    let data = r.data_of(path, log)?;
    r.body(log, "", data.as_ref())?;
    if r.not_expanded > 0 {
        writeln!(
            r.out,
            "\n{DIM}… {} more embedded {} not expanded: limit reached ({MAX_EMBEDDED_SESSIONS} per show){DIM:#}",
            r.not_expanded,
            super::plural(r.not_expanded, "session", "sessions"),
        )?;
    }
    Ok(())
}

/// The most embedded sessions one `show` expands. Each session is expanded
/// once, so the output is bounded by the files in the directory, but a
/// directory of thousands of embeds is still more than a reader wants; and
/// without the once rule, A embedding B twice, B embedding C twice and so on
/// grew as 2^depth.
pub const MAX_EMBEDDED_SESSIONS: usize = 200;

/// `value` after `sep` (` → summary`, ` args`), or nothing when there is no
/// value or it is empty.
fn after(sep: &str, value: Option<impl std::fmt::Display>) -> String {
    value
        .map(|v| v.to_string())
        .filter(|v| !v.is_empty())
        .map(|v| format!("{sep}{v}"))
        .unwrap_or_default()
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_owned())
}

fn field(out: &mut dyn Write, name: &str, value: &str) -> std::io::Result<()> {
    writeln!(out, "  {DIM}{name:<13}{DIM:#}{value}")
}

fn header(out: &mut dyn Write, path: &Path, log: &SessionLog) -> std::io::Result<()> {
    let fm = &log.frontmatter;
    writeln!(
        out,
        "{BOLD}{}{BOLD:#}",
        log.title().unwrap_or(fm.session_id.as_str())
    )?;
    field(out, "id", fm.session_id.as_str())?;
    field(out, "status", fm.status.as_str())?;
    field(out, "started", fm.started.as_str())?;
    if let Some(ended) = &fm.ended {
        let took = fm
            .duration_ms()
            .map(|d| format!(" ({})", duration(d)))
            .unwrap_or_default();
        field(out, "ended", &format!("{ended}{took}"))?;
    }
    if let Some(c) = &fm.channel {
        field(out, "channel", c)?;
    }
    if !fm.participants.is_empty() {
        let names: Vec<String> = fm.participants.iter().map(ToString::to_string).collect();
        field(out, "participants", &names.join(", "))?;
    }
    if let Some(m) = &fm.model {
        field(out, "model", m)?;
    }
    if let Some(t) = fm.tokens_used {
        field(out, "tokens", &thousands(t))?;
    }
    if let Some(c) = fm.cost_usd {
        field(out, "cost", &format!("${c:.4}"))?;
    }
    for (i, s) in fm.subagents.iter().enumerate() {
        let mut v = s.session.to_string();
        if let Some(a) = &s.agent {
            v.push_str(&format!("  {a}"));
        }
        if let Some(m) = &s.model {
            v.push_str(&format!("  {m}"));
        }
        if let Some(t) = s.tokens {
            v.push_str(&format!("  {} tokens", thousands(t)));
        }
        field(out, if i == 0 { "subagents" } else { "" }, &v)?;
    }
    if let Some(p) = fm.resume_point {
        let name = log
            .phase(p)
            .map(|ph| format!(" ({})", ph.name))
            .unwrap_or_default();
        field(out, "resume at", &format!("{p}{name}"))?;
    }
    for (k, v) in &fm.extra {
        let key = k.as_str().unwrap_or("?");
        let value = serde_json::to_string(v).unwrap_or_default();
        field(out, key, value.trim_matches('"'))?;
    }
    field(out, "file", &path.display().to_string())?;
    Ok(())
}

/// Why an embed is not expanded again.
enum Repeat {
    /// It is being shown further out.
    Cycle,
    /// It was shown earlier, beside this embed rather than around it.
    ShownEarlier,
}

struct Renderer<'a> {
    out: &'a mut dyn Write,
    store: &'a Store,
    /// The files being shown, outermost first: an embed of one of them is a cycle.
    stack: HashSet<PathBuf>,
    /// Every file expanded so far in this render, the shown session included.
    expanded: HashSet<PathBuf>,
    /// Embeds skipped once [`MAX_EMBEDDED_SESSIONS`] were expanded.
    not_expanded: usize,
    /// Each tool call followed by its full arguments and result, from the
    /// session's sidecar (`show --full`).
    full: bool,
    /// Only this phase of the shown session (not of its embeds).
    only_phase: Option<usize>,
}

impl Renderer<'_> {
    /// The sidecar of the session at `path`, when `--full` asks for it.
    fn data_of(&mut self, path: &Path, log: &SessionLog) -> anyhow::Result<Option<SessionData>> {
        if !self.full {
            return Ok(None);
        }
        // A damaged sidecar, or one that does not match the session, does
        // not hide the session: it is shown without the full data, and
        // `validate` says what is wrong.
        match self.store.load_data_for(path, log) {
            Ok(found) => Ok(found),
            Err(e) => {
                writeln!(self.out, "{DIM}(full data not shown: {e}){DIM:#}")?;
                Ok(None)
            }
        }
    }

    fn body(
        &mut self,
        log: &SessionLog,
        indent: &str,
        data: Option<&SessionData>,
    ) -> anyhow::Result<()> {
        // Taken, so that the sessions embedded in the phase are shown whole.
        let only = self.only_phase.take();
        let mut title_skipped = false;
        for block in log.preamble.iter().filter(|_| only.is_none()) {
            // The title is already the header's first line.
            if let (Block::Heading { level: 1, .. }, false) = (block, title_skipped) {
                title_skipped = true;
                continue;
            }
            self.blank(indent)?;
            self.block(block, indent)?;
        }
        let mut number = 0;
        for section in &log.sections {
            number += usize::from(matches!(section, Section::Phase(_)));
            let shown = match only {
                None => true,
                Some(n) => n == number && matches!(section, Section::Phase(_)),
            };
            if !shown {
                continue;
            }
            self.blank(indent)?;
            match section {
                Section::Phase(p) => self.phase_heading(p, number, indent)?,
                Section::Plain(s) => writeln!(self.out, "{indent}{BOLD}{}{BOLD:#}", s.title)?,
            }
            let inner = format!(
                "{indent}{}",
                "  ".repeat(usize::from(section.level().saturating_sub(1)))
            );
            let mut call = 0;
            for block in section.blocks() {
                self.block(block, &inner)?;
                if let (Block::ToolCalls { calls }, Some(data), Section::Phase(_)) =
                    (block, data, section)
                {
                    self.full_calls(data, number - 1, call..call + calls.len(), &inner)?;
                    call += calls.len();
                }
            }
        }
        Ok(())
    }

    fn phase_heading(&mut self, p: &Phase, number: usize, indent: &str) -> std::io::Result<()> {
        let nest = "  ".repeat(usize::from(p.level.saturating_sub(2)));
        let mut annotations = String::new();
        if let Some(a) = &p.agent {
            annotations.push_str(&format!(" @{a}"));
        }
        if let Some(c) = &p.channel {
            annotations.push_str(&format!(" #{c}"));
        }
        writeln!(
            self.out,
            "{indent}{nest}{PHASE}phase-{number}  {}{PHASE:#}{DIM}{annotations}{DIM:#}",
            p.name
        )?;
        let m = &p.meta;
        let mut facts = Vec::new();
        if let Some(s) = &m.started {
            facts.push(format!("started {s}"));
        }
        if let Some(d) = m.duration_ms {
            facts.push(duration(i64::try_from(d).unwrap_or(i64::MAX)));
        }
        if let Some(t) = m.tokens {
            facts.push(format!("{} tokens", thousands(t)));
        }
        if let Some(model) = &m.model {
            facts.push(model.clone());
        }
        if let Some(c) = m.cost_usd {
            facts.push(format!("${c:.4}"));
        }
        facts.extend(m.extra.iter().map(|(k, v)| format!("{k}={v}")));
        if !facts.is_empty() {
            writeln!(
                self.out,
                "{indent}{nest}  {DIM}{}{DIM:#}",
                facts.join(" · ")
            )?;
        }
        Ok(())
    }

    /// The full arguments and results of the calls `calls` of phase
    /// `phase` (indices as in the sidecar), after their list.
    fn full_calls(
        &mut self,
        data: &SessionData,
        phase: usize,
        calls: std::ops::Range<usize>,
        indent: &str,
    ) -> std::io::Result<()> {
        for i in calls {
            let Some(c) = data.call_at(phase, i) else {
                continue;
            };
            let mut facts = vec![format!("call {}", i + 1), c.tool.clone()];
            facts.extend(c.id.clone());
            facts.extend(c.exit_code.map(|e| format!("exit {e}")));
            facts.extend(
                c.duration_ms
                    .map(|d| duration(i64::try_from(d).unwrap_or(i64::MAX))),
            );
            writeln!(self.out, "{indent}  {DIM}── {}{DIM:#}", facts.join(" · "))?;
            let inner = format!("{indent}    ");
            if let Some(a) = &c.arguments {
                let text = match a {
                    serde_json::Value::String(s) => s.clone(),
                    other => serde_json::to_string_pretty(other).unwrap_or_default(),
                };
                writeln!(self.out, "{inner}{DIM}arguments{DIM:#}")?;
                self.lines(&format!("{inner}  "), &text, Style::new())?;
            }
            if let Some(r) = &c.result {
                writeln!(self.out, "{inner}{DIM}result{DIM:#}")?;
                self.lines(&format!("{inner}  "), &full_text(r), Style::new())?;
            }
            if let Some(d) = &c.diff {
                writeln!(self.out, "{inner}{DIM}diff{DIM:#}")?;
                self.lines(&format!("{inner}  "), d, Style::new())?;
            }
        }
        Ok(())
    }

    /// An empty line that keeps the bars of the callouts it is inside.
    fn blank(&mut self, indent: &str) -> std::io::Result<()> {
        let bars = indent.trim_end();
        if bars.is_empty() {
            writeln!(self.out)
        } else {
            writeln!(self.out, "{bars}")
        }
    }

    fn lines(&mut self, indent: &str, text: &str, style: Style) -> std::io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, "{indent}{style}{line}{style:#}")?;
        }
        Ok(())
    }

    fn block(&mut self, block: &Block, indent: &str) -> anyhow::Result<()> {
        match block {
            Block::Heading { text, .. } => writeln!(self.out, "{indent}{BOLD}{text}{BOLD:#}")?,
            Block::Prose { text } => {
                for line in text.lines() {
                    if line.trim().is_empty() {
                        self.blank(indent)?;
                    } else {
                        writeln!(self.out, "{indent}{line}")?;
                    }
                }
            }
            Block::Rule => {}
            Block::ToolCalls { calls } => {
                writeln!(self.out, "{indent}{DIM}tool calls{DIM:#}")?;
                for c in calls {
                    let (mark, style) = if c.failed {
                        ("✗", FAILED)
                    } else {
                        ("•", Style::new())
                    };
                    let args = after(" ", Some(&c.args));
                    let summary = after(" → ", c.summary.as_ref());
                    writeln!(
                        self.out,
                        "{indent}  {style}{mark}{style:#} {BOLD}{}{BOLD:#}{args}{style}{summary}{style:#}",
                        c.tool
                    )?;
                }
            }
            Block::Callout(c) => self.callout(c, indent)?,
            Block::Tasks { tasks } => {
                writeln!(self.out, "{indent}{BOLD}Tasks{BOLD:#}")?;
                for t in tasks {
                    let mark = match t.status {
                        TaskStatus::Completed => "[x]",
                        TaskStatus::InProgress => "[~]",
                        TaskStatus::Pending => "[ ]",
                    };
                    let prio = t
                        .priority
                        .as_ref()
                        .map(|p| format!(" {DIM}({p}){DIM:#}"))
                        .unwrap_or_default();
                    writeln!(self.out, "{indent}  {mark} {}{prio}", t.content)?;
                }
            }
            Block::SystemPrompt { text } => {
                writeln!(self.out, "{indent}{DIM}system prompt{DIM:#}")?;
                self.lines(&format!("{indent}  "), text, DIM)?;
            }
            Block::Prompt { text } => {
                writeln!(self.out, "{indent}{DIM}prompt{DIM:#}")?;
                self.lines(&format!("{indent}  "), text, Style::new())?;
            }
        }
        Ok(())
    }

    fn callout(&mut self, c: &Callout, indent: &str) -> anyhow::Result<()> {
        let kind = c.kind();
        let (style, label) = callout_style(&kind);
        let bar = format!("{indent}{style}│{style:#} ");
        self.blank(indent)?;
        let title = after(" ", Some(&c.title));
        if let (CalloutKind::Subagent, Ok(sub)) = (&kind, c.subagent()) {
            let target = after(" → ", sub.target.as_ref());
            writeln!(
                self.out,
                "{bar}{style}{label}{style:#}{title} {DIM}· {}{target}{DIM:#}",
                sub.mode
            )?;
            for line in &sub.description {
                writeln!(self.out, "{bar}{line}")?;
            }
            for line in &sub.content {
                writeln!(self.out, "{bar}{line}")?;
            }
            if let Some(s) = &sub.summary {
                self.lines(&bar, &format!("Summary: {s}"), Style::new())?;
            }
            if let (SubagentMode::Embed, Some(target)) = (sub.mode, &sub.target) {
                self.embed(target, &bar)?;
            }
        } else {
            writeln!(self.out, "{bar}{style}{label}{style:#}{title}")?;
            for line in &c.body {
                writeln!(self.out, "{bar}{line}")?;
            }
        }
        Ok(())
    }

    /// Shows an embedded child session in place, unless it is missing, is
    /// already being shown further out (a cycle of embeds), was shown
    /// earlier in this render, or the render has expanded its limit.
    fn embed(&mut self, target: &SessionId, bar: &str) -> anyhow::Result<()> {
        // The shown session itself is in `expanded` and not counted.
        if self.expanded.len() > MAX_EMBEDDED_SESSIONS {
            self.not_expanded += 1;
            writeln!(
                self.out,
                "{bar}{DIM}… {target} not expanded: limit of {MAX_EMBEDDED_SESSIONS} embedded sessions reached{DIM:#}"
            )?;
            return Ok(());
        }
        // Resolving and loading fail the same way for a reader: a note in place.
        // By id only: a link written in a file never names a path outside
        // the sessions directory.
        let (store, stack, expanded) = (self.store, &self.stack, &self.expanded);
        let loaded = store.resolve_id(target).and_then(|path| {
            let key = canonical(&path);
            if stack.contains(&key) {
                return Ok(Err(Repeat::Cycle));
            }
            if expanded.contains(&key) {
                return Ok(Err(Repeat::ShownEarlier));
            }
            store.load_path(&path).map(|child| Ok((key, child)))
        });
        let (key, child) = match loaded {
            Ok(Ok(found)) => found,
            Ok(Err(Repeat::Cycle)) => {
                writeln!(
                    self.out,
                    "{bar}{DIM}↻ {target} is already shown above (embed cycle); not repeated{DIM:#}"
                )?;
                return Ok(());
            }
            Ok(Err(Repeat::ShownEarlier)) => {
                writeln!(
                    self.out,
                    "{bar}{DIM}↑ {target} is shown earlier in this session; not repeated{DIM:#}"
                )?;
                return Ok(());
            }
            Err(e) => {
                writeln!(
                    self.out,
                    "{bar}{DIM}(embedded session not shown: {e}){DIM:#}"
                )?;
                return Ok(());
            }
        };
        let fm = &child.frontmatter;
        let tokens = fm
            .tokens_used
            .map(|t| format!(", {} tokens", thousands(t)))
            .unwrap_or_default();
        writeln!(
            self.out,
            "{bar}{BOLD}{}{BOLD:#} {DIM}({}, {}{tokens}){DIM:#}",
            child.title().unwrap_or(fm.session_id.as_str()),
            fm.session_id,
            fm.status
        )?;
        self.stack.insert(key.clone());
        self.expanded.insert(key.clone());
        let data = match store.resolve_id(target) {
            Ok(path) => self.data_of(&path, &child)?,
            Err(_) => None,
        };
        let result = self.body(&child, &format!("{bar}  "), data.as_ref());
        self.stack.remove(&key);
        result
    }
}

/// A result as text: a string as it is; content blocks by their text, an
/// image as a marker with its media type; anything else as JSON.
fn full_text(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p {
                Value::String(s) => s.clone(),
                _ => match (
                    p.get("text").and_then(Value::as_str),
                    p.get("type").and_then(Value::as_str),
                ) {
                    (Some(t), _) => t.to_owned(),
                    (None, Some("image")) => {
                        let media = p
                            .pointer("/source/media_type")
                            .and_then(Value::as_str)
                            .unwrap_or("image");
                        format!("[image: {media}]")
                    }
                    _ => p.to_string(),
                },
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}
