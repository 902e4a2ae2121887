//! Integration tests of crucible-index.

mod agreement;
mod freshness;
mod linear;
mod rollup_views;
mod toon_compat;
