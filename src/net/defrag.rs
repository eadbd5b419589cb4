//! IPv4 and IPv6 fragment reassembly with hard bounds.
//!
//! etherparse's `IpDefragPool` documents that it has no limits against memory exhaustion, so we
//! keep our own small pool: a cap on the bytes held, on the datagrams pending, on the pieces one
//! datagram may arrive in, and a timeout in capture time. Every time a bound bites it is counted,
//! and `stats` reports it.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

use super::Fragment;
use crate::capture::Timestamp;

/// Bounds of the reassembly pool.
#[derive(Debug, Clone, Copy)]
pub struct DefragLimits {
    /// Bytes held across all pending datagrams.
    pub max_bytes: usize,
    /// Datagrams pending at once.
    pub max_pending: usize,
    /// Separate pieces one datagram may have before it is given up as a flood.
    pub max_pieces: usize,
    /// A datagram not completed within this many seconds of capture time is dropped.
    pub timeout_secs: i64,
}

impl Default for DefragLimits {
    fn default() -> Self {
        DefragLimits {
            max_bytes: 16 * 1024 * 1024,
            max_pending: 4096,
            max_pieces: 128,
            timeout_secs: 30,
        }
    }
}

/// What reassembly did, for `stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DefragStats {
    pub fragments: u64,
    pub reassembled: u64,
    pub timed_out: u64,
    pub dropped_memory_cap: u64,
    pub dropped_pending_cap: u64,
    pub dropped_invalid: u64,
    pub peak_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    src: IpAddr,
    dst: IpAddr,
    id: u32,
}

#[derive(Debug)]
struct Pending {
    data: Vec<u8>,
    /// Sorted, disjoint, merged byte ranges received.
    have: Vec<(u32, u32)>,
    total: Option<u32>,
    first_seen: Timestamp,
    pieces: usize,
    incomplete: bool,
    /// Its place in the arrival order, to tell its entry in `Defragmenter::arrivals` from a
    /// stale one left by an earlier datagram with the same key.
    arrival: u64,
}

/// A datagram put back together.
#[derive(Debug, Clone)]
pub struct Reassembled {
    pub src: IpAddr,
    pub dst: IpAddr,
    /// The UDP header and payload.
    pub segment: Vec<u8>,
    pub fragments: usize,
}

/// The largest IP payload a fragment chain may describe (fragment offsets are 13 bits of 8 bytes).
const MAX_DATAGRAM: u32 = 65_535;

#[derive(Debug, Default)]
pub struct Defragmenter {
    limits: DefragLimits,
    pending: HashMap<Key, Pending>,
    /// Pending datagrams in order of arrival, oldest first, so that eviction and expiry take the
    /// oldest without scanning the pool (a flood of first fragments made every fragment scan all
    /// 4,096). Entries of datagrams already gone are skipped when they reach the front, and the
    /// queue is compacted when they outnumber the live ones.
    arrivals: VecDeque<(u64, Key)>,
    next_arrival: u64,
    /// Arrival-queue entries looked at, for the hostile tests' bound on work per fragment.
    steps: u64,
    held: usize,
    last_sweep_secs: i64,
    pub stats: DefragStats,
}

