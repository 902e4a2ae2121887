//! A map kept as a sorted `Vec`: a rollup row holds a handful of agents and
//! thresholds, and a hundred thousand rows of `BTreeMap`s cost more memory
//! (to allocate, and for the kernel to zero) than the sums themselves.

/// Entries sorted by key, each key once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VecMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<K, V: Default> VecMap<K, V> {
    /// The value of the key `cmp` finds (it compares a key with the one
    /// sought), inserted with `make()` as key and a default value if there
    /// is none.
    pub fn get_or_insert_by(
        &mut self,
        cmp: impl Fn(&K) -> std::cmp::Ordering,
        make: impl FnOnce() -> K,
    ) -> &mut V {
        let i = match self.0.binary_search_by(|(k, _)| cmp(k)) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (make(), V::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// Removes the key `cmp` finds, if there.
    pub fn remove_by(&mut self, cmp: impl Fn(&K) -> std::cmp::Ordering) {
        if let Ok(i) = self.0.binary_search_by(|(k, _)| cmp(k)) {
            self.0.remove(i);
        }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// Adds an entry; false when its key is there already.
    pub fn insert(&mut self, key: K, value: V) -> bool {
        match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(_) => false,
            Err(i) => {
                self.0.insert(i, (key, value));
                true
            }
        }
    }
}

impl<K, V> VecMap<K, V> {
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}
