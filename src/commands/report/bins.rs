//! Time bins from the capture's start whose width grows with the capture: a chart gets between
//! `MAX / 2` and `MAX` bins whatever the capture's length, without knowing the length up front.

/// What a bin holds: adds up when two neighbouring bins become one.
pub trait Merge: Default {
    fn merge(&mut self, other: Self);
}

/// Bins at most.
pub const MAX: usize = 400;
/// The first width: 10 ms.
const FIRST_WIDTH_NS: u64 = 10_000_000;

/// Values per time bin.
pub struct Bins<T: Merge> {
    width_ns: u64,
    bins: Vec<T>,
}

impl<T: Merge> Default for Bins<T> {
    fn default() -> Self {
        Bins {
            width_ns: FIRST_WIDTH_NS,
            bins: Vec::new(),
        }
    }
}

impl<T: Merge> Bins<T> {
    /// The bin of a time `rel_ns` after the capture's start; a time before it (reordered frames)
    /// goes to the first bin.
    pub fn at(&mut self, rel_ns: i128) -> &mut T {
        let rel = u64::try_from(rel_ns.max(0)).unwrap_or(u64::MAX);
        while rel / self.width_ns >= MAX as u64 && self.width_ns < u64::MAX / 4 {
            self.halve();
        }
        let i = ((rel / self.width_ns) as usize).min(MAX - 1);
        if self.bins.len() <= i {
            self.bins.resize_with(i + 1, T::default);
        }
        &mut self.bins[i]
    }

    /// Doubles the width: bins 2i and 2i+1 become bin i.
    fn halve(&mut self) {
        self.width_ns *= 2;
        let old = std::mem::take(&mut self.bins);
        for (i, b) in old.into_iter().enumerate() {
            if i % 2 == 0 {
                self.bins.push(b);
            } else if let Some(last) = self.bins.last_mut() {
                last.merge(b);
            }
        }
    }

    pub fn width_secs(&self) -> f64 {
        self.width_ns as f64 / 1e9
    }

    /// The bins merged `k` at a time into at most `max` (a rate read off a bin only a few
    /// packets wide swings between neighbours), with the merged width in seconds.
    pub fn coarse(&self, max: usize) -> (f64, Vec<(f64, T)>)
    where
        T: Clone,
    {
        let k = self.bins.len().div_ceil(max.max(1)).max(1);
        let w = self.width_secs() * k as f64;
        let merged = self
            .bins
            .chunks(k)
            .enumerate()
            .map(|(i, chunk)| {
                let mut sum = T::default();
                for b in chunk {
                    sum.merge(b.clone());
                }
                (i as f64 * w, sum)
            })
            .collect();
        (w, merged)
    }

    pub fn is_empty(&self) -> bool {
        self.bins.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Merge for u64 {
        fn merge(&mut self, other: Self) {
            *self += other;
        }
    }

    #[test]
    fn width_grows_and_counts_are_kept() {
        let mut b = Bins::<u64>::default();
        for s in 0..100u64 {
            *b.at(i128::from(s) * 1_000_000_000) += 1;
        }
        // 100 s in 10 ms bins would be 10,000: doubled five times to 320 ms; the last time,
        // 99 s, is in bin 309.
        assert_eq!(b.width_secs(), 0.32);
        assert_eq!(b.coarse(MAX).1.len(), 310);
        assert_eq!(b.coarse(MAX).1.iter().map(|(_, v)| *v).sum::<u64>(), 100);
        let (w, coarse) = b.coarse(100);
        assert_eq!((w, coarse.len()), (1.28, 78));
        assert_eq!(coarse.iter().map(|(_, v)| *v).sum::<u64>(), 100);
        assert_eq!(coarse[1], (1.28, 1));
        *b.at(-5) += 1;
        assert_eq!(b.coarse(MAX).1[0].1, 2);
        *b.at(i128::MAX) += 1;
        assert!(b.coarse(MAX).1.len() <= MAX);
    }
}
