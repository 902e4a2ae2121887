//! Which sessions are runs of the same task, so that `codify A B` merges
//! only those (the rule is in `docs/codify.md`).
//!
//! A session's task is its initial prompt (frontmatter `prompt`), else its
//! title. Two tasks are the same when their words, lowercased and without
//! run counters (`run 2`, `(3)`, `-2`) and small words (`a`, `the`), are
//! the same set, or when the
//! smaller set shares at least 80% of its words with the other and both
//! have three words or more (`Add a config loader` and `Add the config
//! loader again`). A session with neither prompt nor title is a task of its
//! own.

use std::collections::BTreeSet;

use crucible_core::SessionLog;

/// Words that say which run, not which task, and words too common to tell
/// tasks apart.
const RUN_WORDS: &[&str] = &[
    "run", "again", "retry", "attempt", "take", "try", "rerun", "a", "an", "the", "to", "of", "in",
    "for", "and", "on", "with", "please",
];

/// The task `log` is a run of, as a set of words; `None` when it has no
/// prompt and no title.
pub fn task_words(log: &SessionLog) -> Option<BTreeSet<String>> {
    let text = log
        .frontmatter
        .extra
        .get_str("prompt")
        .or_else(|| log.title())?;
    let words: BTreeSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !RUN_WORDS.contains(&w.as_str()))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// Whether two task word sets name the same task.
pub fn same_task(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    if a == b {
        return true;
    }
    let shared = a.intersection(b).count();
    let smaller = a.len().min(b.len());
    smaller >= 3 && shared * 5 >= smaller * 4
}

/// `logs` in groups of runs of one task, each group in the given order,
/// groups in the order of their first session.
pub fn group_by_task(logs: &[&SessionLog]) -> Vec<Vec<usize>> {
    let tasks: Vec<Option<BTreeSet<String>>> = logs.iter().map(|l| task_words(l)).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let found = t.as_ref().and_then(|t| {
            groups.iter().position(|g| {
                g.iter()
                    .any(|&j| tasks[j].as_ref().is_some_and(|u| same_task(t, u)))
            })
        });
        match found {
            Some(g) => groups[g].push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> BTreeSet<String> {
        s.split_whitespace()
            .map(str::to_lowercase)
            .filter(|w| !RUN_WORDS.contains(&w.as_str()))
            .collect()
    }

    #[test]
    fn runs_of_a_task_and_other_tasks() {
        let a = words("add a config loader");
        assert!(same_task(&a, &words("add a config loader")));
        assert!(same_task(&a, &words("add the config loader")));
        assert!(!same_task(&a, &words("fix the flaky test")));
        assert!(!same_task(&words("fix ci"), &words("fix docs")));
    }
}
