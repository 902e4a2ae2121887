//! The reading tiers on the importers' real files: each file under
//! fixtures/real and fixtures/foreign that an importer takes is imported,
//! written as cru writes it, and every tier of `crucible_parser::read` must
//! agree with the full reader on it. (The rule itself lives in the parser,
//! `read::check_agreement`; this half lives here because only the importer
//! crate can import, and the parser must not depend on it.)

use std::path::Path;

use crucible_interop::{detect, import};
use crucible_parser::read::{self, Peek};
use crucible_parser::write_session;

use crucible_testkit::files_under;

#[test]
fn imported_real_files_read_the_same_through_every_tier() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut imported = 0;
    for path in files_under(&fixtures.join("real"))
        .into_iter()
        .chain(files_under(&fixtures.join("foreign")))
    {
        let Some(format) = detect(&path) else {
            continue;
        };
        let Ok(found) = import(&path, format) else {
            continue;
        };
        let text = write_session(&found.log);
        if let Err(d) = read::check_agreement(text.as_bytes()) {
            panic!("{d}, on {} imported", path.display());
        }
        assert!(
            matches!(read::peek(text.as_bytes()), Peek::Session(_)),
            "what cru writes takes the peek: {}",
            path.display()
        );
        imported += 1;
    }
    assert!(imported >= 5, "only {imported} real files imported");
}
