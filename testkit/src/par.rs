//! Running a test's independent cases on every core: `cargo test` runs the test binaries one
//! after the other and the tests of a binary two at a time (on two cores), so a binary whose
//! time is one long test leaves a core idle unless that test spreads its cases.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` of every item, in the items' order, computed on up to as many threads as the machine
/// has, each taking the next item not taken yet. A panic in `f` (a failed assertion) fails the
/// caller once every thread has stopped, after its message is printed.
pub fn each_parallel<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.min(items.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let out = f(item);
                    done.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, out));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, out)| out).collect()
}

#[cfg(test)]
mod tests {
    use super::each_parallel;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..100).collect();
        let squares: Vec<u64> = items.iter().map(|x| x * x).collect();
        assert_eq!(each_parallel(&items, |x| x * x), squares);
        assert!(each_parallel(&[] as &[u8], |x| *x).is_empty());
    }
}
