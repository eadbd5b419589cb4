//! The engine's adaptive Huffman coder (ioquake3 code/qcommon/huffman.c, identical in id 1.32),
//! used two ways:
//!
//! - the **static message tree**: the adaptive model fed `msg_hData` once (ioquake3
//!   code/qcommon/msg.c `MSG_initHuffman`), then frozen and turned into an 11-bit lookup table
//!   so that decoding a symbol is one table read;
//! - the **per-packet adaptive tree** of the `connect` packet (`Huff_Decompress`), updated after
//!   every byte.
//!
//! The update procedure follows code/qcommon/huffman.c `Huff_addRef`, `increment`, `swap`,
//! `swaplist` step by step; nodes live in an arena indexed by `u16`, so nothing is allocated
//! per symbol.

use std::sync::OnceLock;

use super::tables::{MSG_HDATA, NYT_CODE, STATIC_CODES};

const NONE: u16 = u16::MAX;
/// Symbol number of the "not yet transmitted" leaf.
pub const NYT: u16 = 256;
const INTERNAL: u16 = 257;
/// Longest static code (0xF7 and NYT have 11 bits; see `STATIC_CODES`).
pub const MAX_CODE_BITS: u32 = 11;

#[derive(Clone, Copy)]
struct Node {
    weight: u32,
    sym: u16,
    parent: u16,
    left: u16,
    right: u16,
    prev: u16,
    next: u16,
    /// Block cell index (or NONE).
    head: u16,
}

const EMPTY: Node = Node {
    weight: 0,
    sym: INTERNAL,
    parent: NONE,
    left: NONE,
    right: NONE,
    prev: NONE,
    next: NONE,
    head: NONE,
};

/// The adaptive model: at most 257 leaves + 256 internal nodes.
pub struct Adaptive {
    nodes: Vec<Node>,
    /// Block cells: each stores the block's leader node.
    cells: Vec<u16>,
    free: Vec<u16>,
    root: u16,
    /// The NYT node, permanently the head of the rank list.
    nyt: u16,
    leaf: [u16; 256],
}

impl Default for Adaptive {
    fn default() -> Self {
        Self::new()
    }
}

impl Adaptive {
    pub fn new() -> Adaptive {
        let mut nodes = Vec::with_capacity(513);
        nodes.push(Node { sym: NYT, ..EMPTY });
        Adaptive {
            nodes,
            cells: Vec::with_capacity(64),
            free: Vec::new(),
            root: 0,
            nyt: 0,
            leaf: [NONE; 256],
        }
    }

    fn n(&self, i: u16) -> &Node {
        &self.nodes[i as usize]
    }
    fn m(&mut self, i: u16) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    fn new_cell(&mut self, leader: u16) -> u16 {
        if let Some(c) = self.free.pop() {
            self.cells[c as usize] = leader;
            c
        } else {
            self.cells.push(leader);
            (self.cells.len() - 1) as u16
        }
    }

    fn leader(&self, node: u16) -> u16 {
        let h = self.n(node).head;
        if h == NONE {
            NONE
        } else {
            self.cells[h as usize]
        }
    }

    fn set_leader(&mut self, node: u16, leader: u16) {
        let h = self.n(node).head;
        if h != NONE {
            self.cells[h as usize] = leader;
        }
    }

