//! The fenced `tasks` block: a JSON array of `{id, content, status, priority}`.

use crucible_core::Task;
use serde_json::Value;

/// The info string of the block.
pub(crate) const INFO: &str = "tasks";

/// Reads the block's content; errors give the 1-based line inside it.
pub(crate) fn parse(content: &str) -> Result<Vec<Task>, (usize, String)> {
    let items: Vec<Value> =
        serde_json::from_str(content).map_err(|e| (e.line().max(1), json_message(&e)))?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            // Some tools write numeric ids; they are ids all the same.
            if let Some(id) = item.get_mut("id")
                && let Value::Number(n) = id
            {
                *id = Value::String(n.to_string());
            }
            serde_json::from_value::<Task>(item)
                .map_err(|e| (line_of_item(content, i), format!("task {}: {e}", i + 1)))
        })
        .collect()
}

/// Whether [`parse`] would accept `content`, answered without building the
/// tasks: the index only needs to know, and the `serde_json::Value` tree
/// per item was a twentieth of a rebuild. It may say no where `parse` says
/// yes (a key given twice), never the reverse; a test holds it to that.
pub(crate) fn is_valid(content: &str) -> bool {
    serde_json::from_str::<Vec<check::TaskShape>>(content).is_ok()
}

/// Deserializers that check the shape of a task and keep nothing.
mod check {
    use std::fmt;

    use crucible_core::TaskStatus;
    use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

    pub(super) struct TaskShape;

    impl<'de> Deserialize<'de> for TaskShape {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(TaskVisitor)
        }
    }

    struct TaskVisitor;

    impl<'de> Visitor<'de> for TaskVisitor {
        type Value = TaskShape;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a task object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TaskShape, A::Error> {
            let mut seen = [false; 4];
            while let Some(key) = map.next_key::<Key>()? {
                let slot = match key {
                    Key::Id => {
                        map.next_value::<Id>()?;
                        0
                    }
                    Key::Content => {
                        map.next_value::<Text>()?;
                        1
                    }
                    Key::Status => {
                        map.next_value::<TaskStatus>()?;
                        2
                    }
                    Key::Priority => {
                        map.next_value::<Option<Text>>()?;
                        3
                    }
                    Key::Other => {
                        // Read as `parse` reads it (a number out of range
                        // is an error there, not for `IgnoredAny`).
                        map.next_value::<serde_json::Value>()?;
                        continue;
                    }
                };
                if std::mem::replace(&mut seen[slot], true) {
                    return Err(de::Error::custom("a key given twice"));
                }
            }
            if seen[..3].iter().all(|&s| s) {
                Ok(TaskShape)
            } else {
                Err(de::Error::custom("a task without id, content or status"))
            }
        }
    }

    enum Key {
        Id,
        Content,
        Status,
        Priority,
        Other,
    }

    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_identifier(KeyVisitor)
        }
    }

    struct KeyVisitor;

    impl Visitor<'_> for KeyVisitor {
        type Value = Key;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a key")
        }

        fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
            Ok(match key {
                "id" => Key::Id,
                "content" => Key::Content,
                "status" => Key::Status,
                "priority" => Key::Priority,
                _ => Key::Other,
            })
        }
    }

    /// A string, kept nowhere.
    struct Text;

    impl<'de> Deserialize<'de> for Text {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(TextVisitor)
        }
    }

    struct TextVisitor;

    impl Visitor<'_> for TextVisitor {
        type Value = Text;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: de::Error>(self, _: &str) -> Result<Text, E> {
            Ok(Text)
        }
    }

    /// A string or a number (which `parse` turns into its text).
    struct Id;

    impl<'de> Deserialize<'de> for Id {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(IdVisitor)
        }
    }

    struct IdVisitor;

    impl Visitor<'_> for IdVisitor {
        type Value = Id;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string or a number")
        }

        fn visit_str<E: de::Error>(self, _: &str) -> Result<Id, E> {
            Ok(Id)
        }

        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Id, E> {
            Ok(Id)
        }

        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Id, E> {
            Ok(Id)
        }

        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Id, E> {
            Ok(Id)
        }
    }
}

