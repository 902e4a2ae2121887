//! A session as cru shows it to scripts (`cru session list --format
//! json|toon`, docs/json.md): what the session says, nothing of how the
//! index keeps it (file stamps, whether it had a journal, the columns'
//! order or names).

use serde::Serialize;

use crucible_core::Counts;

use crate::SessionRecord;

/// One session in cru's output schema, borrowed from its record: the one
/// place that shape is written, so the JSON and the index cannot drift
/// apart field by field.
///
/// The field order is the order of the output; a field may be added, never
/// renamed or removed (docs/json.md, "version").
#[derive(Debug, Serialize)]
pub struct SessionView<'a> {
    pub id: &'a str,
    pub status: &'static str,
    pub title: Option<&'a str>,
    pub started: &'a str,
    pub ended: Option<&'a str>,
    pub duration_ms: Option<u64>,
    /// Participants (`name@version`) then the other agents of its phases.
    pub agents: Vec<&'a str>,
    /// The frontmatter's `participants`.
    pub participants: &'a [String],
    /// Lists, so that a session of more channels or models later is not a
    /// change of type.
    pub channels: &'a [String],
    pub models: &'a [String],
    pub tokens: Option<u64>,
    pub phases: u64,
    /// `tool_calls`, `failed_tool_calls`, `decisions`, `errors`,
    /// `user_interventions`, `subagents`, as core counts them.
    #[serde(flatten)]
    pub counts: &'a Counts,
    pub resume_point: Option<&'a str>,
    pub parent: Option<&'a str>,
    /// Relative to the sessions directory, `/`-separated.
    pub path: &'a str,
}

impl SessionRecord {
    /// This session in cru's output schema.
    pub fn view(&self) -> SessionView<'_> {
        SessionView {
            id: &self.id,
            status: self.status.as_str(),
            title: self.title.as_deref(),
            started: &self.started,
            ended: self.ended.as_deref(),
            duration_ms: self.duration_ms,
            agents: self.all_agents().collect(),
            participants: &self.participants,
            channels: self.channel.as_slice(),
            models: self.model.as_slice(),
            tokens: self.tokens_used,
            phases: self.phases,
            counts: &self.counts,
            resume_point: self.resume_point.as_deref(),
            parent: self.parent.as_deref(),
            path: &self.path,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{FileStamp, SessionRecord};

    #[test]
    fn a_view_has_the_output_fields_in_order_and_the_records_values() {
        let path = "2025-11/sample.md";
        let summary = crate::record::tests::sample_summary(path);
        let mut record =
            SessionRecord::from_summary(path.to_owned(), &summary, FileStamp::default(), true);
        record.agents.push("helper@2".to_owned());
        let json = serde_json::to_value(record.view()).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // docs/json.md promises this order; stamps and `live` stay out.
        assert_eq!(
            keys,
            [
                "id",
                "status",
                "title",
                "started",
                "ended",
                "duration_ms",
                "agents",
                "participants",
                "channels",
                "models",
                "tokens",
                "phases",
                "tool_calls",
                "failed_tool_calls",
                "decisions",
                "errors",
                "user_interventions",
                "subagents",
                "resume_point",
                "parent",
                "path",
            ]
        );
        let agents = json["agents"].as_array().unwrap();
        assert_eq!(
            agents.len(),
            record.participants.len() + record.agents.len()
        );
        assert_eq!(agents[0], record.participants[0].as_str());
        assert_eq!(agents.last().unwrap(), "helper@2");
        assert_eq!(json["tool_calls"], record.counts.tool_calls);
        assert_eq!(json["path"], path);
    }
}
