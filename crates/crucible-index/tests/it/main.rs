//! Integration tests of crucible-index.

mod agreement;
mod freshness;
mod linear;
mod toon_compat;
