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
