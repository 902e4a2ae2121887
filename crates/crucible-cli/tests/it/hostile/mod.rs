//! Adversarial tests: one per item of the trust issue, on real files on disk.

mod bounded;
pub(crate) mod fs;
mod import_walk;
mod kills;
mod secrets;
mod store;

/// Asserts that stderr names each entry as skipped, with its reason (`""`
/// for any reason).
pub(crate) fn assert_skipped(stderr: &str, skipped: &[(&str, &str)]) {
    for (name, why) in skipped {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(name) && l.contains("skipped") && l.contains(why)),
            "{name} not named as skipped ({why}): {stderr}"
        );
    }
}
