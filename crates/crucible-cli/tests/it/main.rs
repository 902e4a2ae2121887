//! Integration tests: the real `cru` binary on real files.

mod discovery;
mod kiln;
mod show;
mod validate;
