//! `-2`: what a first pass over a capture file learned per flow, handed to the same flow's decoder
//! at its start in the second pass (tshark's `-2` two-pass analysis, for the facts a decoder can
//! only learn later in a flow: a Quake 3 player's name, which keys the legacy XOR of messages
//! sent long before the name shows, or its usercmd key, recovered from many moves).
//!
//! Bounded whatever the capture: at most [`MAX_ITEMS`] strings of at most [`MAX_ITEM`] bytes per
//! flow, and [`MAX_BYTES`] in all (what the flows that end first learned is kept).

use std::collections::HashMap;
use std::net::SocketAddr;

/// Strings remembered per flow at most.
pub const MAX_ITEMS: usize = 16;
/// Bytes per string at most (a Quake 3 name has at most 32: `MAX_NAME_LENGTH`).
pub const MAX_ITEM: usize = 64;
/// Bytes remembered in all at most, each string counted with a flow's key and its own length.
pub const MAX_BYTES: usize = 4 << 20;

/// What the first pass learned, per flow (its two endpoints, in either order).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Hindsight {
    flows: HashMap<(SocketAddr, SocketAddr), Vec<Vec<u8>>>,
    bytes: usize,
}

/// What one string costs in [`MAX_BYTES`]: its bytes, its vector and a share of a flow's key.
const ITEM_COST: usize = 64;

/// The key of the flow between `a` and `b`, whichever sent.
fn key(a: SocketAddr, b: SocketAddr) -> (SocketAddr, SocketAddr) {
    if a <= b { (a, b) } else { (b, a) }
}

impl Hindsight {
    /// Takes what a flow's decoder learned. A flow forgotten and seen again (idle, or at the
    /// flow cap) adds to what its first life learned, up to the bounds.
    pub fn add(&mut self, a: SocketAddr, b: SocketAddr, learned: Vec<Vec<u8>>) {
        let learned: Vec<Vec<u8>> = learned
            .into_iter()
            .filter(|x| !x.is_empty() && x.len() <= MAX_ITEM)
            .collect();
        if learned.is_empty() {
            return;
        }
        let items = self.flows.entry(key(a, b)).or_default();
        for x in learned {
            let cost = ITEM_COST + x.len();
            if items.len() < MAX_ITEMS && self.bytes + cost <= MAX_BYTES && !items.contains(&x) {
                self.bytes += cost;
                items.push(x);
            }
        }
        if items.is_empty() {
            self.flows.remove(&key(a, b));
        }
    }

    /// What the first pass learned over the flow between `a` and `b`.
    pub fn get(&self, a: SocketAddr, b: SocketAddr) -> Option<&[Vec<u8>]> {
        self.flows.get(&key(a, b)).map(Vec::as_slice)
    }

    /// Flows with something learned.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> SocketAddr {
        s.parse().expect("an address")
    }

    #[test]
    fn a_flow_is_found_from_either_end_and_its_strings_are_bounded() {
        let (c, s) = (at("10.0.0.2:27961"), at("10.0.0.1:27960"));
        let mut h = Hindsight::default();
        h.add(
            c,
            s,
            vec![b"BusyPlayer".to_vec(), Vec::new(), vec![b'x'; MAX_ITEM + 1]],
        );
        h.add(s, c, vec![b"BusyPlayer".to_vec(), b"BusyRenamed".to_vec()]);
        let want = [b"BusyPlayer".to_vec(), b"BusyRenamed".to_vec()];
        assert_eq!(h.get(s, c), Some(&want[..]));
        assert_eq!(h.get(c, s), Some(&want[..]));
        assert_eq!(h.get(c, at("10.0.0.1:27961")), None);
        let many: Vec<Vec<u8>> = (0..40u8).map(|i| vec![b'a' + i % 26, i]).collect();
        h.add(c, at("10.0.0.3:1"), many);
        assert_eq!(h.get(c, at("10.0.0.3:1")).map(<[_]>::len), Some(MAX_ITEMS));
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn what_is_kept_in_all_is_bounded() {
        let mut h = Hindsight::default();
        let names: Vec<Vec<u8>> = (0..MAX_ITEMS as u8)
            .map(|i| vec![i + 1; MAX_ITEM])
            .collect();
        for port in 1..=20_000u16 {
            h.add(
                at("10.0.0.1:27960"),
                at(&format!("10.0.0.2:{port}")),
                names.clone(),
            );
        }
        let per_flow = MAX_ITEMS * (ITEM_COST + MAX_ITEM);
        assert_eq!(h.len(), MAX_BYTES.div_ceil(per_flow));
        assert!(h.bytes <= MAX_BYTES);
        // A flow that brings nothing new, or comes past the bound, is not kept.
        h.add(at("10.0.0.1:27960"), at("10.0.0.3:1"), names);
        assert_eq!(h.get(at("10.0.0.1:27960"), at("10.0.0.3:1")), None);
    }
}
