//! Integration tests: the real `cru` binary on real files.

mod discovery;
mod index;
mod kiln;
mod record;
mod show;
mod validate;
