//! A session with its secrets taken out, for the commands whose output
//! leaves the machine (`codify`, `export --redact`).

use crucible_redact::Redactor;

use super::{Block, Callout, Section, SessionLog};

impl SessionLog {
    /// Replaces every secret in the session's free text: title, channel,
    /// model, unknown frontmatter values, headings, prose, tool calls,
    /// callouts, tasks, system prompts, phase names and metadata. Ids,
    /// timestamps and counters are not text and stay as they are.
    pub fn redact(&mut self, r: &Redactor) {
        let fm = &mut self.frontmatter;
        for s in [&mut fm.title, &mut fm.channel, &mut fm.model]
            .into_iter()
            .flatten()
        {
            r.redact_in_place(s);
        }
        redact_yaml_mapping(&mut fm.extra, r);
        for sub in &mut fm.subagents {
            if let Some(m) = sub.model.as_mut() {
                r.redact_in_place(m);
            }
            redact_yaml_mapping(&mut sub.extra, r);
        }
        redact_blocks(&mut self.preamble, r);
        for section in &mut self.sections {
            match section {
                Section::Phase(p) => {
                    r.redact_in_place(&mut p.name);
                    for s in [&mut p.channel, &mut p.meta.model].into_iter().flatten() {
                        r.redact_in_place(s);
                    }
                    for (_, v) in &mut p.meta.extra {
                        r.redact_in_place(v);
                    }
                    redact_blocks(&mut p.blocks, r);
                }
                Section::Plain(p) => {
                    r.redact_in_place(&mut p.title);
                    redact_blocks(&mut p.blocks, r);
                }
            }
        }
    }
}

fn redact_blocks(blocks: &mut [Block], r: &Redactor) {
    for block in blocks {
        match block {
            Block::Heading { text, .. }
            | Block::Prose { text }
            | Block::SystemPrompt { text }
            | Block::Prompt { text } => {
                r.redact_in_place(text);
            }
            Block::Rule => {}
            Block::ToolCalls { calls } => {
                for c in calls {
                    r.redact_in_place(&mut c.args);
                    if let Some(s) = c.summary.as_mut() {
                        r.redact_in_place(s);
                    }
                }
            }
            Block::Callout(c) => redact_callout(c, r),
            Block::Tasks { tasks } => {
                for t in tasks {
                    r.redact_in_place(&mut t.content);
                    for v in t.extra.values_mut() {
                        redact_json(v, r);
                    }
                }
            }
        }
    }
}

/// The body as one text: a private key spans several lines, and only
/// together do they show where it starts and ends.
fn redact_callout(c: &mut Callout, r: &Redactor) {
    r.redact_in_place(&mut c.title);
    let body = c.body.join("\n");
    if let std::borrow::Cow::Owned(red) = r.redact(&body) {
        c.body = red.split('\n').map(str::to_owned).collect();
    }
}

fn redact_json(v: &mut serde_json::Value, r: &Redactor) {
    match v {
        serde_json::Value::String(s) => r.redact_in_place(s),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| redact_json(i, r)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|i| redact_json(i, r)),
        _ => {}
    }
}

/// Values only: a key is a name the file's writer chose, not content.
fn redact_yaml_mapping(map: &mut crate::yaml::Mapping, r: &Redactor) {
    for v in map.values_mut() {
        v.for_each_str_mut(&mut |s| r.redact_in_place(s));
    }
}

impl super::SessionData {
    /// Replaces every secret in the sidecar's text: arguments, results,
    /// thinking, context and kept source records, key by key. Image bytes
    /// are dropped (a screenshot can show anything; its media type and
    /// size stay).
    pub fn redact(&mut self, r: &Redactor) {
        use super::DataRecord;
        for rec in &mut self.records {
            match rec {
                DataRecord::Call(c) => {
                    for v in [&mut c.arguments, &mut c.result].into_iter().flatten() {
                        redact_json(v, r);
                    }
                    if let Some(d) = c.diff.as_mut() {
                        r.redact_in_place(d);
                    }
                    c.extra.values_mut().for_each(|v| redact_json(v, r));
                }
                DataRecord::Thinking(t) => {
                    r.redact_in_place(&mut t.text);
                    t.extra.values_mut().for_each(|v| redact_json(v, r));
                }
                DataRecord::Image(i) => {
                    i.data = None;
                    i.extra.values_mut().for_each(|v| redact_json(v, r));
                }
                DataRecord::Context(c) => {
                    r.redact_in_place(&mut c.text);
                    c.extra.values_mut().for_each(|v| redact_json(v, r));
                }
                DataRecord::Source(s) => redact_json(&mut s.record, r),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Frontmatter, Phase, SessionId, Timestamp, ToolCall};

    #[test]
    fn every_text_of_a_session_is_redacted() {
        let key = format!("ghp_{}", "Zx81kQ2mLp94TrW0aB3cD5eF");
        let mut fm = Frontmatter::new(
            SessionId::new("2025-01-01-s").unwrap(),
            "2025-01-01T00:00:00Z".parse::<Timestamp>().unwrap(),
        );
        fm.title = Some(format!("push with {key}"));
        let mut log = SessionLog::new(fm);
        let mut phase = Phase::new("Setup", None, None);
        phase.name = format!("use {key}");
        phase.blocks = vec![
            Block::Prose {
                text: format!("token {key}"),
            },
            Block::ToolCalls {
                calls: vec![ToolCall {
                    tool: "bash".into(),
                    args: format!("{{\"cmd\": \"GH_TOKEN={key} gh pr list\"}}"),
                    summary: Some(format!("{key}…")),
                    failed: false,
                }],
            },
            Block::Callout(Callout::new(
                "error",
                "bad",
                vec![
                    "-----BEGIN RSA PRIVATE KEY-----".into(),
                    "MIIEpAIBAAKCAQEA7bqQ2x9".into(),
                    "-----END RSA PRIVATE KEY-----".into(),
                    "after".into(),
                ],
            )),
        ];
        log.sections.push(Section::Phase(phase));
        log.redact(Redactor::shared());
        let text = format!("{log:?}");
        assert!(!text.contains(&key[..12]), "{text}");
        assert!(!text.contains("MIIEpAIBAAKCAQEA7bqQ2x9"), "{text}");
        assert!(text.contains("after"));
    }
}
