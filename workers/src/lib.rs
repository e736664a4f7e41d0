//! Work over a list of items on a few threads: the one worker loop of the workspace.
//!
//! Each worker takes the next item not yet taken (the slow ones do not hold the fast ones
//! back) and the results come back in the items' order, so what a caller computes does not
//! depend on which worker did what. The workers run with the deep stack: the interpreters
//! recurse once per level of a predicate.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `work` on every item on up to `workers` threads, the results in the items' order.
///
/// With one worker or one item, or when no thread can start, the calling thread does the
/// work. A worker that cannot start leaves its share to the others; an item no worker reached
/// (none can be, short of a panic, which this propagates) is done by the calling thread.
pub fn map<I: Send, T: Send>(
    items: Vec<I>,
    workers: usize,
    stack: usize,
    work: impl Fn(I) -> T + Sync,
) -> Vec<T> {
    let workers = workers.min(items.len());
    if workers <= 1 {
        return items.into_iter().map(work).collect();
    }
    let slots: Vec<Mutex<(Option<I>, Option<T>)>> = items
        .into_iter()
        .map(|item| Mutex::new((Some(item), None)))
        .collect();
    let next = AtomicUsize::new(0);
    let run = || {
        while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
            let item = lock(slot).0.take();
            if let Some(item) = item {
                let done = work(item);
                lock(slot).1 = Some(done);
            }
        }
    };
    std::thread::scope(|scope| {
        let spawned = (0..workers)
            .filter(|_| {
                std::thread::Builder::new()
                    .stack_size(stack)
                    .spawn_scoped(scope, run)
                    .is_ok()
            })
            .count();
        if spawned == 0 {
            run();
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            let (item, done) = slot.into_inner().unwrap_or_else(|p| p.into_inner());
            match (done, item) {
                (Some(done), _) => done,
                (None, Some(item)) => work(item),
                // Taken and not done: only a worker's panic leaves a slot so, and the scope
                // above propagated it before this line.
                (None, None) => unreachable!("a worker took an item and did not finish it"),
            }
        })
        .collect()
}

fn lock<S>(slot: &Mutex<S>) -> std::sync::MutexGuard<'_, S> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn results_come_back_in_the_items_order_whatever_the_workers() {
        let items: Vec<u64> = (0..500).collect();
        for workers in [0, 1, 2, 7, 1000] {
            let squares = map(items.clone(), workers, 1 << 20, |i| {
                // Uneven work, so that workers finish out of order.
                if i % 13 == 0 {
                    std::thread::yield_now();
                }
                i * i
            });
            assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn every_item_is_worked_on_once() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let out = map((0..64).collect(), 4, 1 << 20, |i: usize| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            i
        });
        assert_eq!(out.len(), 64);
        assert_eq!(calls.into_inner(), 64);
    }

    #[test]
    fn borrowed_items_may_be_changed_in_place() {
        let mut cells = vec![1, 2, 3, 4, 5];
        let _: Vec<()> = map(cells.iter_mut().collect(), 3, 1 << 20, |c| *c *= 10);
        assert_eq!(cells, [10, 20, 30, 40, 50]);
    }
}
