//! One session made ready to send, on a reading thread: read (its journal
//! applied) with its sidecar, redacted, mapped to its trace, long values
//! cut, its settled parts hashed, and what the sent-record says is due
//! encoded as its part of a request.

use std::path::Path;

use crucible_core::SessionStore;
use crucible_otel::{EncodedSpans, Part, PartHashes, Protocol, Resource, SentParts, SentRecord};
use crucible_parser::MarkdownCodec;

/// What every session of a run is mapped with.
pub struct MapContext<'a> {
    pub store: &'a SessionStore<MarkdownCodec>,
    pub redact: bool,
    pub resource: &'a Resource,
    pub protocol: Protocol,
    /// Attribute values longer than this many characters are cut.
    pub value_limit: usize,
    /// What was sent before, to `url`.
    pub record: &'a SentRecord,
    pub url: &'a str,
    /// Every settled part again (`--all`, sessions named), not only what
    /// settled since.
    pub again: bool,
}

/// One session, mapped: its due spans encoded, or nothing due.
pub struct Mapped {
    pub id: String,
    /// Spans in `part`.
    pub spans: usize,
    /// Empty when nothing is due.
    pub part: Part,
    /// The record's entry once `part` is accepted.
    pub entry: SentParts,
    /// A part the endpoint holds changed since it was sent.
    pub changed: bool,
    pub open_phases: usize,
    /// The session runs: its root is held back.
    pub running: bool,
    /// Something is settled (so an empty `part` means: sent before, unchanged).
    pub settled: bool,
}

impl Mapped {
    pub fn is_due(&self) -> bool {
        !self.part.is_empty()
    }
}

pub fn map_session(cx: &MapContext<'_>, path: &Path) -> Result<Mapped, String> {
    let mut log = cx.store.load_path(path).map_err(|e| e.to_string())?;
    // A sidecar that does not match its session is left out (its records
    // would go on the wrong calls); the markdown alone is still a trace.
    let mut data = match cx.store.load_data_for(path, &log) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("warning: {e}; {} sent without its sidecar", log.id());
            None
        }
    };
    if cx.redact {
        let r = crucible_redact::Redactor::shared();
        log.redact(r);
        if let Some(d) = data.as_mut() {
            d.redact(r);
        }
    }
    let mut trace = crucible_otel::session_trace(&log, data.as_ref());
    crucible_otel::cut_long_values(&mut trace, cx.value_limit);
    let version = env!("CARGO_PKG_VERSION");
    // Each part encoded once, for its hash and, in protobuf, to be sent.
    let root = crucible_otel::encode_spans(&trace.root);
    let phases: Vec<EncodedSpans> = trace
        .phases
        .iter()
        .map(|p| crucible_otel::encode_spans(&p.spans))
        .collect();
    let hashes = PartHashes::of_encoded(&trace, &root, &phases, cx.resource, version);
    let id = log.id().to_string();
    let plan = cx.record.plan(cx.url, &id, &hashes, cx.again);
    let (spans, part) = if plan.is_empty() {
        (0, Part::default())
    } else if cx.protocol == Protocol::Protobuf {
        let due = plan.take_encoded(root, phases);
        let n = due.iter().map(|e| e.count).sum();
        (
            n,
            crucible_otel::session_part_encoded(cx.resource, version, due),
        )
    } else {
        let spans = plan.take(trace);
        let n = spans.len();
        let part = crucible_otel::session_part(cx.resource, version, &spans, cx.protocol);
        (n, part)
    };
    Ok(Mapped {
        id,
        spans,
        part,
        changed: plan.changed && !plan.is_empty(),
        entry: plan.entry,
        open_phases: hashes.open_phases(),
        running: !hashes.root_settled(),
        settled: hashes.root_settled() || hashes.closed_phases() > 0,
    })
}
