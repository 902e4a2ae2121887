//! `assert_linear`: the one timing helper of every crate's linearity tests
//! (`tests/it/linear.rs`), included by path so that no crate needs a test
//! dependency for it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One timing at a time, so the timing tests of this binary do not slow
/// each other down.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Asserts that `run` on `input(10 * n)` costs at most 15 times `run` on
/// `input(n)`. `n` starts at `start` and doubles until the small input takes
/// 20 ms, so that timer noise is small beside it; each size is timed several
/// times and the fastest run counts. On a loaded machine one comparison can
/// still be off, so it is made up to three times: a linear reader passes one
/// of them (about 10x), a quadratic one none (about 100x).
pub fn assert_linear<T>(what: &str, start: usize, input: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _serial = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let fastest = |x: &T, runs: usize| {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                run(x);
                t.elapsed()
            })
            .min()
            .expect("at least one run")
    };
    let mut n = start;
    let mut small_input = input(n);
    while fastest(&small_input, 2) < Duration::from_millis(20) {
        n *= 2;
        small_input = input(n);
    }
    let large_input = input(10 * n);
    let mut tries = Vec::new();
    for _ in 0..3 {
        let small = fastest(&small_input, 3);
        let large = fastest(&large_input, 3);
        let ratio = large.as_secs_f64() / small.as_secs_f64();
        if ratio <= 15.0 {
            return;
        }
        tries.push(format!("{small:?} then {large:?} ({ratio:.1}x)"));
    }
    panic!(
        "{what}: size {n}, then size {}, took {}",
        10 * n,
        tries.join("; ")
    );
}
