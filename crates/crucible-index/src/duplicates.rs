//! Session ids declared by more than one file.
//!
//! An id names one session: `show`, `resume` and the rest refuse an id that
//! two files declare. The listings still show every file (each is a session
//! a person may want to see), and name the files that share an id so that
//! one can be renamed.

use std::hash::Hasher;

use crate::path_set::Fnv;

/// Gathers `(id, path)` pairs, on any number of threads ([`Self::merge`]).
/// Ids are compared without regard to case, as they are when resolved.
///
/// Every session of a query passes here (100,000 at a time): a pair is
/// kept as a hash of the id in lower case and two ranges of one buffer,
/// not as a map entry of three `String`s; ids that share a hash are
/// compared in full at the end.
#[derive(Debug, Default)]
pub struct DuplicateIds {
    text: String,
    pairs: Vec<Pair>,
}

/// One `(id, path)`: the hash of the id in lower case, and where the id
/// and the path are in the buffer.
#[derive(Debug, Clone, Copy)]
struct Pair {
    hash: u64,
    id: (usize, usize),
    path: (usize, usize),
}

/// One id and the files (relative paths, in order) that declare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub id: String,
    pub paths: Vec<String>,
}

fn lower_hash(id: &str) -> u64 {
    let mut h = Fnv::default();
    if id.is_ascii() {
        for b in id.bytes() {
            h.write_u8(b.to_ascii_lowercase());
        }
    } else {
        // `str::to_lowercase` itself (a final sigma is not a sigma).
        h.write(id.to_lowercase().as_bytes());
    }
    h.finish()
}

impl DuplicateIds {
    pub fn add(&mut self, id: &str, path: &str) {
        let start = self.text.len();
        self.text.push_str(id);
        self.text.push_str(path);
        let mid = start + id.len();
        self.pairs.push(Pair {
            hash: lower_hash(id),
            id: (start, mid),
            path: (mid, self.text.len()),
        });
    }

    pub fn merge(&mut self, other: Self) {
        let shift = self.text.len();
        self.text.push_str(&other.text);
        self.pairs.extend(other.pairs.into_iter().map(|p| Pair {
            hash: p.hash,
            id: (p.id.0 + shift, p.id.1 + shift),
            path: (p.path.0 + shift, p.path.1 + shift),
        }));
    }

    /// The ids declared by two files or more, in id order.
    pub fn finish(mut self) -> Vec<Duplicate> {
        // Stable: of the files of one id, the first added names it.
        self.pairs.sort_by_key(|p| p.hash);
        let text = &self.text;
        let mut by_id: std::collections::BTreeMap<String, (String, Vec<String>)> =
            std::collections::BTreeMap::new();
        for group in self.pairs.chunk_by(|a, b| a.hash == b.hash) {
            if group.len() < 2 {
                continue;
            }
            for p in group {
                let id = &text[p.id.0..p.id.1];
                by_id
                    .entry(id.to_lowercase())
                    .or_insert_with(|| (id.to_owned(), Vec::new()))
                    .1
                    .push(text[p.path.0..p.path.1].to_owned());
            }
        }
        by_id
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

    #[test]
    fn ids_are_compared_as_str_to_lowercase_compares_them() {
        let mut a = DuplicateIds::default();
        // A final sigma lowers to `ς`, as the id `aς` is written.
        a.add("AΣ", "1.md");
        a.add("aς", "2.md");
        a.add("aσ", "3.md");
        a.add("b", "4.md");
        assert_eq!(
            a.finish(),
            vec![Duplicate {
                id: "AΣ".into(),
                paths: vec!["1.md".into(), "2.md".into()],
            }]
        );
    }
}
