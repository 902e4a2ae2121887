//! gray_matter is the design card's frontmatter crate. We split and read
//! frontmatter ourselves (docs/decisions/0001-frontmatter.md), and use it here
//! as an oracle where it behaves correctly: on closed frontmatter with LF line
//! endings it must find the same data we do.

use gray_matter::Matter;
use gray_matter::engine::YAML;
use proptest::prelude::*;

use crate::strategy::session_log;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn gray_matter_reads_the_frontmatter_we_write(log in session_log()) {
        let text = crucible_parser::write_session(&log);
        let theirs = Matter::<YAML>::new()
            .parse::<serde_json::Value>(&text)
            .expect("gray_matter parses what we write")
            .data
            .expect("gray_matter finds the frontmatter");
        let yaml = text.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap();
        let ours: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        // Maps compare without regard to order: gray_matter does not keep it.
        // It reads integers above i64 as floats, so numbers compare as f64.
        prop_assert_eq!(numbers_as_f64(theirs.clone()), numbers_as_f64(ours));
        prop_assert_eq!(theirs["session_id"].as_str(), Some(log.id().as_str()));
        prop_assert_eq!(theirs["status"].as_str(), Some(log.frontmatter.status.as_str()));
    }
}

fn numbers_as_f64(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect())
        }
        other => other,
    }
}

/// Text a YAML 1.1 reader would take for a number or a boolean (CI found
/// `session: 01e310` read back as null) is quoted, and reads back as text
/// in both.
#[test]
fn number_and_boolean_lookalikes_are_text_to_gray_matter() {
    for (id, model) in [
        ("01e310", "01e310"),
        ("1e5", "12:30"),
        ("1_000", "1_000"),
        ("0x1f", ".inf"),
        ("yes", "No"),
        ("on", "~"),
        ("007", "007"),
        ("0o-0", "inf"),
        ("0x-f", "1."),
        ("3.5", "-3.5e2"),
    ] {
        let text = "---\ntype: session\nsession_id: s\nstarted: 2025-01-01T00:00:00Z\nstatus: active\nsubagents:\n  - session: x\nresume_point: null\n---\n";
        let mut log =
            crucible_parser::parse_session(std::path::Path::new("s.md"), text.as_bytes()).unwrap();
        log.frontmatter.subagents[0].session = id.parse().unwrap();
        log.frontmatter.model = Some(model.to_owned());
        let written = crucible_parser::write_session(&log);
        let theirs = Matter::<YAML>::new()
            .parse::<serde_json::Value>(&written)
            .unwrap()
            .data
            .unwrap();
        assert_eq!(
            theirs["subagents"][0]["session"].as_str(),
            Some(id),
            "{written}"
        );
        assert_eq!(theirs["model"].as_str(), Some(model), "{written}");
        let back = crucible_parser::parse_session(std::path::Path::new("s.md"), written.as_bytes())
            .unwrap();
        assert_eq!(back, log);
    }
}
