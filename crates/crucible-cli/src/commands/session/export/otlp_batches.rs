//! Sessions mapped on the reading threads, joined into batches and posted
//! by a thread of its own: the compression of one batch overlaps the
//! reading of the next.
//!
//! A batch holds whole sessions, bounded by spans and by bytes, so that no
//! request outgrows an engine's limit because of its neighbours; a 413
//! splits the batch and sends the halves, down to one session that fails
//! alone. Any other failure stops the sending: an engine that refused the
//! connection or the credentials refuses the next batch too, and trying
//! each batch in turn would only repeat the wait.

use std::path::PathBuf;

use crucible_otel::{Exporter, SentRecord};

use super::otlp_map::Mapped;
use super::otlp_summary::Tally;

/// A request holds the spans of whole sessions, about this many at most
/// (a session with more goes alone): large enough that requests are few.
const BATCH_SPANS: usize = 2_048;

/// And this many bytes of encoded spans at most, before compression (a
/// session with more goes alone): well under the 20 MiB the OpenTelemetry
/// Collector takes by default, and under what engines behind a proxy take.
const BATCH_BYTES: usize = 4 << 20;

/// How many sessions the readers may map ahead of the sender.
const WINDOW: usize = 1_024;

/// Maps `paths` with `map` and sends what is due; returns what the
/// endpoint accepted (to enter in the record) and the tally.
pub fn map_and_send(
    paths: &[PathBuf],
    map: impl Fn(&PathBuf) -> Result<Mapped, String> + Sync,
    exporter: &Exporter,
) -> (SentRecord, Tally) {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Mapped>>(2);
    std::thread::scope(|scope| {
        let sender = scope.spawn(move || {
            let mut s = Sender {
                exporter,
                sent: SentRecord::default(),
                tally: Tally::default(),
                stopped: false,
            };
            for batch in rx {
                s.send(batch);
            }
            (s.sent, s.tally)
        });
        let mut tally = Tally::default();
        let mut batch: Vec<Mapped> = Vec::new();
        let (mut spans, mut bytes) = (0, 0);
        crate::in_order::map_in_order(paths, WINDOW, map, |_, mapped| {
            let m = match mapped {
                Ok(m) => m,
                Err(e) => {
                    tally.unreadable += 1;
                    eprintln!("warning: skipped {e}");
                    return true;
                }
            };
            tally.open_phases += m.open_phases;
            tally.running += usize::from(m.running);
            if !m.is_due() {
                tally.unchanged += usize::from(m.settled);
                return true;
            }
            let full = spans + m.spans > BATCH_SPANS || bytes + m.part.len() > BATCH_BYTES;
            if full && !batch.is_empty() {
                // The sender gone (it panicked) is seen at the join.
                let _ = tx.send(std::mem::take(&mut batch));
                (spans, bytes) = (0, 0);
            }
            spans += m.spans;
            bytes += m.part.len();
            batch.push(m);
            true
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        let (sent, sender_tally) = sender.join().expect("the sender does not panic");
        tally.add(sender_tally);
        (sent, tally)
    })
}

struct Sender<'a> {
    exporter: &'a Exporter,
    sent: SentRecord,
    tally: Tally,
    /// A batch failed in a way the next would too: the rest is not tried.
    stopped: bool,
}

impl Sender<'_> {
    /// Sends `batch` as one request; its sessions are entered in `sent`
    /// when the endpoint accepted it whole, and listed as failed when it
    /// did not.
    fn send(&mut self, mut batch: Vec<Mapped>) {
        if self.stopped {
            self.tally.not_tried.extend(batch.into_iter().map(|m| m.id));
            return;
        }
        let e = self.exporter.endpoint();
        let parts: Vec<&crucible_otel::Part> = batch.iter().map(|m| &m.part).collect();
        let body = crucible_otel::body(&parts, e.protocol, e.compression);
        let url = e.url.clone();
        match self.exporter.send(&body) {
            Ok(delivery) => {
                let t = &mut self.tally;
                t.requests += 1;
                t.spans += batch.iter().map(|m| m.spans).sum::<usize>();
                let partly = delivery.rejected_spans > 0;
                if partly {
                    // Which spans were dropped is not said: none of the
                    // batch's sessions counts as sent.
                    t.rejected_spans += delivery.rejected_spans;
                    t.partial.extend(batch.iter().map(|m| m.id.clone()));
                    if !delivery.message.is_empty() {
                        eprintln!("warning: {url}: {}", delivery.message);
                    }
                }
                for m in batch {
                    if !partly {
                        self.sent.mark_sent(&url, &m.id, m.entry);
                    }
                    if m.changed {
                        t.changed.push(m.id.clone());
                    }
                    t.exported.push(m.id);
                }
            }
            Err(err) if err.status() == Some(413) && batch.len() > 1 => {
                let second = batch.split_off(batch.len() / 2);
                self.send(batch);
                self.send(second);
            }
            Err(err) => {
                // A session too large alone does not stop the others.
                self.stopped = err.status() != Some(413);
                let ids = batch.into_iter().map(|m| m.id).collect();
                self.tally.failures.push((ids, err));
            }
        }
    }
}
