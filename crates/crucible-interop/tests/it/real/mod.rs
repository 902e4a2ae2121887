//! Every importer on real files that agents wrote (`fixtures/real/<agent>/`),
//! checked against facts counted from the source by small counters written
//! here, not by the importers' code.

mod codex;
mod connectonion;