fn json_message(e: &serde_json::Error) -> String {
    let m = e.to_string();
    m.split(" at line ").next().unwrap_or(&m).to_owned()
}

/// The line of the `i`-th top-level object, found by counting `{` at depth 1.
fn line_of_item(content: &str, i: usize) -> usize {
    let mut depth = 0;
    let mut seen = 0;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    for c in content.chars() {
        match c {
            '\n' => line += 1,
            _ if in_string => match (c, escaped) {
                ('\\', false) => escaped = true,
                ('"', false) => in_string = false,
                _ => escaped = false,
            },
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 2 && c == '{' {
                    if seen == i {
                        return line;
                    }
                    seen += 1;
                }
            }
            ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    1
}

/// One task per line, keys in the spec's order, as people write the block.
pub(crate) fn write(tasks: &[Task], out: &mut String) {
    out.push_str("```tasks\n");
    if tasks.is_empty() {
        out.push_str("[]\n```");
        return;
    }
    out.push_str("[\n");
    for (i, t) in tasks.iter().enumerate() {
        let mut fields = vec![
            ("id", Value::from(t.id.as_str())),
            ("content", Value::from(t.content.as_str())),
            ("status", Value::from(t.status.as_str())),
        ];
        if let Some(p) = &t.priority {
            fields.push(("priority", Value::from(p.as_str())));
        }
        out.push_str("  {");
        let extra = t.extra.iter().map(|(k, v)| (k.as_str(), v.clone()));
        for (j, (k, v)) in fields.into_iter().chain(extra).enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            out.push_str(&serde_json::to_string(k).unwrap_or_default());
            out.push_str(": ");
            out.push_str(&serde_json::to_string(&v).unwrap_or_default());
        }
        out.push('}');
        if i + 1 < tasks.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str("]\n```");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_check_says_yes_only_where_parse_does() {
        let cases = [
            "[]",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\"}]",
            "[{\"id\": 2, \"content\": \"a\", \"status\": \"completed\", \"priority\": null}]",
            "[{\"id\": -2.5, \"content\": \"a\\u00e9\", \"status\": \"in_progress\", \"x\": [1, {}]}]",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"done\"}]",
            "[{\"id\": null, \"content\": \"a\", \"status\": \"pending\"}]",
            "[{\"id\": \"1\", \"content\": 3, \"status\": \"pending\"}]",
            "[{\"id\": \"1\", \"status\": \"pending\"}]",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\", \"priority\": 1}]",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\", \"x\": 1e400}]",
            "[{\"id\": \"1\", \"content\": \"\\ud800\", \"status\": \"pending\"}]",
            "[{\"id\": \"1\", \"id\": \"2\", \"content\": \"a\", \"status\": \"pending\"}]",
            "[[\"1\", \"a\", \"pending\"]]",
            "[3]",
            "{}",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\"},]",
            "[{\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\"}] x",
            "",
        ];
        for c in cases {
            let full = parse(c).is_ok();
            let shape = is_valid(c);
            assert!(!shape || full, "the check accepts what parse rejects: {c}");
            // Only a key given twice is refused by the check alone.
            if !c.contains("\"id\": \"2\"") {
                assert_eq!(shape, full, "{c}");
            }
        }
    }

    #[test]
    fn reads_the_sample_shape_and_points_at_bad_items() {
        let ok = "[\n  {\"id\": 1, \"content\": \"a\", \"status\": \"pending\", \"priority\": \"high\", \"owner\": \"me\"}\n]";
        let tasks = parse(ok).unwrap();
        assert_eq!(tasks[0].id, "1");
        assert_eq!(tasks[0].extra["owner"], "me");
        let mut out = String::new();
        write(&tasks, &mut out);
        let inner = out
            .strip_prefix("```tasks\n")
            .unwrap()
            .strip_suffix("```")
            .unwrap();
        assert_eq!(parse(inner).unwrap(), tasks);

        let bad = "[\n {\"id\": \"1\", \"content\": \"a\", \"status\": \"pending\"},\n {\"id\": \"2\", \"content\": \"b\", \"status\": \"done\"}\n]";
        let (line, msg) = parse(bad).unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("done"), "{msg}");
        assert_eq!(parse("[{\"id\": \"1\",]").unwrap_err().0, 1);
    }
}
