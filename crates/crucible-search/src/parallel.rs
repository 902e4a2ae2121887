//! Work on a slice split over threads, the results in the slice's order:
//! the freshness `stat`s (every core) and the build's parsing (half the
//! cores, tantivy's indexing threads taking the rest).

/// The cores this process may use (at least one, at most eight).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8)
}

/// `work` on `threads` consecutive chunks of `items`, one thread each; the
/// chunks' results in order. A thread that panics panics the caller.
pub(crate) fn chunked<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T]) -> U + Sync,
) -> Vec<U> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let work = &work;
                scope.spawn(move || work(part))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_back_in_order_whatever_the_threads() {
        let items: Vec<u32> = (0..101).collect();
        for threads in [0, 1, 2, 3, 8, 200] {
            let sums: Vec<Vec<u32>> = chunked(&items, threads, <[u32]>::to_vec);
            assert_eq!(sums.concat(), items, "{threads} threads");
        }
        assert!(chunked(&[] as &[u32], 4, <[u32]>::len).is_empty());
    }
}
