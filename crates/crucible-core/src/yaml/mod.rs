//! YAML values of our own: what the frontmatter keys cru does not know hold
//! ([`crate::Frontmatter::extra`]) and a workflow's frontmatter.
//!
//! A YAML library's types stay out of this crate's API, so the library can
//! change without every crate that reads a session changing with it.
//! `crucible-parser` reads and writes these (it owns the format); the
//! tree here is plain data with a small API to look inside.

mod mapping;
mod number;
mod serde_impl;

pub use mapping::Mapping;
pub use number::Number;

/// A YAML value.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Sequence(Vec<Value>),
    Mapping(Mapping),
    /// A value with a tag (`!thing value`).
    Tagged(Box<Tagged>),
}

/// A tagged value: `tag` as written, with its `!` (`!thing`).
#[derive(Debug, Clone, PartialEq)]
pub struct Tagged {
    pub tag: String,
    pub value: Value,
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Self::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    pub fn as_sequence(&self) -> Option<&[Value]> {
        match self {
            Self::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_mapping(&self) -> Option<&Mapping> {
        match self {
            Self::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_mapping_mut(&mut self) -> Option<&mut Mapping> {
        match self {
            Self::Mapping(m) => Some(m),
            _ => None,
        }
    }

    /// The value under the string key `key`, when this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_mapping().and_then(|m| m.get(key))
    }

    /// Every string inside, tags and nesting seen through, for changing in
    /// place (the redactor's way in).
    pub fn for_each_str_mut(&mut self, f: &mut impl FnMut(&mut String)) {
        match self {
            Self::String(s) => f(s),
            Self::Sequence(items) => items.iter_mut().for_each(|i| i.for_each_str_mut(f)),
            Self::Mapping(m) => m.values_mut().for_each(|v| v.for_each_str_mut(f)),
            Self::Tagged(t) => t.value.for_each_str_mut(f),
            Self::Null | Self::Bool(_) | Self::Number(_) => {}
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Self::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Self::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Self::Number(n.into())
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Self::Number(n.into())
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Self::Number(n)
    }
}

impl From<Mapping> for Value {
    fn from(m: Mapping) -> Self {
        Self::Mapping(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Self::Sequence(items)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Self::Null, Into::into)
    }
}

impl<T: Into<Value>> FromIterator<T> for Value {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::Sequence(iter.into_iter().map(Into::into).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_inside() {
        let mut inner = Mapping::new();
        inner.insert("input", 12_u64);
        let mut top = Mapping::new();
        top.insert("usage", inner);
        top.insert("tags", vec![Value::from("a"), Value::from(2.5)]);
        let v = Value::from(top);
        assert_eq!(
            v.get("usage")
                .and_then(|u| u.get("input"))
                .and_then(Value::as_u64),
            Some(12)
        );
        assert_eq!(
            v.get("tags").and_then(Value::as_sequence).map(<[_]>::len),
            Some(2)
        );
        assert_eq!(v.get("nothing"), None);
        assert_eq!(Value::from(Some("x")), Value::from("x"));
        assert!(Value::from(None::<bool>).is_null());
        assert_eq!(Value::from(-1_i64).as_f64(), Some(-1.0));
        assert_eq!(
            Value::from("1").as_u64(),
            None,
            "text that looks like a number stays text"
        );
    }

    #[test]
    fn reaches_every_string() {
        let mut v: Value = vec![
            Value::from("a"),
            Value::Tagged(Box::new(Tagged {
                tag: "!t".into(),
                value: Value::from([("k", "b")].into_iter().collect::<Mapping>()),
            })),
            Value::from(3_u64),
        ]
        .into();
        let mut seen = Vec::new();
        v.for_each_str_mut(&mut |s| {
            seen.push(s.clone());
            s.make_ascii_uppercase();
        });
        assert_eq!(seen, ["a", "b"]);
        assert_eq!(v.as_sequence().unwrap()[0], Value::from("A"));
    }
}
