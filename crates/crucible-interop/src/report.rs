//! What an import read and what it skipped, by record type: nothing is
//! dropped without a count, so the next change of an agent's format shows
//! up at once (as skipped records of a type cru does not know) instead of
//! as a quietly thinner session.

use std::collections::BTreeMap;

/// Records of one source, counted by their type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordTally {
    /// Records used, by type (`user`, `response_item/function_call`, ...).
    pub read: BTreeMap<String, u64>,
    /// Records not used, by type, with why (the first reason met).
    pub skipped: BTreeMap<String, Skipped>,
}

/// Records of one type that were not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub count: u64,
    pub reason: String,
}

impl RecordTally {
    /// Counts one record of `kind` as used.
    pub fn read(&mut self, kind: &str) {
        *self.read.entry(kind.to_owned()).or_default() += 1;
    }

    /// Counts one record of `kind` as not used, for `reason`.
    pub fn skip(&mut self, kind: &str, reason: &str) {
        self.skipped
            .entry(kind.to_owned())
            .or_insert_with(|| Skipped {
                count: 0,
                reason: reason.to_owned(),
            })
            .count += 1;
    }

    /// Counts one record of a type the importer does not know.
    pub fn unknown(&mut self, kind: &str) {
        self.skip(kind, "a record type cru does not know");
    }

    pub fn read_count(&self) -> u64 {
        self.read.values().sum()
    }

    pub fn skipped_count(&self) -> u64 {
        self.skipped.values().map(|s| s.count).sum()
    }

    /// Adds another source's counts (a subagent's file to its parent's).
    pub fn merge(&mut self, o: &Self) {
        for (k, n) in &o.read {
            *self.read.entry(k.clone()).or_default() += n;
        }
        for (k, s) in &o.skipped {
            let e = self.skipped.entry(k.clone()).or_insert_with(|| Skipped {
                count: 0,
                reason: s.reason.clone(),
            });
            e.count += s.count;
        }
    }
}

impl std::fmt::Display for RecordTally {
    /// `412 records read (assistant 200, user 190, ...); 3 skipped
    /// (queue-operation 3: a record type cru does not know)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |m: Vec<String>| m.join(", ");
        write!(f, "{} records read", self.read_count())?;
        if !self.read.is_empty() {
            let kinds = list(self.read.iter().map(|(k, n)| format!("{k} {n}")).collect());
            write!(f, " ({kinds})")?;
        }
        if !self.skipped.is_empty() {
            write!(
                f,
                "; {} skipped ({})",
                self.skipped_count(),
                list(
                    self.skipped
                        .iter()
                        .map(|(k, s)| format!("{k} {}: {}", s.count, s.reason))
                        .collect()
                )
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_names_what_it_skipped() {
        let mut t = RecordTally::default();
        t.read("user");
        t.read("user");
        t.unknown("queue-operation");
        assert_eq!(
            t.to_string(),
            "2 records read (user 2); 1 skipped (queue-operation 1: a record type cru does not know)"
        );
    }
}
