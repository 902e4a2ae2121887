//! One session as one self-contained page: the header of figures, then
//! the text before the first phase, then every section in document order.
//!
//! The page holds its own style and no script: it works from `file://`,
//! offline, and follows the system's light or dark setting. A
//! Content-Security-Policy forbids scripts and anything fetched, so that
//! even a mistake in escaping could not run code or reach the network.

use std::collections::HashSet;

use crucible_core::{
    Block, CallData, Callout, CalloutKind, DataRecord, Phase, Section, SessionData, SessionLog,
    SubagentMode, Task, TaskStatus, ToolCall, Verdict,
};

use crate::escape::{escaped, push};
use crate::markdown::{push_markdown, push_session_link, push_with_wikilinks};

/// What the page knows of the sessions around it.
pub trait Neighbours {
    /// The address of session `id`'s page, relative to this one, when the
    /// session is in the directory.
    fn href(&self, id: &str) -> Option<String>;
    /// Session `id` and its sidecar, to show inside an `embed` callout.
    fn embedded(&self, id: &str) -> Option<(SessionLog, Option<SessionData>)>;
}

/// The session's figures that come from outside the file (the price
/// table): shown in the header when known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub tokens: u64,
    pub cost_usd: Option<f64>,
}

/// A session to show.
pub struct SessionPage<'a> {
    pub log: &'a SessionLog,
    /// Its sidecar: each call's full arguments and result, when kept.
    pub data: Option<&'a SessionData>,
    pub figures: Option<Figures>,
    pub neighbours: &'a dyn Neighbours,
    /// The address of the site's index, for a link back to it.
    pub home: Option<&'a str>,
    /// The number of the session's first phase: 1, or N for a page of
    /// phase N alone (`show ID#phase-N`), so that it keeps its number and
    /// its anchor.
    pub first_phase: usize,
}

impl std::fmt::Debug for SessionPage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionPage")
            .field("id", &self.log.id())
            .field("figures", &self.figures)
            .finish_non_exhaustive()
    }
}

/// The most sessions one page shows inside `embed` callouts: each once,
/// and no more than this (a page, unlike a terminal, is read whole).
pub const MAX_EMBEDDED: usize = 100;

/// The style every page shares.
pub(crate) const STYLE: &str = include_str!("page.css");

/// What a page may run and load: nothing but its own style...
pub(crate) const NO_SCRIPT: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
/// ...and, for the site's index pages, the scripts beside them
/// (`site.js`, `sessions.js`; `file:` is how a page opened from disk
/// names them) and no inline script: markup slipped into a page could not
/// run.
pub(crate) const OWN_SCRIPT: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src file: 'self'";

/// The start of every page up to `<body>`: its policy `csp`, its `title`,
/// the shared style and `style` after it.
pub(crate) fn head(out: &mut String, csp: &str, title: &str, style: &str) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    out.push_str(csp);
    out.push_str("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
    push(out, title);
    out.push_str("</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str(style);
    out.push_str("</style>\n</head>\n<body>\n");
}

impl SessionPage<'_> {
    /// The whole page.
    pub fn render(&self) -> String {
        let log = self.log;
        let title = log.title().unwrap_or(log.id().as_str());
        let mut out = String::with_capacity(16 * 1024);
        head(&mut out, NO_SCRIPT, title, "");
        header(&mut out, self);
        out.push_str("<main>\n");
        let mut body = Body {
            out: &mut out,
            neighbours: self.neighbours,
            seen: HashSet::from([log.id().to_string()]),
            embedded: 0,
            prefix: String::new(),
            first_phase: self.first_phase.max(1),
        };
        body.session(log, self.data);
        out.push_str("</main>\n</body>\n</html>\n");
        out
    }
}

