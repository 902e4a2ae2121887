//! Domain types of Crucible workflow sessions, and the store that keeps them.
//!
//! A session is a markdown file: YAML frontmatter, one heading per phase,
//! tool-call lists and callouts. This crate holds the types that file stands
//! for ([`SessionLog`] and its parts), the [`SessionStore`] that finds, locks
//! and atomically writes session files in a sessions directory, and the
//! [`Config`] every command reads. It knows nothing of markdown syntax: the
//! store reads and writes through a [`SessionCodec`] that `crucible-parser`
//! implements, so the arrows between crates point one way.
//!
//! Nothing here prints or reads the environment; callers pass values in and
//! get values or typed errors back.

pub mod calendar;
pub mod config;
pub mod figures;
pub mod project;
pub mod recorder;
pub mod resume;
pub mod session;
pub mod store;
pub mod workflow;
pub mod yaml;

pub use config::{
    AgentBackendKind, AgentConfig, Config, ConfigError, ConfigLayer, SaveMode, SessionConfig,
};
pub use recorder::{RecordError, Recorder, StartOptions, pause_if_idle};
pub use resume::ResumeContext;
pub use session::*;
pub use store::{
    CodecError, SessionCodec, SessionFile, SessionStore, StoreError, StoreObserver,
    discovery::{DiscoveryInputs, SessionsDirSource, discover_sessions_dir, find_kiln},
    lock::DirLock,
};
