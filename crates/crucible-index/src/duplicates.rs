//! Session ids declared by more than one file.
//!
//! An id names one session: `show`, `resume` and the rest refuse an id that
//! two files declare. The listings still show every file (each is a session
//! a person may want to see), and name the files that share an id so that
//! one can be renamed.

use std::collections::BTreeMap;

/// Gathers `(id, path)` pairs, on any number of threads ([`Self::merge`]).
/// Ids are compared without regard to case, as they are when resolved.
#[derive(Debug, Default)]
pub struct DuplicateIds {
    by_id: BTreeMap<String, (String, Vec<String>)>,
}

/// One id and the files (relative paths, in order) that declare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub id: String,
    pub paths: Vec<String>,
}

impl DuplicateIds {
    pub fn add(&mut self, id: &str, path: &str) {
        self.by_id
            .entry(id.to_lowercase())
            .or_insert_with(|| (id.to_owned(), Vec::new()))
            .1
            .push(path.to_owned());
    }

    pub fn merge(&mut self, other: Self) {
        for (key, (id, paths)) in other.by_id {
            self.by_id
                .entry(key)
                .or_insert_with(|| (id, Vec::new()))
                .1
                .extend(paths);
        }
    }

    /// The ids declared by two files or more, in id order.
    pub fn finish(self) -> Vec<Duplicate> {
        self.by_id
            .into_values()
            .filter(|(_, paths)| paths.len() > 1)
            .map(|(id, mut paths)| {
                paths.sort();
                Duplicate { id, paths }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_of_two_files_in_any_case_is_a_duplicate() {
        let mut a = DuplicateIds::default();
        a.add("2025-01-01-x", "b.md");
        a.add("2025-01-01-y", "y.md");
        let mut b = DuplicateIds::default();
        b.add("2025-01-01-X", "a.md");
        a.merge(b);
        assert_eq!(
            a.finish(),
            vec![Duplicate {
                id: "2025-01-01-x".into(),
                paths: vec!["a.md".into(), "b.md".into()],
            }]
        );
    }
}
