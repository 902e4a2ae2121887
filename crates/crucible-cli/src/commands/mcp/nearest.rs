//! The ids a model may have meant by one that names no session.

/// The `n` ids nearest to `query`: those it is a prefix of, or that share
/// the longest prefix with it, then by edit distance (case ignored).
pub fn nearest<'a>(query: &str, ids: impl Iterator<Item = &'a str>, n: usize) -> Vec<String> {
    let want = query.to_lowercase();
    let mut scored: Vec<(usize, usize, &str)> = ids
        .map(|id| {
            let lower = id.to_lowercase();
            let shared = want
                .chars()
                .zip(lower.chars())
                .take_while(|(a, b)| a == b)
                .count();
            (usize::MAX - shared, distance(&want, &lower), id)
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by_key(|s| s.2);
    scored.into_iter().take(n).map(|s| s.2.to_owned()).collect()
}

/// Levenshtein distance over chars, one row at a time.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_id_it_meant_first() {
        let ids = [
            "2025-12-10-fix",
            "2025-12-11-feature",
            "2026-01-02-refactor",
        ];
        assert_eq!(
            nearest("2025-12-10-fxi", ids.into_iter(), 2),
            ["2025-12-10-fix", "2025-12-11-feature"]
        );
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
