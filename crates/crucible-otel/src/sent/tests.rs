use super::*;
use crate::mapping::PhaseSpans;

const URL: &str = "http://x/v1/traces";

fn span(name: &str) -> Span {
    Span {
        name: name.to_owned(),
        ..Span::default()
    }
}

/// A trace of `phases` phases (named by their text), the first `closed`
/// of them closed.
fn trace(root: &str, phases: &[&str], closed: usize, over: bool) -> Trace {
    Trace {
        root: vec![span(root)],
        root_settled: over,
        phases: phases
            .iter()
            .enumerate()
            .map(|(i, p)| PhaseSpans {
                spans: vec![span(p), span(&format!("{p}/tool"))],
                closed: over || i < closed,
            })
            .collect(),
    }
}

fn hashes(t: &Trace) -> PartHashes {
    PartHashes::of(t, &Resource::default(), "1")
}

#[test]
fn a_growing_session_sends_each_part_once_as_it_settles() {
    let mut record = SentRecord::default();
    let mut step = |t: Trace| {
        let p = record.plan(URL, "s", &hashes(&t), false);
        if !p.is_empty() {
            record.mark_sent(URL, "s", p.entry.clone());
        }
        (p.root, p.phases, p.changed)
    };
    // One open phase: nothing is settled.
    assert_eq!(step(trace("r", &["a"], 0, false)), (false, 0..0, false));
    // A second phase closes the first.
    assert_eq!(
        step(trace("r", &["a", "b"], 1, false)),
        (false, 0..1, false)
    );
    assert_eq!(
        step(trace("r", &["a", "b"], 1, false)),
        (false, 1..1, false)
    );
    // The session ends: the last phase and the root.
    assert_eq!(step(trace("r2", &["a", "b"], 2, true)), (true, 1..2, false));
    assert_eq!(
        step(trace("r2", &["a", "b"], 2, true)),
        (false, 2..2, false)
    );
    // A phase sent before edited: everything settled again, flagged.
    assert_eq!(step(trace("r2", &["A", "b"], 2, true)), (true, 0..2, true));
    // An inserted phase renumbers the later ones: a change too.
    assert_eq!(
        step(trace("r2", &["A", "new", "b"], 3, true)),
        (true, 0..3, true)
    );
}

#[test]
fn again_sends_every_settled_part_and_a_legacy_entry_means_resend() {
    let t = trace("r", &["a", "b"], 1, false);
    let h = hashes(&t);
    let mut record = SentRecord::default();
    let p = record.plan(URL, "s", &h, false);
    record.mark_sent(URL, "s", p.entry.clone());
    let again = record.plan(URL, "s", &h, true);
    assert_eq!(
        (again.root, again.phases, again.changed),
        (false, 0..1, false)
    );
    let old: SentRecord =
        serde_json::from_str(r#"{"http://x/v1/traces": {"s": "0123abcd"}}"#).unwrap();
    let p = old.plan(URL, "s", &h, false);
    assert_eq!((p.root, p.phases.clone(), p.changed), (false, 0..1, false));
    // The resource is part of what was sent.
    let other = PartHashes::of(
        &t,
        &Resource {
            attributes: vec![("openinference.project.name".into(), "agents".into())],
        },
        "1",
    );
    assert!(record.plan(URL, "s", &other, false).changed);
    assert_eq!(p.take(t).len(), 2);
}

#[test]
fn a_record_round_trips_one_line_a_session_and_a_bad_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".otlp-sent.json");
    assert_eq!(SentRecord::load(&path).unwrap(), SentRecord::default());
    let mut r = SentRecord::default();
    let h = hashes(&trace("r", &["a"], 1, true));
    for s in ["s1", "s2"] {
        let p = r.plan(URL, s, &h, false);
        r.mark_sent(URL, s, p.entry);
    }
    r.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    let back = SentRecord::load(&path).unwrap();
    assert_eq!(back, r);
    assert!(back.plan(URL, "s1", &h, false).is_empty());
    assert!(!back.plan("http://y/v1/traces", "s1", &h, false).is_empty());
    std::fs::write(&path, "{\n  \"a\": 3\n}").unwrap();
    let e = SentRecord::load(&path).unwrap_err().to_string();
    assert!(e.contains(".otlp-sent.json:2:"), "{e}");
}

#[test]
fn a_record_behind_a_link_is_written_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    let link = dir.path().join(".otlp-sent.json");
    std::fs::write(&real, "{}").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut r = SentRecord::default();
    let h = hashes(&trace("r", &["a"], 1, true));
    r.mark_sent(URL, "s", r.plan(URL, "s", &h, false).entry);
    r.save(&link).unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(SentRecord::load(&real).unwrap(), r);
}