impl Defragmenter {
    pub fn new(limits: DefragLimits) -> Defragmenter {
        Defragmenter {
            limits,
            ..Defragmenter::default()
        }
    }

    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Bookkeeping steps taken so far (arrival-queue entries looked at): the work beyond the
    /// fragments' own bytes, which must stay a small constant per fragment whatever the input.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn remove(&mut self, key: &Key) -> Option<Pending> {
        let p = self.pending.remove(key)?;
        self.held -= p.data.capacity();
        Some(p)
    }

    /// The oldest pending datagram's key, dropping stale entries from the front of the queue.
    fn oldest(&mut self) -> Option<Key> {
        while let Some(&(arrival, key)) = self.arrivals.front() {
            self.steps += 1;
            if self.pending.get(&key).is_some_and(|p| p.arrival == arrival) {
                return Some(key);
            }
            self.arrivals.pop_front();
        }
        None
    }

    fn evict_oldest(&mut self) -> bool {
        match self.oldest() {
            Some(k) => {
                self.remove(&k);
                true
            }
            None => false,
        }
    }

    /// Drops datagrams that waited longer than the timeout, oldest first. Cheap per packet: it
    /// looks at the front of the arrival queue at most once per second of capture time and stops
    /// at the first datagram still in time (one that arrived later with an earlier capture time
    /// waits for the cap instead).
    pub fn expire(&mut self, now: Timestamp) {
        if now.secs == self.last_sweep_secs || self.pending.is_empty() {
            return;
        }
        self.last_sweep_secs = now.secs;
        let limit = self.limits.timeout_secs;
        while let Some(k) = self.oldest() {
            let waited = self.pending.get(&k).map_or(0, |p| {
                // Saturating: pcapng's if_tsoffset can put capture times anywhere in i64.
                now.secs.saturating_sub(p.first_seen.secs)
            });
            if waited <= limit {
                break;
            }
            self.remove(&k);
            self.stats.timed_out += 1;
        }
    }

    /// Records a new pending datagram's arrival; compacts the queue when stale entries (of
    /// datagrams completed or dropped) outnumber the live ones, so it stays within twice the pool.
    fn arrive(&mut self, key: Key) -> u64 {
        if self.arrivals.len() >= 2 * self.pending.len() + 64 {
            self.steps += self.arrivals.len() as u64;
            let pending = &self.pending;
            self.arrivals
                .retain(|(a, k)| pending.get(k).is_some_and(|p| p.arrival == *a));
        }
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        self.arrivals.push_back((arrival, key));
        arrival
    }

    /// Adds a fragment; returns the datagram when this fragment completes it.
    pub fn add(&mut self, f: &Fragment<'_>, now: Timestamp) -> Option<Reassembled> {
        self.stats.fragments += 1;
        self.expire(now);
        let key = Key {
            src: f.src,
            dst: f.dst,
            id: f.id,
        };
        let end = f.offset.saturating_add(f.data.len() as u32);
        if end > MAX_DATAGRAM || (f.more && !f.data.len().is_multiple_of(8) && !f.incomplete) {
            self.remove(&key);
            self.stats.dropped_invalid += 1;
            return None;
        }
        if !self.pending.contains_key(&key) {
            if self.pending.len() >= self.limits.max_pending {
                self.evict_oldest();
                self.stats.dropped_pending_cap += 1;
            }
            let arrival = self.arrive(key);
            self.pending.insert(
                key,
                Pending {
                    data: Vec::new(),
                    have: Vec::new(),
                    total: None,
                    first_seen: now,
                    pieces: 0,
                    incomplete: false,
                    arrival,
                },
            );
        }
        let p = self.pending.get_mut(&key)?;
        p.pieces += 1;
        p.incomplete |= f.incomplete;
        if !f.more {
            match p.total {
                Some(t) if t != end => {
                    self.remove(&key);
                    self.stats.dropped_invalid += 1;
                    return None;
                }
                _ => p.total = Some(end),
            }
        }
        if p.pieces > self.limits.max_pieces || p.total.is_some_and(|t| end > t) {
            self.remove(&key);
            self.stats.dropped_invalid += 1;
            return None;
        }
        let before = p.data.capacity();
        if p.data.len() < end as usize {
            p.data.resize(end as usize, 0);
        }
        p.data[f.offset as usize..end as usize].copy_from_slice(f.data);
        insert_range(&mut p.have, (f.offset, end));
        let complete = p.total.is_some_and(|t| p.have.as_slice() == [(0, t)]);
        let grown = p.data.capacity() - before;
        self.held += grown;
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.held as u64);
        if complete {
            let p = self.remove(&key).expect("present");
            self.stats.reassembled += 1;
            return Some(Reassembled {
                src: f.src,
                dst: f.dst,
                segment: p.data,
                fragments: p.pieces,
            });
        }
        while self.held > self.limits.max_bytes {
            if !self.evict_oldest() {
                break;
            }
            self.stats.dropped_memory_cap += 1;
        }
        None
    }
}

