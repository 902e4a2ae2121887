//! Times a session's frontmatter gives that cannot both be right.

use std::path::Path;

use crucible_parser::check_session;

#[test]
fn an_ended_before_started_is_a_warning_on_its_line() {
    let text = "---\ntype: session\nsession_id: 2026-01-01-times\nstarted: 2026-01-01T10:00:00Z\n\
                ended: 2026-01-01T09:00:00Z\nstatus: completed\n---\n\n## A\n";
    let checked = check_session(Path::new("t.md"), text.as_bytes());
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    let w: Vec<String> = checked.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("t.md:5: `ended`"), "{w:?}");
    let fine = text.replace("09:00", "11:00");
    assert!(
        check_session(Path::new("t.md"), fine.as_bytes())
            .warnings
            .is_empty()
    );
}
