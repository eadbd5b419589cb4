//! What one flow's datagrams say about an endpoint that other flows talk to: a Quake 3 server's
//! `statusResponse` to a server browser lists the names of the players in the game, and a
//! legacy game flow captured mid-game needs a player's name to read its chat lines' echoes
//! (docs/protocols/quake3.md, "Overheard names"). A protocol that overhears says what a
//! datagram tells ([`crate::toolkit::proto::Overhearing`]); the engine keeps it by the sender and
//! hands it to every flow with that endpoint ([`crate::toolkit::proto::Datagram::overheard`]).
//!
//! Every shard looks at every datagram, its own flow's or not, so every shard holds the same
//! facts at every frame and the output is the same on any thread count. Bounded whatever the
//! capture: [`MAX_ENDPOINTS`] endpoints (the one first heard from is forgotten first, however
//! recently it spoke again), each with the newest [`MAX_ITEMS`] strings of at most
//! [`MAX_ITEM`] bytes.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;

use crate::toolkit::proto::Heard;

/// Endpoints remembered at most.
pub const MAX_ENDPOINTS: usize = 256;
/// Strings remembered per endpoint at most (a status lists up to 64 players; Quake 3 hands
/// over its first 8, `quake3::userinfo::status_names`).
pub const MAX_ITEMS: usize = 16;
/// Bytes per string at most.
pub const MAX_ITEM: usize = 64;

#[derive(Debug, Default)]
pub struct Overheard {
    /// Seeded at random like the flow table's (engine/flows.rs), and looked up at every
    /// datagram once anything is heard: foldhash, not SipHash.
    endpoints: HashMap<SocketAddr, (u64, Vec<Vec<u8>>), foldhash::fast::RandomState>,
    /// Endpoints in the order they were first heard from, to forget the oldest.
    order: VecDeque<SocketAddr>,
    generation: u64,
}

impl Overheard {
    /// Takes what a datagram sent by `from` said (the newest strings replace the older ones).
    pub fn hear(&mut self, from: SocketAddr, items: Vec<Vec<u8>>) {
        let mut kept: Vec<Vec<u8>> = Vec::new();
        for x in items {
            if !x.is_empty() && x.len() <= MAX_ITEM && !kept.contains(&x) && kept.len() < MAX_ITEMS
            {
                kept.push(x);
            }
        }
        if kept.is_empty() {
            return;
        }
        if let Some((generation, old)) = self.endpoints.get_mut(&from) {
            if *old != kept {
                self.generation += 1;
                (*generation, *old) = (self.generation, kept);
            }
            return;
        }
        if self.order.len() >= MAX_ENDPOINTS
            && let Some(oldest) = self.order.pop_front()
        {
            self.endpoints.remove(&oldest);
        }
        self.generation += 1;
        self.order.push_back(from);
        self.endpoints.insert(from, (self.generation, kept));
    }

    /// What was heard about either end of a datagram when anything was heard since `seen` (the
    /// flow's last look, which this advances): a lookup only when something changed, not at
    /// every datagram (two at each cost 3 % of a `stats` run on a capture with one status).
    pub fn since(&self, seen: &mut u64, a: SocketAddr, b: SocketAddr) -> Heard<'_> {
        if *seen == self.generation {
            return Heard::default();
        }
        *seen = self.generation;
        self.about(a, b)
    }

    /// What was heard about either end of a datagram (the server's end, which ever it is).
    pub fn about(&self, a: SocketAddr, b: SocketAddr) -> Heard<'_> {
        // Most captures overhear nothing: no hashing at each datagram then.
        if self.endpoints.is_empty() {
            return Heard::default();
        }
        // The lower endpoint first, whichever sent: were both ends heard from, a flow would
        // otherwise see its names change with each datagram's direction.
        let (first, second) = if a <= b { (a, b) } else { (b, a) };
        let get = |e: &SocketAddr| self.endpoints.get(e);
        let heard = get(&first).or_else(|| get(&second));
        heard.map_or_else(Heard::default, |(generation, items)| Heard {
            generation: *generation,
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn the_newest_strings_are_kept_by_sender_with_a_new_generation() {
        let mut o = Overheard::default();
        assert!(o.about(at(1), at(27960)).items.is_empty());
        o.hear(
            at(27960),
            vec![b"Sarge".to_vec(), b"Sarge".to_vec(), Vec::new()],
        );
        let h = o.about(at(5000), at(27960));
        assert_eq!(h.items, [b"Sarge".to_vec()]);
        let first = h.generation;
        // The same again changes nothing; a new list is a new generation.
        o.hear(at(27960), vec![b"Sarge".to_vec()]);
        assert_eq!(o.about(at(27960), at(5000)).generation, first);
        o.hear(at(27960), vec![b"Grunt".to_vec()]);
        let h = o.about(at(27960), at(5000));
        assert_eq!(
            (h.items, h.generation > first),
            (&[b"Grunt".to_vec()][..], true)
        );
        // A flow's look: once per change.
        let mut seen = 0;
        let grunt = [b"Grunt".to_vec()];
        assert_eq!(o.since(&mut seen, at(5000), at(27960)).items, grunt);
        assert!(o.since(&mut seen, at(5000), at(27960)).items.is_empty());
        o.hear(at(1), vec![b"Elsewhere".to_vec()]);
        let h = o.since(&mut seen, at(5000), at(27960));
        assert_eq!(h.items, grunt);
        assert!(h.generation > first && h.generation < seen);
        // Both ends heard from: the same answer in either direction.
        o.hear(at(5000), vec![b"Client".to_vec()]);
        let (x, y) = (o.about(at(5000), at(27960)), o.about(at(27960), at(5000)));
        assert_eq!((x.items, x.generation), (y.items, y.generation));
    }

    #[test]
    fn endpoints_and_strings_are_bounded() {
        let mut o = Overheard::default();
        let many: Vec<Vec<u8>> = (0..100u8).map(|i| vec![b'a', i]).collect();
        o.hear(at(1), many);
        assert_eq!(o.about(at(1), at(2)).items.len(), MAX_ITEMS);
        o.hear(at(2), vec![vec![b'x'; MAX_ITEM + 1]]);
        assert!(o.about(at(2), at(3)).items.is_empty());
        for port in 0..(MAX_ENDPOINTS as u16 + 10) {
            o.hear(at(1000 + port), vec![b"n".to_vec()]);
        }
        assert_eq!(o.endpoints.len(), MAX_ENDPOINTS);
        assert!(o.about(at(1), at(1000)).items.is_empty());
        assert!(
            !o.about(at(1000 + MAX_ENDPOINTS as u16 + 9), at(1))
                .items
                .is_empty()
        );
    }
}