fn header(out: &mut String, page: &SessionPage<'_>) {
    let fm = &page.log.frontmatter;
    out.push_str("<header>\n");
    if let Some(home) = page.home {
        out.push_str("<nav class=\"home\"><a href=\"");
        push(out, crate::escape::safe_href(home));
        out.push_str("\">← all sessions</a></nav>\n");
    }
    out.push_str("<h1>");
    push(out, page.log.title().unwrap_or(fm.session_id.as_str()));
    out.push_str("</h1>\n<dl class=\"figures\">\n");
    let mut field = |name: &str, html: String| {
        out.push_str("<div><dt>");
        push(out, name);
        out.push_str("</dt><dd>");
        out.push_str(&html);
        out.push_str("</dd></div>\n");
    };
    field(
        "id",
        format!("<code>{}</code>", escaped(fm.session_id.as_str())),
    );
    let status = fm.status.as_str();
    field(
        "status",
        format!(
            "<span class=\"status status-{0}\">{0}</span>",
            escaped(status)
        ),
    );
    field("started", escaped(fm.started.as_str()));
    if let Some(ms) = fm.duration_ms() {
        field("duration", escaped(&duration(ms)));
    }
    if !fm.participants.is_empty() {
        let agents: Vec<String> = fm.participants.iter().map(ToString::to_string).collect();
        field("agents", escaped(&agents.join(", ")));
    }
    if let Some(model) = &fm.model {
        field("model", escaped(model));
    }
    if let Some(channel) = &fm.channel {
        field("channel", escaped(&format!("#{channel}")));
    }
    match (page.figures.map(|f| f.tokens), fm.tokens_used) {
        // The usage count credits a subagent's tokens to its own session;
        // a file's `tokens_used` may include them: both are shown.
        (Some(counted), Some(written)) if counted != written => field(
            "tokens",
            format!(
                "{} <small>({} in the file's frontmatter)</small>",
                thousands(counted),
                thousands(written)
            ),
        ),
        (Some(t), _) | (None, Some(t)) if t > 0 => field("tokens", thousands(t)),
        _ => {}
    }
    if let Some(cost) = page.figures.and_then(|f| f.cost_usd).or(fm.cost_usd) {
        field("cost", format!("${cost:.2}"));
    }
    if let Some(parent) = &fm.parent {
        let mut html = String::new();
        push_session_link(&mut html, parent.as_str(), parent.as_str(), &|id| {
            page.neighbours.href(id)
        });
        field("parent", html);
    }
    if let Some(point) = &fm.resume_point {
        field("resume at", escaped(&point.to_string()));
    }
    out.push_str("</dl>\n</header>\n");
}

/// The body of one session (the page's, or one shown inside an embed).
struct Body<'o, 'n> {
    out: &'o mut String,
    neighbours: &'n dyn Neighbours,
    /// Sessions shown on the page so far, so that none is shown twice and
    /// a session embedding itself stops.
    seen: HashSet<String>,
    embedded: usize,
    /// Put before the ids of the phases of an embedded session (its own
    /// id and `-`), so that no two elements of the page share an id.
    prefix: String,
    /// The number of the first phase of the session being written.
    first_phase: usize,
}

impl Body<'_, '_> {
    fn session(&mut self, log: &SessionLog, data: Option<&SessionData>) {
        let title = log.title();
        for block in &log.preamble {
            // The title is the page's heading already.
            if matches!(block, Block::Heading { level: 1, text } if Some(text.as_str()) == title) {
                continue;
            }
            self.block(block, None, data);
        }
        let mut phase_index = 0;
        for section in &log.sections {
            match section {
                Section::Phase(p) => {
                    self.phase(p, phase_index, data);
                    phase_index += 1;
                }
                Section::Plain(s) => {
                    let level = (s.level + 1).min(6);
                    self.out
                        .push_str(&format!("<section class=\"plain\">\n<h{level}>"));
                    push(self.out, &s.title);
                    self.out.push_str(&format!("</h{level}>\n"));
                    for b in &s.blocks {
                        self.block(b, None, data);
                    }
                    self.out.push_str("</section>\n");
                }
            }
        }
    }

