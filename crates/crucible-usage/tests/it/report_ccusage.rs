//! Placeholder while the peer comparison is written.
