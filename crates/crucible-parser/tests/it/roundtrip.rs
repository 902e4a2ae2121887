//! `parse(write(log)) == log`, stable writes, and CRLF/BOM input.

use std::path::Path;

use crucible_parser::{parse_session, write_session};
use proptest::prelude::*;

use crate::strategy::session_log;

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

    #[test]
    fn crlf_and_bom_read_the_same(log in session_log()) {
        let text = write_session(&log);
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        prop_assert_eq!(parse(&crlf), log);
    }
}