    fn phase(&mut self, p: &Phase, index: usize, data: Option<&SessionData>) {
        let number = index + self.first_phase;
        let level = p.level.clamp(2, 5);
        let id = format!("{}phase-{number}", escaped(&self.prefix));
        self.out.push_str(&format!(
            "<section class=\"phase\" id=\"{id}\">\n<h{level}><a class=\"anchor\" href=\"#{id}\">{number}.</a> "
        ));
        push(self.out, &p.name);
        if let Some(agent) = &p.agent {
            self.out.push_str(" <span class=\"agent\">@");
            push(self.out, &agent.to_string());
            self.out.push_str("</span>");
        }
        if let Some(channel) = &p.channel {
            self.out.push_str(" <span class=\"channel\">#");
            push(self.out, channel);
            self.out.push_str("</span>");
        }
        self.out.push_str(&format!("</h{level}>\n"));
        let meta = phase_meta(p);
        if !meta.is_empty() {
            self.out.push_str("<p class=\"meta\">");
            push(self.out, &meta.join(" · "));
            self.out.push_str("</p>\n");
        }
        let mut calls = Calls {
            phase: index,
            next: 0,
        };
        for b in &p.blocks {
            self.block(b, Some(&mut calls), data);
        }
        self.out.push_str("</section>\n");
    }

    fn block(&mut self, block: &Block, calls: Option<&mut Calls>, data: Option<&SessionData>) {
        match block {
            Block::Heading { level, text } => {
                let level = (level + 1).min(6);
                self.out.push_str(&format!("<h{level}>"));
                push(self.out, text);
                self.out.push_str(&format!("</h{level}>\n"));
            }
            Block::Prose { text } => self.markdown(text),
            Block::Rule => self.out.push_str("<hr>\n"),
            Block::ToolCalls { calls: list } => {
                let mut own = Calls {
                    phase: usize::MAX,
                    next: 0,
                };
                let calls = calls.unwrap_or(&mut own);
                self.tool_calls(list, calls, data);
            }
            Block::Callout(c) => self.callout(c),
            Block::Tasks { tasks } => tasks_list(self.out, tasks),
            Block::SystemPrompt { text } => {
                self.out.push_str(
                    "<details class=\"system-prompt\"><summary>System prompt</summary><pre>",
                );
                push(self.out, text);
                self.out.push_str("</pre></details>\n");
            }
            Block::Prompt { text } => {
                self.out
                    .push_str("<div class=\"prompt\"><div class=\"label\">Prompt</div><pre>");
                push(self.out, text);
                self.out.push_str("</pre></div>\n");
            }
        }
    }

    fn markdown(&mut self, text: &str) {
        let neighbours = self.neighbours;
        push_markdown(self.out, text, 2, &|id| neighbours.href(id));
    }

    fn tool_calls(&mut self, list: &[ToolCall], calls: &mut Calls, data: Option<&SessionData>) {
        self.out.push_str("<ul class=\"calls\">\n");
        for call in list {
            let full = data.and_then(|d| calls.data_of(d));
            calls.next += 1;
            tool_call(self.out, call, full);
        }
        self.out.push_str("</ul>\n");
    }

