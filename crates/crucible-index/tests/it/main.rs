//! Integration tests of crucible-index.

mod agreement;
mod freshness;
mod toon_compat;
