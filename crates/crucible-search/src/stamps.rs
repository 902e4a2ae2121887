//! The stamps of many session files by path, in path order, kept as one
//! buffer of paths and one vector of entries.
//!
//! A search reads the stamps of every session file before it answers: at
//! 100,000 files a map with a `String` per path was 100,000 allocations
//! and a vector grown by doubling, and zeroing the pages of those was a
//! fifth of a search's time. This is the map's few operations over two
//! allocations sized up front.

use crate::manifest::Stamp;

/// Stamps by path relative to the sessions directory, in byte order of
/// the paths, each path once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamps {
    /// Every path, one after another.
    paths: String,
    /// Where each path starts in `paths` and its length, and its stamp.
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    start: usize,
    len: usize,
    stamp: Stamp,
}

impl Stamps {
    pub fn new() -> Self {
        Self::default()
    }

    /// Room for `files` entries whose paths take `path_bytes` in all.
    pub fn with_capacity(files: usize, path_bytes: usize) -> Self {
        Self {
            paths: String::with_capacity(path_bytes),
            entries: Vec::with_capacity(files),
        }
    }

    /// Adds `path` after every path already here. A path that does not
    /// sort after the last one makes the order whole again (sorted, the
    /// later of two equal paths kept): [`Stamps::push`] is for input that
    /// is in order, as a manifest or a listing sorted by bytes is, and
    /// stays correct when it is not.
    pub fn push(&mut self, path: &str, stamp: Stamp) {
        let in_order = self.entries.last().is_none_or(|last| {
            &self.paths.as_bytes()[last.start..last.start + last.len] < path.as_bytes()
        });
        let start = self.paths.len();
        self.paths.push_str(path);
        self.entries.push(Entry {
            start,
            len: path.len(),
            stamp,
        });
        if !in_order {
            self.reorder();
        }
    }

    /// Sorts the entries by path, the later of two equal paths kept.
    fn reorder(&mut self) {
        let paths = &self.paths;
        let text = |e: &Entry| &paths.as_bytes()[e.start..e.start + e.len];
        // Stable, so equal paths stay in the order they came in.
        self.entries.sort_by(|a, b| text(a).cmp(text(b)));
        let mut kept: Vec<Entry> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            match kept.last_mut() {
                Some(last) if text(last) == text(&e) => *last = e,
                _ => kept.push(e),
            }
        }
        self.entries = kept;
    }

    /// The bytes of every path together.
    pub fn path_bytes(&self) -> usize {
        self.paths.len()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn path_of(&self, e: &Entry) -> &str {
        &self.paths[e.start..e.start + e.len]
    }

    /// Every path and its stamp, in path order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Stamp)> + Clone {
        self.entries.iter().map(|e| (self.path_of(e), &e.stamp))
    }

    /// Every path, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + Clone {
        self.entries.iter().map(|e| self.path_of(e))
    }

    /// Every stamp, in path order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Stamp> {
        self.entries.iter().map(|e| &e.stamp)
    }

    pub fn get(&self, path: &str) -> Option<&Stamp> {
        self.entries
            .binary_search_by(|e| self.path_of(e).as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &self.entries[i].stamp)
    }

    pub fn contains_key(&self, path: &str) -> bool {
        self.get(path).is_some()
    }
}

impl<S: AsRef<str>> FromIterator<(S, Stamp)> for Stamps {
    fn from_iter<I: IntoIterator<Item = (S, Stamp)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        // The most there can be (a filtered iterator's least is none).
        let (least, most) = iter.size_hint();
        let mut stamps = Self::with_capacity(most.unwrap_or(least), 0);
        for (path, stamp) in iter {
            stamps.push(path.as_ref(), stamp);
        }
        stamps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn stamp(n: u64) -> Stamp {
        Stamp {
            size: n,
            ..Stamp::NOT_INDEXED
        }
    }

    proptest! {
        /// Whatever order the paths come in, and however often, the stamps
        /// answer as a map fed the same pairs would: the later stamp of a
        /// path wins, iteration is in byte order.
        #[test]
        fn stamps_answer_as_a_map_does(
            pairs in proptest::collection::vec(("[a-c]{0,3}|\\PC{0,3}", 0u64..5), 0..24),
            probe in "[a-c]{0,3}",
        ) {
            let map: BTreeMap<String, Stamp> =
                pairs.iter().map(|(p, n)| (p.clone(), stamp(*n))).collect();
            let stamps: Stamps = pairs.iter().map(|(p, n)| (p.as_str(), stamp(*n))).collect();
            let from_map: Vec<(&str, &Stamp)> = map.iter().map(|(p, s)| (p.as_str(), s)).collect();
            prop_assert_eq!(stamps.iter().collect::<Vec<_>>(), from_map);
            prop_assert_eq!(stamps.len(), map.len());
            prop_assert_eq!(stamps.get(&probe), map.get(&probe));
            for (p, s) in &map {
                prop_assert_eq!(stamps.get(p), Some(s));
            }
        }
    }
}
