//! `assert_linear`: the one timing helper of every crate's linearity tests
//! (`tests/it/linear.rs`), included by path so that no crate needs a test
//! dependency for it.
//!
//! Speed is measured by the benchmarks (`cargo xtask bench`); these tests
//! only tell linear from quadratic, and must not fail on a loaded machine.
//! Two things keep them steady there: the time counted is the time the
//! thread ran on a CPU (where the system says it; waiting for a CPU does not
//! count), and the two sizes are timed over windows of the same length (ten
//! runs of the small input against one of the large), so whatever load
//! remains falls on both alike.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most 10× the input may cost against 10 runs of the input (see
/// [`assert_linear`]).
const MAX_RATIO: f64 = 20.0;

/// One timing at a time, so the timing tests of this binary do not slow
/// each other down.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The time the calling thread has run on a CPU: on Linux the first field
/// of `/proc/thread-self/schedstat` (nanoseconds, updated at least every
/// scheduler tick, a few ms: small beside the windows timed here).
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Times `f`: the calling thread's CPU time where the system reports it,
/// else the wall clock.
fn time(cpu: bool, f: impl FnOnce()) -> Duration {
    if cpu && let Some(start) = thread_cpu_time() {
        f();
        return thread_cpu_time().map_or(Duration::ZERO, |end| end.saturating_sub(start));
    }
    let t = Instant::now();
    f();
    t.elapsed()
}

/// Asserts that `run` on `input(10 * n)` costs at most [`MAX_RATIO`] times `run` on
/// `input(n)` (a quadratic step would cost 100). `run` must do its work on
/// the calling thread, whose CPU time is what is counted.
///
/// `n` starts at `start` and doubles until the small input takes 10 ms.
/// Then ten runs of the small input back to back and one run of the large
/// are timed (the fastest of three of each); on a loaded machine the
/// comparison is made up to three times: a linear reader passes one of them
/// (about 10x), a quadratic one none (about 100x).
pub fn assert_linear<T>(what: &str, start: usize, input: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _serial = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let cpu = thread_cpu_time().is_some();
    // The fastest of `tries` windows of `times` runs on `x`.
    let fastest = |x: &T, times: usize, tries: usize| {
        (0..tries)
            .map(|_| {
                time(cpu, || {
                    for _ in 0..times {
                        run(x);
                    }
                })
            })
            .min()
            .expect("at least one window")
    };
    let mut n = start;
    let mut small_input = input(n);
    while fastest(&small_input, 1, 2) < Duration::from_millis(10) {
        n *= 2;
        small_input = input(n);
    }
    let large_input = input(10 * n);
    let mut tries = Vec::new();
    for _ in 0..3 {
        let ten_small = fastest(&small_input, 10, 3);
        let large = fastest(&large_input, 1, 3);
        let ratio = 10.0 * large.as_secs_f64() / ten_small.as_secs_f64().max(1e-9);
        // Ten times the input: 10× for linear work, 100× for quadratic,
        // 32× for n·√n. Linear code whose data outgrows the caches at the
        // larger size measured up to 17× (the parser's 80,000 frontmatter
        // keys, on a 2-core machine: 15.0–17.3× in one run of three), so
        // 20× still tells them apart.
        if ratio <= MAX_RATIO {
            return;
        }
        tries.push(format!(
            "10 runs {ten_small:?} then 1 run {large:?} ({ratio:.1}x)"
        ));
    }
    panic!(
        "{what}: size {n}, then size {}, took {} ({} time)",
        10 * n,
        tries.join("; "),
        if cpu { "thread CPU" } else { "wall-clock" }
    );
}