    fn new_node(&mut self, node: Node) -> u16 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u16
    }

    /// The tree swap of huffman.c `swap`, in its literal order (matters for siblings).
    fn tree_swap(&mut self, a: u16, b: u16) {
        let pa = self.n(a).parent;
        let pb = self.n(b).parent;
        if pa != NONE {
            if self.n(pa).left == a {
                self.m(pa).left = b;
            } else {
                self.m(pa).right = b;
            }
        } else {
            self.root = b;
        }
        if pb != NONE {
            if self.n(pb).left == b {
                self.m(pb).left = a;
            } else {
                self.m(pb).right = a;
            }
        } else {
            self.root = a;
        }
        self.m(a).parent = pb;
        self.m(b).parent = pa;
    }

    /// The rank-list swap of huffman.c `swaplist`, in its literal order (handles adjacent
    /// nodes).
    fn list_swap(&mut self, a: u16, b: u16) {
        let (an, bn) = (self.n(a).next, self.n(b).next);
        self.m(a).next = bn;
        self.m(b).next = an;
        let (ap, bp) = (self.n(a).prev, self.n(b).prev);
        self.m(a).prev = bp;
        self.m(b).prev = ap;
        if self.n(a).next == a {
            self.m(a).next = b;
        }
        if self.n(b).next == b {
            self.m(b).next = a;
        }
        let x = self.n(a).next;
        if x != NONE {
            self.m(x).prev = a;
        }
        let x = self.n(b).next;
        if x != NONE {
            self.m(x).prev = b;
        }
        let x = self.n(a).prev;
        if x != NONE {
            self.m(x).next = a;
        }
        let x = self.n(b).prev;
        if x != NONE {
            self.m(x).next = b;
        }
    }

    fn increment(&mut self, node: u16) {
        if node == NONE {
            return;
        }
        let w = self.n(node).weight;
        let next = self.n(node).next;
        if next != NONE && self.n(next).weight == w {
            let lr = self.leader(node);
            if lr != NONE && lr != node {
                if lr != self.n(node).parent {
                    self.tree_swap(lr, node);
                }
                self.list_swap(lr, node);
            }
        }
        let prev = self.n(node).prev;
        if prev != NONE && self.n(prev).weight == w {
            self.set_leader(node, prev);
        } else {
            let h = self.n(node).head;
            if h != NONE {
                self.free.push(h);
            }
            self.m(node).head = NONE;
        }
        self.m(node).weight = w + 1;
        let next = self.n(node).next;
        if next != NONE && self.n(next).weight == w + 1 {
            let h = self.n(next).head;
            self.m(node).head = h;
        } else {
            let c = self.new_cell(node);
            self.m(node).head = c;
        }
        let parent = self.n(node).parent;
        if parent != NONE {
            self.increment(parent);
            if self.n(node).prev == parent {
                self.list_swap(node, parent);
                if self.leader(node) == node {
                    self.set_leader(node, parent);
                }
            }
        }
    }

    /// Accounts one occurrence of `s` (huffman.c `Huff_addRef`).
    pub fn add_ref(&mut self, s: u8) {
        let existing = self.leaf[s as usize];
        if existing != NONE {
            self.increment(existing);
            return;
        }
        let nyt = self.nyt;
        // Internal node I, inserted after NYT.
        let i = self.new_node(Node { weight: 1, ..EMPTY });
        let old_next = self.n(nyt).next;
        self.m(i).next = old_next;
        let head = if old_next != NONE && self.n(old_next).weight == 1 {
            self.n(old_next).head
        } else {
            self.new_cell(i)
        };
        if old_next != NONE {
            self.m(old_next).prev = i;
        }
        self.m(i).head = head;
        self.m(i).prev = nyt;
        self.m(nyt).next = i;
        // Leaf L, inserted after NYT (before I), in I's block.
        let l = self.new_node(Node {
            weight: 1,
            sym: s as u16,
            ..EMPTY
        });
        self.m(l).next = i;
        self.m(i).prev = l;
        self.m(l).head = head;
        self.m(l).prev = nyt;
        self.m(nyt).next = l;
        // I takes NYT's place in the tree.
        let p = self.n(nyt).parent;
        if p != NONE {
            if self.n(p).left == nyt {
                self.m(p).left = i;
            } else {
                self.m(p).right = i;
            }
        } else {
            self.root = i;
        }
        self.m(i).right = l;
        self.m(i).left = nyt;
        self.m(i).parent = p;
        self.m(nyt).parent = i;
        self.m(l).parent = i;
        self.leaf[s as usize] = l;
        self.increment(p);
    }

    /// Decodes one symbol by walking from the root; `None` when the bits run out.
    pub fn decode(&self, bits: &mut LsbBits<'_>) -> Option<u16> {
        let mut node = self.root;
        let mut guard = 0;
        while self.n(node).sym == INTERNAL {
            let b = bits.bit()?;
            node = if b == 1 {
                self.n(node).right
            } else {
                self.n(node).left
            };
            guard += 1;
            if node == NONE || guard > 600 {
                return None;
            }
        }
        Some(self.n(node).sym)
    }

    /// The code of leaf `sym` (0..=256) as (bits in stream order from bit 0, length).
    fn code_of(&self, sym: u16) -> Option<(u32, u32)> {
        let mut node = if sym == NYT {
            self.nyt
        } else {
            *self.leaf.get(sym as usize)?
        };
        if node == NONE {
            return None;
        }
        let mut rev: Vec<u8> = Vec::new();
        while self.n(node).parent != NONE {
            let p = self.n(node).parent;
            rev.push(u8::from(self.n(p).right == node));
            node = p;
        }
        let mut code = 0u32;
        for (k, b) in rev.iter().rev().enumerate() {
            code |= (*b as u32) << k;
        }
        Some((code, rev.len() as u32))
    }
}

/// A reader of single bits, least significant bit of each byte first (huffman.c `get_bit`).
pub struct LsbBits<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl LsbBits<'_> {
    pub fn bit(&mut self) -> Option<u8> {
        let byte = *self.data.get(self.pos >> 3)?;
        let b = (byte >> (self.pos & 7)) & 1;
        self.pos += 1;
        Some(b)
    }
}

/// Decompresses the adaptive-Huffman region of a `connect` packet (huffman.c `Huff_Decompress`):
/// `region` starts at the big-endian 16-bit length. Returns the bytes and whether all of them were decoded
/// before the data ran out.
pub fn decompress_adaptive(region: &[u8], max_len: usize) -> (Vec<u8>, bool) {
    let n = match region {
        [a, b, ..] => u16::from_be_bytes([*a, *b]) as usize,
        _ => return (Vec::new(), false),
    };
    let n = n.min(max_len);
    let mut out = Vec::with_capacity(n);
    let mut tree = Adaptive::new();
    let mut bits = LsbBits {
        data: region,
        pos: 16,
    };
    while out.len() < n {
        let Some(sym) = tree.decode(&mut bits) else {
            return (out, false);
        };
        let byte = if sym == NYT {
            let mut v = 0u8;
            for _ in 0..8 {
                let Some(b) = bits.bit() else {
                    return (out, false);
                };
                v = (v << 1) | b;
            }
            v
        } else {
            sym as u8
        };
        out.push(byte);
        tree.add_ref(byte);
    }
    (out, true)
}

