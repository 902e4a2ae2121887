//! Integration tests of crucible-parser: real files, round-trip properties,
//! garbage that must not panic, and gray_matter as an oracle for frontmatter.

mod fixtures;
mod garbage;
mod gray_matter_oracle;
mod linear;
mod recorder;
mod roundtrip;
mod sample;
mod store;
mod strategy;
mod summary;
mod tiers;
mod times;
mod workflow;
