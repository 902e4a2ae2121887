//! Work on a slice split over threads, the results in the slice's order:
//! the freshness `stat`s (every core) and the build's parsing (half the
//! cores, tantivy's indexing threads taking the rest).

/// The cores this process may use (at least one, at most eight).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8)
}

/// `work` on consecutive chunks of `items` on `threads` threads; the
/// chunks' results in order. A thread that panics panics the caller.
///
/// The chunks are many more than the threads, and each thread takes the
/// next one when it is done with its last: a thread that gets less of the
/// CPU (the caller listing a folder meanwhile, another process) does less
/// of the work instead of finishing last.
pub(crate) fn chunked<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T]) -> U + Sync,
) -> Vec<U> {
    let threads = threads.max(1);
    let chunk = items.len().div_ceil(threads * CHUNKS_PER_THREAD).max(1);
    let chunks: Vec<&[T]> = items.chunks(chunk).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, U)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(chunks.len()))
            .map(|_| {
                let (work, chunks, next) = (&work, &chunks, &next);
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(part) = chunks.get(i) else { break };
                        done.push((i, work(part)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, u)| u).collect()
}

/// How many chunks each thread's share is cut into.
const CHUNKS_PER_THREAD: usize = 16;

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
