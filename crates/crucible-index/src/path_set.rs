//! Sets of index paths for the per-row checks of a query.
//!
//! A query looks every row's path up in a few sets (rows the delta
//! replaces, known folders, live sessions) and hashes it once more to find
//! a path given twice. At 100,000 rows the default hasher (SipHash, built
//! to resist chosen keys) was a visible part of a query; these keys are
//! paths from our own index, and FNV-1a is a few times cheaper on them.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a, 64 bits.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

pub type FastBuild = BuildHasherDefault<Fnv>;
pub type PathSet<T> = HashSet<T, FastBuild>;
pub type PathMap<K, V> = HashMap<K, V, FastBuild>;
/// A set of [`path_hash`]es (a query's fresh rows: 100,000 of them, where
/// SipHash cost more than the set's use).
pub type PathHashes = HashSet<u64, FastBuild>;

/// The hash of one path, for finding a path given twice.
pub fn path_hash(path: &str) -> u64 {
    let mut h = Fnv::default();
    h.write(path.as_bytes());
    h.finish()
}

/// The folder part of a relative index path (`""` for the top).
pub fn parent_of(rel: &str) -> &str {
    memchr::memrchr(b'/', rel.as_bytes()).map_or("", |i| &rel[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_and_hashes() {
        assert_eq!(parent_of("a.md"), "");
        assert_eq!(parent_of("x/y/a.md"), "x/y");
        assert_eq!(path_hash("a"), 0xaf63_dc4c_8601_ec8c);
        let set: PathSet<&str> = ["a.md", "b/c.md"].into_iter().collect();
        assert!(set.contains("b/c.md") && !set.contains("c.md"));
    }
}
