//! Between serde_yaml's values and core's own ([`crucible_core::yaml`]).
//!
//! The parser reads YAML with serde_yaml and hands the rest of cru core's
//! values; crates that read other YAML (ConnectOnion's files) convert here
//! too, so there is one mapping between the two trees. Writing needs no
//! conversion: core's values serialize as serde_yaml's own do (numbers as
//! numbers, a tagged value as a one-entry map from its `!tag`), so
//! [`to_string`] gives the bytes serde_yaml gave before core had its own type.

use crucible_core::yaml::{Mapping, Number, Tagged, Value};

/// serde_yaml's value as ours.
pub fn from_serde_yaml(v: serde_yaml::Value) -> Value {
    use serde_yaml::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => Value::Number(number_from_serde_yaml(&n)),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Sequence(items.into_iter().map(from_serde_yaml).collect()),
        Y::Mapping(m) => Value::Mapping(mapping_from_serde_yaml(m)),
        Y::Tagged(t) => Value::Tagged(Box::new(Tagged {
            tag: t.tag.to_string(),
            value: from_serde_yaml(t.value),
        })),
    }
}

/// serde_yaml's mapping as ours, in the same order.
pub fn mapping_from_serde_yaml(m: serde_yaml::Mapping) -> Mapping {
    m.into_iter()
        .map(|(k, v)| (from_serde_yaml(k), from_serde_yaml(v)))
        .collect()
}

fn number_from_serde_yaml(n: &serde_yaml::Number) -> Number {
    if let Some(u) = n.as_u64() {
        Number::from(u)
    } else if let Some(i) = n.as_i64() {
        Number::from(i)
    } else {
        Number::from(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Our value as serde_yaml's, for code that goes on in serde_yaml.
pub fn to_serde_yaml(v: &Value) -> serde_yaml::Value {
    use serde_yaml::Value as Y;
    match v {
        Value::Null => Y::Null,
        Value::Bool(b) => Y::Bool(*b),
        Value::Number(n) => Y::Number(number_to_serde_yaml(n)),
        Value::String(s) => Y::String(s.clone()),
        Value::Sequence(items) => Y::Sequence(items.iter().map(to_serde_yaml).collect()),
        Value::Mapping(m) => Y::Mapping(mapping_to_serde_yaml(m)),
        Value::Tagged(t) => Y::Tagged(Box::new(serde_yaml::value::TaggedValue {
            tag: serde_yaml::value::Tag::new(t.tag.clone()),
            value: to_serde_yaml(&t.value),
        })),
    }
}

/// Our mapping as serde_yaml's, in the same order.
pub fn mapping_to_serde_yaml(m: &Mapping) -> serde_yaml::Mapping {
    m.iter()
        .map(|(k, v)| (to_serde_yaml(k), to_serde_yaml(v)))
        .collect()
}

fn number_to_serde_yaml(n: &Number) -> serde_yaml::Number {
    if let Some(u) = n.as_u64() {
        u.into()
    } else if let Some(i) = n.as_i64() {
        i.into()
    } else {
        n.as_f64().unwrap_or(f64::NAN).into()
    }
}

/// YAML text for `v`, as serde_yaml writes it (block style, quoted only
/// where a reader would take the text for something else).
pub fn to_string(v: &(impl serde::Serialize + ?Sized)) -> String {
    // Serializing plain data to a String has no error case for these trees
    // (every key is a value serde_yaml can write).
    serde_yaml::to_string(v).unwrap_or_default()
}

/// Reads YAML text into our value.
///
/// # Errors
/// serde_yaml's error, with its line and column.
pub fn from_str(text: &str) -> Result<Value, serde_yaml::Error> {
    serde_yaml::from_str(text).map(from_serde_yaml)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every YAML form a frontmatter extra can hold: each read gives the
    /// value serde_yaml reads, and writing ours gives serde_yaml's bytes.
    const DOCS: &[&str] = &[
        "a: 1.0\n",
        "a: 0x1F\n",
        "a: 0o17\n",
        "a: 1e3\n",
        "a: -1.5e-7\n",
        "a: .inf\n",
        "a: -.inf\n",
        "a: .nan\n",
        "a: 18446744073709551615\n",
        "a: -9223372036854775808\n",
        "a: '1.0'\n",
        "a: '0x1F'\n",
        "a: 'true'\n",
        "a: '~'\n",
        "a: null\n",
        "a: ~\n",
        "a: yes\n",
        "a: true\n",
        "a: 007\n",
        "a: !thing 3\n",
        "a: !thing {x: [1, 2]}\n",
        "a: !!str 12\n",
        "a:\n  b:\n    c: [x, 'y', 3, null]\n  d: |\n    two\n    lines\n",
        "a: {1: one, true: yes, null: nothing, [p, q]: list}\n",
        "a: \"tab\\there\"\n",
        "a: ''\n",
        "a: [[]]\n",
    ];

    #[test]
    fn reads_as_serde_yaml_reads_and_writes_the_same_bytes() {
        for doc in DOCS {
            let theirs: serde_yaml::Value = serde_yaml::from_str(doc).unwrap();
            let ours = from_str(doc).unwrap();
            assert_eq!(to_serde_yaml(&ours), theirs, "{doc}");
            let written = to_string(&ours);
            assert_eq!(written, serde_yaml::to_string(&theirs).unwrap(), "{doc}");
            assert_eq!(
                from_str(&written).unwrap(),
                ours,
                "{doc} written as {written}"
            );
        }
    }

    #[test]
    fn numbers_keep_their_kind() {
        let v = from_str("i: 0x1F\nf: 1e3\none: 1.0\ns: '1.0'\n").unwrap();
        assert_eq!(v.get("i").and_then(Value::as_u64), Some(31));
        let f = v.get("f").and_then(Value::as_number).unwrap();
        assert!(f.is_float());
        assert_eq!(f.as_text(), "1000.0");
        assert_eq!(
            v.get("one").and_then(Value::as_number).unwrap().as_text(),
            "1.0"
        );
        assert_eq!(v.get("s").and_then(Value::as_str), Some("1.0"));
        assert_eq!(to_string(&v), "i: 31\nf: 1000.0\none: 1.0\ns: '1.0'\n");
    }

    #[test]
    fn tags_and_non_text_keys_survive() {
        let v = from_str("t: !thing {x: 1}\nm: {2: two}\n").unwrap();
        let Some(Value::Tagged(t)) = v.get("t") else {
            panic!("{v:?}");
        };
        assert_eq!(t.tag, "!thing");
        assert_eq!(t.value.get("x").and_then(Value::as_u64), Some(1));
        let m = v.get("m").and_then(Value::as_mapping).unwrap();
        assert_eq!(
            m.get_value(&Value::from(2_u64)).and_then(Value::as_str),
            Some("two")
        );
        assert_eq!(to_string(&v), "t: !thing\n  x: 1\nm:\n  2: two\n");
    }
}
