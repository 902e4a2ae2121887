//! `cru session export --all --to otlp` over a generated corpus, to a
//! receiver that reads each request and discards it: cru's own side of an
//! export (reading, mapping, encoding, gzip, sending), in sessions per
//! second. What an engine does with the spans is the engine's time.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::index_bench::measure;

/// An OTLP/HTTP endpoint on 127.0.0.1 that answers 200 to every request
/// (keep-alive, one thread per connection) and counts the bytes it read.
#[derive(Debug)]
pub struct Discard {
    pub url: String,
    pub bytes: Arc<AtomicU64>,
}

impl Discard {
    pub fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}", listener.local_addr()?);
        let bytes = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&bytes);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let counted = Arc::clone(&counted);
                std::thread::spawn(move || serve(stream, &counted));
            }
        });
        Ok(Self { url, bytes })
    }
}

fn serve(stream: TcpStream, bytes: &AtomicU64) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut len = 0u64;
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line.trim().is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        if std::io::copy(&mut (&mut reader).take(len), &mut std::io::sink()).is_err() {
            return;
        }
        bytes.fetch_add(len, Ordering::Relaxed);
        if out
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n")
            .is_err()
        {
            return;
        }
    }
}

/// The figures of one benchmark.
#[derive(Debug, Clone)]
pub struct OtlpFigures {
    pub sessions: usize,
    pub seconds: f64,
    pub megabytes_sent: f64,
    pub peak_kb: Option<u64>,
}

/// Measures `export --all --to otlp` of `dir` (a corpus of `sessions`
/// files, indexed once before) to a discarding receiver, best of `runs`.
pub fn measure_otlp(
    cru: &Path,
    dir: &Path,
    sessions: usize,
    runs: usize,
) -> anyhow::Result<OtlpFigures> {
    let dir_arg = dir.to_string_lossy().into_owned();
    measure(cru, &["--dir", &dir_arg, "session", "index"], 1)?;
    // Each run's receiver has a port of its own, so an earlier run's
    // sent-record would hold another 10,000 entries per run: read and
    // written again by every export, it made the figure depend on how
    // often the corpus had been measured.
    match std::fs::remove_file(dir.join(".otlp-sent.json")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    let rx = Discard::start()?;
    let args = [
        "--dir",
        &dir_arg,
        "session",
        "export",
        "--all",
        "--to",
        "otlp",
        "--endpoint",
        &rx.url,
    ];
    let m = measure(cru, &args, runs)?.ok_or_else(|| anyhow::anyhow!("cru did not run"))?;
    let sent = rx.bytes.load(Ordering::Relaxed) as f64 / runs.max(1) as f64;
    Ok(OtlpFigures {
        sessions,
        seconds: m.best.as_secs_f64(),
        megabytes_sent: sent / 1e6,
        peak_kb: m.peak_kb,
    })
}

/// The benchmark table.
pub fn run(cru: &Path, dir: &Path, sessions: usize, runs: usize) -> anyhow::Result<String> {
    let f = measure_otlp(cru, dir, sessions, runs)?;
    let mut s = String::new();
    writeln!(
        s,
        "otlp corpus: {} ({} sessions)",
        dir.display(),
        f.sessions
    )?;
    writeln!(
        s,
        "| operation | time | sessions/s | sent (gzip) | peak memory | target |"
    )?;
    writeln!(s, "|---|---:|---:|---:|---:|---|")?;
    writeln!(
        s,
        "| `cru session export --all --to otlp` to a discarding receiver | {:.0} ms | {:.0} | {:.1} MB | {} | ≥ 5,000 sessions/s |",
        f.seconds * 1000.0,
        f.sessions as f64 / f.seconds,
        f.megabytes_sent,
        crate::bench::peak_mb(f.peak_kb),
    )?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small run of the benchmark itself, so that the harness cannot rot.
    #[test]
    fn otlp_benchmark_smoke_run() {
        let cru = crate::cru_binary::for_tests().unwrap();
        let dir = crate::corpus::small(40, 1, 4, 5);
        let f = measure_otlp(&cru, dir.path(), 40, 1).unwrap();
        assert!(f.seconds > 0.0);
        assert!(f.megabytes_sent > 0.0, "the receiver got nothing");
        let table = run(&cru, dir.path(), 40, 1).unwrap();
        assert!(table.contains("sessions/s"), "{table}");
    }
}
