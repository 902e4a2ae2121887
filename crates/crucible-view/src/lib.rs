//! Sessions as pages people browse: one self-contained HTML page per
//! session (`cru session show --format html`), safe for whatever text a
//! session holds.
//!
//! Everything a session says is escaped ([`escape`]); its markdown prose
//! is written element by element, raw HTML shown as text, links kept only
//! to safe targets ([`markdown`]). A page carries its own style, follows
//! the system's light or dark setting, loads nothing and runs no script
//! ([`page`]). What a page needs from outside the file (the addresses of
//! other sessions' pages, embedded sessions, the cost from the price
//! table) comes from the caller; nothing here reads the disk.

pub mod escape;
pub mod markdown;
pub mod page;
pub mod site;
pub mod workflow;

pub use page::{Figures, Neighbours, SessionPage};
