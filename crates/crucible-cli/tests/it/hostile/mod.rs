//! Adversarial tests: one per item of the trust issue, on real files on disk.

mod kills;
mod store;
