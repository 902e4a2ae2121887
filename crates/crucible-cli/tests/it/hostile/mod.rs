//! Adversarial tests: one per item of the trust issue, on real files on disk.

mod bounded;
pub(crate) mod fs;
mod import_walk;
mod kills;
mod secrets;
mod store;
