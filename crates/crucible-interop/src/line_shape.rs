//! The shape of one JSON line, as far as format detection looks at it:
//! its keys down to three levels and its top-level strings, nothing else
//! kept. Detection judges the first lines of every file before an import
//! can start; building a whole `serde_json::Value` for each line (every
//! string copied, every object an ordered map with hashed keys) was a
//! tenth of an import's CPU.
//!
//! The line is still parsed whole, by the same serde_json parser that
//! builds a `Value` (the same checks of strings, numbers, nesting depth
//! and trailing bytes), so a line is a shape exactly when it would have
//! been a `Value`; the recognizers read both through [`Fields`].

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// What a recognizer asks of a line, answered the same by a [`Shape`] and
/// by the `Value` of the same line.
pub(crate) trait Fields {
    /// The string at `key` of the top-level object.
    fn str_at(&self, key: &str) -> Option<&str>;
    /// Whether the top-level object has `key`.
    fn has(&self, key: &str) -> bool;
    /// Whether the value at `key` of the top-level object is an object.
    fn object_at(&self, key: &str) -> bool;
    /// How many keys the top-level object has (0 for a line that is no
    /// object).
    fn key_count(&self) -> usize;
    /// Whether objects nest along `path` (at most three keys), the last
    /// key present: `/message/usage/input_tokens`.
    fn has_path(&self, path: &[&str]) -> bool;
}

impl Fields for Value {
    fn str_at(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    fn has(&self, key: &str) -> bool {
        self.as_object().is_some_and(|o| o.contains_key(key))
    }

    fn object_at(&self, key: &str) -> bool {
        self.get(key).is_some_and(Value::is_object)
    }

    fn key_count(&self) -> usize {
        self.as_object().map_or(0, serde_json::Map::len)
    }

    fn has_path(&self, path: &[&str]) -> bool {
        let mut at = self;
        for key in path {
            match at.as_object().and_then(|o| o.get(*key)) {
                Some(v) => at = v,
                None => return false,
            }
        }
        true
    }
}

/// How deep [`Shape`] keeps keys: the top level and two below it.
const KEY_LEVELS: u8 = 3;

/// An object's keys (down to [`KEY_LEVELS`]) and its top-level strings.
#[derive(Debug, Default)]
pub(crate) struct Shape<'a> {
    /// Each key once, its last value as a `Value` map keeps it.
    fields: Vec<(Cow<'a, str>, Field<'a>)>,
}

#[derive(Debug)]
enum Field<'a> {
    Str(Cow<'a, str>),
    Object(Shape<'a>),
    Other,
}

impl<'a> Shape<'a> {
    /// The shape of `line` when it is a JSON object, `None` when it is not
    /// one or does not parse.
    pub(crate) fn of(line: &'a [u8]) -> Option<Self> {
        let mut de = serde_json::Deserializer::from_slice(line);
        let field = FieldSeed {
            levels: KEY_LEVELS,
            strings: false,
        }
        .deserialize(&mut de)
        .ok()?;
        de.end().ok()?;
        match field {
            Field::Object(shape) => Some(shape),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn insert(&mut self, key: Cow<'a, str>, value: Field<'a>) {
        match self.fields.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.fields.push((key, value)),
        }
    }
}

impl Fields for Shape<'_> {
    fn str_at(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn object_at(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Field::Object(_)))
    }

    fn key_count(&self) -> usize {
        self.fields.len()
    }

    fn has_path(&self, path: &[&str]) -> bool {
        assert!(
            path.len() <= usize::from(KEY_LEVELS),
            "kept to {KEY_LEVELS} levels"
        );
        let mut at = self;
        for (i, key) in path.iter().enumerate() {
            match at.get(key) {
                Some(_) if i + 1 == path.len() => return true,
                Some(Field::Object(inner)) => at = inner,
                _ => return false,
            }
        }
        true
    }
}

