//! `parse(write(log)) == log`, stable writes, and CRLF/BOM input.

use std::path::Path;

use crucible_parser::{parse_session, write_session};
use proptest::prelude::*;

use crate::strategy::{any_extra_value, session_log};

fn parse(text: &str) -> crucible_core::SessionLog {
    parse_session(Path::new("gen.md"), text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}\n--- file ---\n{text}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn parse_inverts_write(log in session_log()) {
        let text = write_session(&log);
        let back = parse(&text);
        prop_assert_eq!(&back, &log, "file:\n{}", text);
        prop_assert_eq!(write_session(&back), text);
    }

    /// Unknown keys of every kind (tags, infinities, NaN, nested maps, text
    /// that looks like a number) come back equal, and written again, the same.
    #[test]
    fn unknown_keys_of_any_value_round_trip(
        top in proptest::collection::vec(("x_[a-z]{1,6}", any_extra_value()), 0..4),
        sub in proptest::collection::vec(("y_[a-z]{1,6}", any_extra_value()), 0..3),
    ) {
        let id = crucible_core::SessionId::new("s").unwrap();
        let mut fm = crucible_core::Frontmatter::new(id.clone(), "2025-01-01".parse().unwrap());
        fm.extra = top.into_iter().collect();
        fm.subagents.push(crucible_core::SubagentEntry {
            session: id,
            agent: None,
            model: None,
            tokens: None,
            extra: sub.into_iter().collect(),
        });
        let log = crucible_core::SessionLog::new(fm);
        let text = write_session(&log);
        let back = parse(&text);
        prop_assert_eq!(&back, &log, "file:\n{}", text);
        prop_assert_eq!(write_session(&back), text);
    }

    #[test]
    fn crlf_and_bom_read_the_same(log in session_log()) {
        let text = write_session(&log);
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        prop_assert_eq!(parse(&crlf), log);
    }
}