    fn callout(&mut self, c: &Callout) {
        let kind = CalloutKind::parse(&c.kind);
        if kind == CalloutKind::Subagent
            && let Ok(sub) = c.subagent()
        {
            return self.subagent(c, &sub);
        }
        let class = kind_class(&c.kind);
        let verdict = (class == "eval")
            .then(|| c.title.split_whitespace().next().and_then(Verdict::parse))
            .flatten();
        self.out
            .push_str(&format!("<aside class=\"callout callout-{class}"));
        if let Some(v) = verdict {
            self.out.push_str(&format!(" verdict-{}", v.as_str()));
        }
        self.out
            .push_str("\">\n<div class=\"callout-title\"><span class=\"kind\">");
        push(self.out, &c.kind);
        self.out.push_str("</span>");
        if !c.title.is_empty() {
            self.out.push(' ');
            let neighbours = self.neighbours;
            push_with_wikilinks(self.out, &c.title, &|id| neighbours.href(id));
        }
        self.out.push_str("</div>\n");
        if !c.body.is_empty() && matches!(class.as_str(), "expect" | "eval") {
            // Records, not prose: a key a line, as written (a pattern's
            // `\.` is not markdown's escape).
            self.out.push_str("<pre class=\"callout-body record\">");
            push(self.out, &c.body.join("\n"));
            self.out.push_str("</pre>\n");
        } else if !c.body.is_empty() {
            self.out.push_str("<div class=\"callout-body\">\n");
            self.markdown(&c.body.join("\n"));
            self.out.push_str("</div>\n");
        }
        self.out.push_str("</aside>\n");
    }

    fn subagent(&mut self, c: &Callout, sub: &crucible_core::SubagentRef) {
        self.out.push_str("<aside class=\"callout callout-subagent\">\n<div class=\"callout-title\"><span class=\"kind\">subagent</span> ");
        push(self.out, &c.title);
        self.out.push_str(&format!(
            " <small>({})</small></div>\n<div class=\"callout-body\">\n",
            sub.mode
        ));
        if !sub.description.is_empty() {
            self.markdown(&sub.description.join("\n"));
        }
        match (sub.mode, &sub.target) {
            (SubagentMode::Inline, _) | (_, None) => {
                if !sub.content.is_empty() {
                    self.markdown(&dedent(&sub.content));
                }
            }
            (SubagentMode::Link, Some(target)) => self.session_link(target.as_str()),
            (SubagentMode::Embed, Some(target)) => self.embed(target.as_str()),
        }
        if let Some(summary) = &sub.summary {
            self.out
                .push_str("<p class=\"summary\"><strong>Summary:</strong> ");
            push(self.out, summary);
            self.out.push_str("</p>\n");
        }
        self.out.push_str("</div>\n</aside>\n");
    }

    fn session_link(&mut self, target: &str) {
        self.out.push_str("<p>");
        let neighbours = self.neighbours;
        push_session_link(self.out, target, target, &|id| neighbours.href(id));
        self.out.push_str("</p>\n");
    }

    /// The embedded session's body inside the callout, once per page and
    /// up to [`MAX_EMBEDDED`]; a link otherwise.
    fn embed(&mut self, target: &str) {
        if self.seen.contains(target) || self.embedded >= MAX_EMBEDDED {
            return self.session_link(target);
        }
        let Some((log, data)) = self.neighbours.embedded(target) else {
            return self.session_link(target);
        };
        self.seen.insert(target.to_owned());
        self.embedded += 1;
        self.session_link(target);
        self.out.push_str("<div class=\"embedded\">\n");
        let inner = format!("{}{target}-", self.prefix);
        let prefix = std::mem::replace(&mut self.prefix, inner);
        let first = std::mem::replace(&mut self.first_phase, 1);
        self.session(&log, data.as_ref());
        self.prefix = prefix;
        self.first_phase = first;
        self.out.push_str("</div>\n");
    }
}

/// Where the next tool call of a phase is among the sidecar's calls.
struct Calls {
    phase: usize,
    next: usize,
}

impl Calls {
    fn data_of<'d>(&self, data: &'d SessionData) -> Option<&'d CallData> {
        data.records.iter().find_map(|r| match r {
            DataRecord::Call(c) if c.phase == self.phase && c.call == self.next => Some(c),
            _ => None,
        })
    }
}

