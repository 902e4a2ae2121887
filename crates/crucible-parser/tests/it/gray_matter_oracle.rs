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
