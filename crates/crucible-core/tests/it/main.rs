//! Integration tests of crucible-core on real files.

mod linear;