/// Reads one value: an object's keys while `levels` lasts, its strings
/// when `strings`, and below that only checks it, as a `Value` would be.
/// (Not `IgnoredAny`: serde_json skips that without the checks a `Value`
/// gets, nesting depth and numbers in range, and a line must be a shape
/// exactly when it is a `Value`.)
#[derive(Clone, Copy)]
struct FieldSeed {
    levels: u8,
    strings: bool,
}

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field<'de>, D::Error> {
        // `deserialize_any`, as a `Value` is read: the same parse of each
        // number and string, the same limit on nesting.
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field<'de>, E> {
        Ok(Field::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Field<'de>, E> {
        Ok(Field::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Field<'de>, E> {
        Ok(Field::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Field<'de>, E> {
        Ok(Field::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Field<'de>, E> {
        Ok(Field::Other)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Field<'de>, E> {
        Ok(if self.strings {
            Field::Str(Cow::Borrowed(s))
        } else {
            Field::Other
        })
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Field<'de>, E> {
        Ok(if self.strings {
            Field::Str(Cow::Owned(s.to_owned()))
        } else {
            Field::Other
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field<'de>, A::Error> {
        let below = FieldSeed {
            levels: 0,
            strings: false,
        };
        while seq.next_element_seed(below)?.is_some() {}
        Ok(Field::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field<'de>, A::Error> {
        let below = FieldSeed {
            levels: self.levels.saturating_sub(1),
            // Strings only at the top level: `type` and the like.
            strings: self.levels == KEY_LEVELS,
        };
        if self.levels == 0 {
            while map.next_key_seed(FieldSeed { ..below })?.is_some() {
                map.next_value_seed(below)?;
            }
            return Ok(Field::Other);
        }
        let mut shape = Shape::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value_seed(below)?;
            shape.insert(key, value);
        }
        Ok(Field::Object(shape))
    }
}

/// A kept key, borrowed from the line unless it holds escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers from a line's shape and its `Value`, and the same
    /// lines refused.
    fn agree(line: &str) {
        let value = serde_json::from_str::<Value>(line)
            .ok()
            .filter(Value::is_object);
        let shape = Shape::of(line.as_bytes());
        assert_eq!(value.is_some(), shape.is_some(), "{line}");
        let (Some(v), Some(s)) = (value, shape) else {
            return;
        };
        assert_eq!(v.key_count(), s.key_count(), "{line}");
        for key in [
            "type",
            "message",
            "payload",
            "sessionId",
            "id",
            "k",
            "é",
            "a",
        ] {
            assert_eq!(v.str_at(key), s.str_at(key), "{line} {key}");
            assert_eq!(v.has(key), s.has(key), "{line} {key}");
            assert_eq!(v.object_at(key), s.object_at(key), "{line} {key}");
        }
        for path in [
            &["message", "usage", "input_tokens"][..],
            &["message", "usage"],
            &["message"],
            &["a", "b"],
        ] {
            assert_eq!(v.has_path(path), s.has_path(path), "{line} {path:?}");
        }
    }

    #[test]
    fn a_shape_answers_as_the_value_of_the_same_line() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let deep_line = format!("{{\"a\":{deep}}}");
        let lines = [
            r#"{"type":"user","message":{"role":"user","usage":{"input_tokens":3}},"sessionId":"s"}"#,
            r#"{"type":"assistant","message":[{"usage":{"input_tokens":1}}]}"#,
            r#"{"type":"a\"b","type":"second wins","k":"\u00e9"}"#,
            r#"{"\u0074ype":"escaped key","\u00e9":1}"#,
            r#"{"message":{"usage":null},"payload":{},"id":null}"#,
            r#"{"a":{"b":{"c":{"d":{"e":[1,2,{"f":"g"}]}}}}}"#,
            r#"{"a":1e400}"#,
            r#"{"a":-0.5e-3,"b":18446744073709551616,"c":[true,false,null]}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\ud800\udc00"}"#,
            r#"{"a":1} trailing"#,
            r#"{"a":1}   "#,
            r#"{"a":}"#,
            r#"{"a":"unterminated}"#,
            "[1,2]",
            r#""a string""#,
            "{}",
            &deep_line,
        ];
        for line in lines {
            agree(line);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_json_object_reads_the_same_as_a_value(v in value(4)) {
            let line = serde_json::json!({"type": "t", "message": v.clone(), "a": v}).to_string();
            agree(&line);
        }
    }

    fn value(depth: u32) -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z\"\\\\\u{1}é]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(depth, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![
                            Just("usage".to_owned()),
                            Just("input_tokens".to_owned()),
                            "[a-z]{1,3}",
                        ],
                        inner,
                    ),
                    0..4
                )
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }
}
