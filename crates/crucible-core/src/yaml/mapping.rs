//! An ordered YAML mapping.

use std::collections::HashMap;
use std::fmt;

use super::Value;

/// Key–value pairs in the order they were written. Keys are values, since
/// YAML allows `1: x` or `[a, b]: y` under a key cru does not know; lookup
/// by text ([`Mapping::get`]) finds the string keys.
#[derive(Clone, Default)]
pub struct Mapping {
    entries: Vec<(Value, Value)>,
    /// Where each text key is in `entries`: a frontmatter of many thousand
    /// keys is read in linear time (tests/it/linear.rs). Keys of other
    /// types are rare and found by a scan.
    by_text: HashMap<String, usize>,
}

impl Mapping {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under the string key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    /// The text under `key`, when it is a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// The value under any key, string or not.
    pub fn get_value(&self, key: &Value) -> Option<&Value> {
        self.position_of(key).map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`: in its place when the key is there (returning
    /// the old value), else at the end.
    pub fn insert(&mut self, key: impl Into<Value>, value: impl Into<Value>) -> Option<Value> {
        let (key, value) = (key.into(), value.into());
        if let Some(i) = self.position_of(&key) {
            return Some(std::mem::replace(&mut self.entries[i].1, value));
        }
        if let Value::String(text) = &key {
            self.by_text.insert(text.clone(), self.entries.len());
        }
        self.entries.push((key, value));
        None
    }

    /// Takes out the string key `key`, keeping the others in order.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.by_text.remove(key)?;
        let (_, value) = self.entries.remove(i);
        for at in self.by_text.values_mut() {
            if *at > i {
                *at -= 1;
            }
        }
        Some(value)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Value, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.by_text.get(key).copied()
    }

    fn position_of(&self, key: &Value) -> Option<usize> {
        match key {
            Value::String(text) => self.position(text),
            _ => self.entries.iter().position(|(k, _)| k == key),
        }
    }
}

/// `map["key"]`, which panics when the key is missing, as a `HashMap`'s
/// does: for tests and for keys known to be there; [`Mapping::get`] otherwise.
impl std::ops::Index<&str> for Mapping {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key)
            .unwrap_or_else(|| panic!("no key `{key}` in the mapping"))
    }
}

/// Shown as a map, `{key: value, ...}`.
impl fmt::Debug for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Equal as maps: the same keys with equal values, in any order (as YAML
/// sees two mappings).
impl PartialEq for Mapping {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|(k, v)| other.get_value(k).is_some_and(|o| o == v))
    }
}

impl<K: Into<Value>, V: Into<Value>> FromIterator<(K, V)> for Mapping {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = Self::new();
        m.extend(iter);
        m
    }
}

impl<K: Into<Value>, V: Into<Value>> Extend<(K, V)> for Mapping {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Mapping {
    type Item = (Value, Value);
    type IntoIter = std::vec::IntoIter<(Value, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Mapping {
    type Item = (&'a Value, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Value, Value)>,
        fn(&'a (Value, Value)) -> (&'a Value, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<'a> IntoIterator for &'a mut Mapping {
    type Item = (&'a Value, &'a mut Value);
    type IntoIter = std::iter::Map<
        std::slice::IterMut<'a, (Value, Value)>,
        fn(&'a mut (Value, Value)) -> (&'a Value, &'a mut Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_replaces_in_place() {
        let mut m = Mapping::new();
        assert!(m.is_empty());
        m.insert("b", 1_u64);
        m.insert("a", "x");
        assert_eq!(m.insert("b", true), Some(Value::from(1_u64)));
        let keys: Vec<_> = m.keys().filter_map(Value::as_str).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(m.get_str("a"), Some("x"));
        assert_eq!(m.get("b"), Some(&Value::Bool(true)));
        assert_eq!(m.get_str("b"), None);
        m.insert("c", Value::Null);
        assert_eq!(m.remove("b"), Some(Value::Bool(true)));
        let keys: Vec<_> = m.keys().filter_map(Value::as_str).collect();
        assert_eq!(keys, ["a", "c"], "remove keeps the others in order");
        assert_eq!(m.remove("b"), None);
    }

    #[test]
    fn keys_need_not_be_text() {
        let mut m = Mapping::new();
        m.insert(1_u64, "one");
        m.insert("1", "text one");
        assert_eq!(m.len(), 2);
        assert_eq!(m.get_str("1"), Some("text one"));
        assert_eq!(m.get_value(&Value::from(1_u64)), Some(&Value::from("one")));
    }

    #[test]
    fn equal_as_maps() {
        let a: Mapping = [("x", 1_u64), ("y", 2)].into_iter().collect();
        let b: Mapping = [("y", 2_u64), ("x", 1)].into_iter().collect();
        let c: Mapping = [("x", 1_u64)].into_iter().collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
