//! The times of exported spans on sessions real agents wrote: every span
//! lies inside its parent, as trace viewers draw them (imported phases
//! have no start of their own, only their requests' times).

use std::collections::HashMap;

use opentelemetry_proto::tonic::trace::v1::Span;

use crate::kiln::{TestKiln, fixtures};
use crate::otlp_receiver::Receiver;

/// The spans that lie outside their parent, named with their session.
fn outside_their_parent(spans: &[Span]) -> Vec<String> {
    let by_id: HashMap<(&[u8], &[u8]), &Span> = spans
        .iter()
        .map(|s| ((&s.trace_id[..], &s.span_id[..]), s))
        .collect();
    spans
        .iter()
        .filter_map(|s| {
            let parent = by_id.get(&(&s.trace_id[..], &s.parent_span_id[..]))?;
            let inside = parent.start_time_unix_nano <= s.start_time_unix_nano
                && s.end_time_unix_nano <= parent.end_time_unix_nano;
            (!inside).then(|| {
                format!(
                    "{} in {} ({})",
                    s.name,
                    parent.name,
                    crate::otlp::attr_str(s, "session.id").unwrap_or("?")
                )
            })
        })
        .collect()
}

#[test]
fn imported_sessions_nest_every_span_inside_its_parent() {
    let kiln = TestKiln::empty();
    for source in [
        "real/claude-code/spotter",
        "real/claude-code/sniffly",
        "real/claude-code/claude-code-viewer",
        "real/codex/ai-sessions",
        "real/codex/localpush",
    ] {
        let src = fixtures().join(source);
        let import = kiln.run(&["session", "import", src.to_str().unwrap()]);
        assert!(
            import.code == 0 || import.code == 3,
            "{source}: {}",
            import.stderr
        );
    }
    let rx = Receiver::start();
    let out = crate::otlp::export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans = rx.spans();
    assert!(spans.len() > 100, "{} spans", spans.len());
    let outside = outside_their_parent(&spans);
    assert!(
        outside.is_empty(),
        "{} of {} spans: {outside:#?}",
        outside.len(),
        spans.len()
    );
}

#[test]
fn the_fixtures_nest_every_span_inside_its_parent() {
    let kiln = TestKiln::with_fixtures();
    let rx = Receiver::start();
    let out = crate::otlp::export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let outside = outside_their_parent(&rx.spans());
    assert!(outside.is_empty(), "{outside:#?}");
}