fn tool_call(out: &mut String, call: &ToolCall, full: Option<&CallData>) {
    out.push_str(if call.failed {
        "<li class=\"call failed\">"
    } else {
        "<li class=\"call\">"
    });
    let line = |out: &mut String| {
        out.push_str("<code class=\"tool\">");
        push(out, &call.tool);
        out.push_str("</code>");
        if !call.args.is_empty() {
            out.push_str(" <code class=\"args\">");
            push(out, &call.args);
            out.push_str("</code>");
        }
        match (&call.summary, call.failed) {
            (Some(s), true) => {
                out.push_str(" <span class=\"result\">→ <span class=\"fail\">✗</span> ");
                push(out, s);
                out.push_str("</span>");
            }
            (None, true) => out
                .push_str(" <span class=\"result\">→ <span class=\"fail\">✗ failed</span></span>"),
            (Some(s), false) => {
                out.push_str(" <span class=\"result\">→ ");
                push(out, s);
                out.push_str("</span>");
            }
            (None, false) => {}
        }
    };
    match full {
        Some(full) => {
            out.push_str("<details><summary>");
            line(out);
            out.push_str("</summary>\n");
            call_data(out, full);
            out.push_str("</details>");
        }
        None => line(out),
    }
    out.push_str("</li>\n");
}

/// A call's full arguments, result and diff, as the sidecar keeps them.
fn call_data(out: &mut String, full: &CallData) {
    let mut part = |label: &str, text: &str| {
        out.push_str("<div class=\"full\"><div class=\"label\">");
        push(out, label);
        out.push_str("</div><pre>");
        push(out, text);
        out.push_str("</pre></div>\n");
    };
    if let Some(args) = &full.arguments {
        part("arguments", &json_text(args));
    }
    if let Some(result) = &full.result {
        part("result", &json_text(result));
    }
    if let Some(diff) = &full.diff {
        part("diff", diff);
    }
    let mut facts = Vec::new();
    if let Some(code) = full.exit_code {
        facts.push(format!("exit code {code}"));
    }
    if let Some(ms) = full.duration_ms {
        facts.push(duration(i64::try_from(ms).unwrap_or(i64::MAX)));
    }
    if !facts.is_empty() {
        out.push_str("<p class=\"meta\">");
        push(out, &facts.join(" · "));
        out.push_str("</p>\n");
    }
}

/// A JSON value as a person reads it: a string as its text, the rest
/// indented.
fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

fn tasks_list(out: &mut String, tasks: &[Task]) {
    out.push_str("<ul class=\"tasks\">\n");
    for t in tasks {
        let (checked, class) = match t.status {
            TaskStatus::Completed => (" checked", "completed"),
            TaskStatus::InProgress => ("", "in-progress"),
            TaskStatus::Pending => ("", "pending"),
        };
        out.push_str(&format!(
            "<li class=\"task {class}\"><input type=\"checkbox\" disabled{checked}> "
        ));
        push(out, &t.content);
        if t.status == TaskStatus::InProgress {
            out.push_str(" <small>(in progress)</small>");
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n");
}

/// Lines with their common indentation taken off: an inline subagent's
/// work is indented under its callout, and markdown would read the
/// indentation as a code block or a list's continuation.
fn dedent(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start_matches(' ')))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A callout kind as a class name: letters, digits and `-` only.
fn kind_class(kind: &str) -> String {
    kind.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn phase_meta(p: &Phase) -> Vec<String> {
    let m = &p.meta;
    let mut parts = Vec::new();
    if let Some(model) = &m.model {
        parts.push(model.clone());
    }
    if let Some(ms) = m.duration_ms {
        parts.push(duration(i64::try_from(ms).unwrap_or(i64::MAX)));
    }
    if let Some(tokens) = m.tokens {
        parts.push(format!("{} tokens", thousands(tokens)));
    }
    if let Some(cost) = m.cost_usd {
        parts.push(format!("${cost:.2}"));
    }
    parts
}

pub use crucible_core::figures::{duration, thousands};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_become_safe_class_names() {
        assert_eq!(kind_class("Decision"), "decision");
        assert_eq!(kind_class("x\" onmouseover=\"a"), "x--onmouseover--a");
    }
}
