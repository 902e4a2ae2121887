//! Work spread over every core, its results taken in order on the calling
//! thread: how `learn` and `import` read many files at once and still write
//! one output (or one store) in a stable order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Runs `work` on each item on all cores, and hands each result with its
/// index to `take` in the order of `items`; `take` returns false to stop.
/// Workers run at most `window` items ahead of `take`, which bounds the
/// results held in memory.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    window: usize,
    work: impl Fn(&T) -> R + Sync,
    mut take: impl FnMut(usize, R) -> bool,
) {
    let next = AtomicUsize::new(0);
    let taken = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
    let threads = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .min(items.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, taken, stop, work) = (&next, &taken, &stop, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    // Not too far ahead of the taker.
                    while i >= taken.load(Ordering::Acquire) + window
                        && !stop.load(Ordering::Relaxed)
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    if stop.load(Ordering::Relaxed) || tx.send((i, work(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results arrive in any order; they are taken in item order.
        let mut waiting: BTreeMap<usize, R> = BTreeMap::new();
        let mut due = 0;
        for (i, r) in rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&due) {
                due += 1;
                taken.store(due, Ordering::Release);
                if !take(due - 1, r) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_item_order_and_stop_when_asked() {
        let items: Vec<u64> = (0..500).collect();
        let mut seen = Vec::new();
        map_in_order(
            &items,
            8,
            |x| x * 2,
            |i, r| {
                seen.push((i, r));
                true
            },
        );
        assert_eq!(
            seen,
            (0..500).map(|i| (i as usize, i * 2)).collect::<Vec<_>>()
        );
        let mut count = 0;
        map_in_order(
            &items,
            8,
            |x| *x,
            |_, _| {
                count += 1;
                count < 10
            },
        );
        assert_eq!(count, 10);
    }
}