/// Decoding table of the static tree: indexed by the next 11 stream bits (first bit = bit 0),
/// each entry = symbol (0..=256) | code length << 9.
pub struct StaticTable {
    pub lookup: Box<[u16; 1 << MAX_CODE_BITS]>,
    /// Code (stream order) and length of every symbol, for the encoder used by tests.
    pub codes: [(u32, u32); 257],
}

/// Codes of the adaptive model fed `msg_hData` as `MSG_initHuffman` does: 1,053,340 updates.
pub fn adaptive_static_codes() -> [(u32, u32); 257] {
    let mut t = Adaptive::new();
    for (s, &w) in MSG_HDATA.iter().enumerate() {
        for _ in 0..w {
            t.add_ref(s as u8);
        }
    }
    let mut codes = [(0u32, 0u32); 257];
    for (sym, c) in codes.iter_mut().enumerate() {
        *c = t.code_of(sym as u16).unwrap_or((0, 0));
    }
    codes
}

fn parse_code(s: &str) -> (u32, u32) {
    let mut code = 0u32;
    for (k, ch) in s.bytes().enumerate() {
        code |= u32::from(ch == b'1') << k;
    }
    (code, s.len() as u32)
}

/// Builds the lookup table from `STATIC_CODES` (cheap, so start-up costs nothing).
fn build_static() -> StaticTable {
    let mut codes = [(0u32, 0u32); 257];
    for (sym, c) in STATIC_CODES.iter().enumerate() {
        codes[sym] = parse_code(c);
    }
    codes[256] = parse_code(NYT_CODE);
    let mut lookup = Box::new([0u16; 1 << MAX_CODE_BITS]);
    for (sym, &(code, len)) in codes.iter().enumerate() {
        if len == 0 || len > MAX_CODE_BITS {
            continue;
        }
        let step = 1usize << len;
        let mut idx = code as usize;
        while idx < lookup.len() {
            lookup[idx] = sym as u16 | ((len as u16) << 9);
            idx += step;
        }
    }
    StaticTable { lookup, codes }
}

/// The static message tree's table, built once per process.
pub fn static_table() -> &'static StaticTable {
    static TABLE: OnceLock<StaticTable> = OnceLock::new();
    TABLE.get_or_init(build_static)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn code_string(code: u32, len: u32) -> String {
        (0..len)
            .map(|k| if code >> k & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    #[test]
    fn static_codes_match_the_adaptive_model() {
        // The adaptive model fed msg_hData (`MSG_initHuffman`) must give exactly the codes the
        // lookup table is built from.
        let built = adaptive_static_codes();
        assert_eq!(built, static_table().codes);
        let t = static_table();
        for (s, want) in STATIC_CODES.iter().enumerate() {
            let (c, l) = t.codes[s];
            assert_eq!(code_string(c, l), *want, "symbol {s:#x}");
        }
        let (c, l) = t.codes[256];
        assert_eq!(code_string(c, l), "00000000100", "NYT");
    }

    #[test]
    fn table_has_no_holes() {
        let t = static_table();
        assert!(t.lookup.iter().all(|&e| e >> 9 != 0));
    }

    /// Test-side encoder for the adaptive coder (huffman.c `Huff_Compress`).
    pub fn compress_adaptive(text: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; 2 + text.len() * 2 + 4];
        out[0] = (text.len() >> 8) as u8;
        out[1] = text.len() as u8;
        let mut pos = 16usize;
        let mut put = |out: &mut Vec<u8>, b: u32| {
            if b == 1 {
                out[pos >> 3] |= 1 << (pos & 7);
            }
            pos += 1;
        };
        let mut t = Adaptive::new();
        for &c in text {
            if t.leaf[c as usize] == NONE {
                if t.root != t.nyt {
                    let (code, len) = t.code_of(NYT).unwrap();
                    for k in 0..len {
                        put(&mut out, code >> k & 1);
                    }
                }
                for k in (0..8).rev() {
                    put(&mut out, (c as u32) >> k & 1);
                }
            } else {
                let (code, len) = t.code_of(c as u16).unwrap();
                for k in 0..len {
                    put(&mut out, code >> k & 1);
                }
            }
            t.add_ref(c);
        }
        let _ = &mut put;
        out
    }

    #[test]
    fn adaptive_roundtrip() {
        let text = b"\"\\name\\UnnamedPlayer\\rate\\25000\\protocol\\71\"";
        let enc = compress_adaptive(text);
        let (dec, ok) = decompress_adaptive(&enc, 16384);
        assert!(ok);
        assert_eq!(dec, text);
    }
}