fn insert_range(have: &mut Vec<(u32, u32)>, (mut lo, mut hi): (u32, u32)) {
    if lo >= hi {
        return;
    }
    let mut out = Vec::with_capacity(have.len() + 1);
    let mut placed = false;
    for &(a, b) in have.iter() {
        if b < lo {
            out.push((a, b));
        } else if a > hi {
            if !placed {
                out.push((lo, hi));
                placed = true;
            }
            out.push((a, b));
        } else {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    if !placed {
        out.push((lo, hi));
    }
    *have = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(id: u32, offset: u32, more: bool, data: &[u8]) -> Fragment<'_> {
        Fragment {
            src: "10.0.0.1".parse().unwrap(),
            dst: "10.0.0.2".parse().unwrap(),
            id,
            offset,
            more,
            data,
            incomplete: false,
        }
    }

    #[test]
    fn ranges_merge() {
        let mut v = Vec::new();
        insert_range(&mut v, (16, 24));
        insert_range(&mut v, (0, 8));
        assert_eq!(v, [(0, 8), (16, 24)]);
        insert_range(&mut v, (8, 16));
        assert_eq!(v, [(0, 24)]);
    }

    #[test]
    fn out_of_order_fragments_reassemble() {
        let mut d = Defragmenter::new(DefragLimits::default());
        let t = Timestamp::new(10, 0, 6);
        assert!(d.add(&frag(7, 8, false, b"tail"), t).is_none());
        let r = d.add(&frag(7, 0, true, b"01234567"), t).expect("complete");
        assert_eq!(r.segment, b"01234567tail");
        assert_eq!(r.fragments, 2);
        assert_eq!(d.held_bytes(), 0);
        assert_eq!(d.stats.reassembled, 1);
    }

    #[test]
    fn timeout_and_caps_bite_and_are_counted() {
        let mut d = Defragmenter::new(DefragLimits {
            max_bytes: 64,
            max_pending: 2,
            max_pieces: 4,
            timeout_secs: 5,
        });
        d.add(&frag(1, 0, true, &[0; 8]), Timestamp::new(0, 0, 6));
        d.add(&frag(2, 0, true, &[0; 8]), Timestamp::new(10, 0, 6));
        assert_eq!(d.stats.timed_out, 1);
        d.add(&frag(3, 0, true, &[0; 8]), Timestamp::new(10, 0, 6));
        d.add(&frag(4, 0, true, &[0; 8]), Timestamp::new(10, 0, 6));
        assert_eq!(d.stats.dropped_pending_cap, 1);
        d.add(&frag(5, 0, true, &[0; 200]), Timestamp::new(10, 0, 6));
        assert!(d.stats.dropped_memory_cap >= 1);
        assert!(d.held_bytes() <= 64);
        let mut d = Defragmenter::new(DefragLimits {
            max_pieces: 4,
            ..DefragLimits::default()
        });
        for i in 0..5 {
            d.add(&frag(9, i * 16, true, &[0; 8]), Timestamp::new(10, 0, 6));
        }
        assert_eq!(
            d.stats.dropped_invalid, 1,
            "a datagram in too many pieces is given up"
        );
    }

    #[test]
    fn the_pending_cap_evicts_the_oldest_live_datagram_by_arrival() {
        let mut d = Defragmenter::new(DefragLimits {
            max_pending: 2,
            ..DefragLimits::default()
        });
        let t = Timestamp::new(10, 0, 6);
        d.add(&frag(1, 0, true, &[1; 8]), t);
        d.add(&frag(2, 0, true, &[2; 8]), t);
        assert!(d.add(&frag(1, 8, false, b"end"), t).is_some());
        // Key 1 again: a new datagram, newer than 2, though its stale entry is still queued.
        d.add(&frag(1, 0, true, &[1; 8]), t);
        d.add(&frag(3, 0, true, &[3; 8]), t);
        assert_eq!(d.stats.dropped_pending_cap, 1);
        assert!(d.add(&frag(1, 8, false, b"end"), t).is_some(), "1 was kept");
        assert!(
            d.add(&frag(2, 8, false, b"end"), t).is_none(),
            "2 was evicted"
        );
    }

    #[test]
    fn chains_past_64k_are_dropped() {
        let mut d = Defragmenter::new(DefragLimits::default());
        assert!(
            d.add(&frag(1, 65_528, true, &[0; 16]), Timestamp::default())
                .is_none()
        );
        assert_eq!(d.stats.dropped_invalid, 1);
        assert_eq!(d.held_bytes(), 0);
    }
}
