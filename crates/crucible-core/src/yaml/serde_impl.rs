//! Serde for [`Value`], shaped as a YAML library shapes its own: numbers as
//! numbers, mappings as maps, a tagged value as a one-entry map from its
//! tag. `cru show --json` prints frontmatter extras this way.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Mapping, Number, Value};

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(n) = self.as_u64() {
            s.serialize_u64(n)
        } else if let Some(n) = self.as_i64() {
            s.serialize_i64(n)
        } else {
            s.serialize_f64(self.as_f64().unwrap_or(f64::NAN))
        }
    }
}

impl Serialize for Mapping {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(t) => s.serialize_str(t),
            Value::Sequence(items) => s.collect_seq(items),
            Value::Mapping(m) => m.serialize(s),
            Value::Tagged(t) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry(&TagKey(&t.tag), &t.value)?;
                map.end()
            }
        }
    }
}

/// A tag as a map key, written through `collect_str` as `!` and then the
/// name in two writes: that is how a YAML serializer (serde_yaml's
/// convention) tells a tagged value, a one-entry map keyed so, from a
/// mapping whose key is the text `'!thing'`. Other serializers see `!thing`.
struct TagKey<'a>(&'a str);

impl fmt::Display for TagKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.0.strip_prefix('!').filter(|n| !n.is_empty());
        f.write_str("!")?;
        f.write_str(name.unwrap_or(self.0))
    }
}

impl Serialize for TagKey<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Mapping::new();
        while let Some((k, v)) = map.next_entry::<Value, Value>()? {
            out.insert(k, v);
        }
        Ok(Value::Mapping(out))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Mapping {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Mapping(m) => Ok(m),
            Value::Null => Ok(Mapping::new()),
            _ => Err(de::Error::custom("expected a mapping")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let mut m = Mapping::new();
        m.insert("n", 3_u64);
        m.insert("f", 1.5);
        m.insert("neg", -2_i64);
        m.insert("s", "1");
        m.insert("none", Value::Null);
        m.insert("list", vec![Value::from(true)]);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(
            json,
            r#"{"n":3,"f":1.5,"neg":-2,"s":"1","none":null,"list":[true]}"#
        );
        let back: Mapping = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
    }
}
