//! Sequence alignment of two message lists by message type: the longest common subsequence, so
//! that one missing, extra or moved message is one step, not a cascade.

/// One step of an alignment, by index into the two lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// The two messages correspond.
    Both(usize, usize),
    /// Only in the golden list.
    Golden(usize),
    /// Only in the new list.
    New(usize),
    /// Golden `i` is new `j` and golden `j` is new `i` (`i < j`); what lies between matches
    /// one to one (reported as `Both`).
    Swap(usize, usize),
}

/// How far apart two swapped messages may be to be seen as one swap.
const MAX_SWAP_DISTANCE: usize = 8;

/// Aligns `a` and `b` (keys compared for equality). The common prefix and suffix are matched
/// directly, so identical lists cost one pass; the rest is a dynamic-programming LCS, whose
/// table is `a.len() × b.len()` (the caller bounds both by its window).
pub fn align<K: PartialEq>(a: &[K], b: &[K]) -> Vec<Op> {
    let (mut ops, prefix) = common_prefix(a, b);
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    let suffix = ra
        .iter()
        .rev()
        .zip(rb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&ra[..ra.len() - suffix], &rb[..rb.len() - suffix]);
    ops.extend(lcs(ma, mb).into_iter().map(|op| shift(op, prefix)));
    let (sa, sb) = (prefix + ma.len(), prefix + mb.len());
    ops.extend((0..suffix).map(|k| Op::Both(sa + k, sb + k)));
    ops
}

/// The matching prefix, where two messages that trade places count as one swap.
fn common_prefix<K: PartialEq>(a: &[K], b: &[K]) -> (Vec<Op>, usize) {
    let mut ops = Vec::new();
    let mut k = 0;
    let end = a.len().min(b.len());
    while k < end {
        if a[k] == b[k] {
            ops.push(Op::Both(k, k));
            k += 1;
            continue;
        }
        let Some(d) = transposition(a, b, k) else {
            break;
        };
        ops.push(Op::Swap(k, k + d));
        ops.extend((k + 1..k + d).map(|m| Op::Both(m, m)));
        k += d + 1;
    }
    (ops, k)
}

/// The distance `d` at which `a[k]` and `a[k + d]` appear exchanged in `b`, all between alike.
fn transposition<K: PartialEq>(a: &[K], b: &[K], k: usize) -> Option<usize> {
    (1..=MAX_SWAP_DISTANCE).find(|&d| {
        k + d < a.len()
            && k + d < b.len()
            && a[k] == b[k + d]
            && a[k + d] == b[k]
            && a[k + 1..k + d] == b[k + 1..k + d]
    })
}

fn shift(op: Op, by: usize) -> Op {
    match op {
        Op::Both(i, j) => Op::Both(i + by, j + by),
        Op::Golden(i) => Op::Golden(i + by),
        Op::New(j) => Op::New(j + by),
        Op::Swap(i, j) => Op::Swap(i + by, j + by),
    }
}

/// The LCS alignment of two lists with no common prefix or suffix.
fn lcs<K: PartialEq>(a: &[K], b: &[K]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    // suffix[i][j]: LCS length of a[i..] and b[j..], row-major with m + 1 columns.
    let mut suffix = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            suffix[at(i, j)] = if a[i] == b[j] {
                suffix[at(i + 1, j + 1)] + 1
            } else {
                suffix[at(i + 1, j)].max(suffix[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n && j < m {
        if a[i] == b[j] {
            ops.push(Op::Both(i, j));
            i += 1;
            j += 1;
        } else if suffix[at(i + 1, j)] >= suffix[at(i, j + 1)] {
            ops.push(Op::Golden(i));
            i += 1;
        } else {
            ops.push(Op::New(j));
            j += 1;
        }
    }
    ops.extend((i..n).map(Op::Golden));
    ops.extend((j..m).map(Op::New));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use Op::*;

    #[test]
    fn identical_lists_pair_one_to_one() {
        assert_eq!(
            align(&[1, 2, 3], &[1, 2, 3]),
            vec![Both(0, 0), Both(1, 1), Both(2, 2)]
        );
    }

    #[test]
    fn one_missing_one_extra_is_one_step_each() {
        assert_eq!(
            align(&[1, 2, 3, 4], &[1, 3, 4]),
            vec![Both(0, 0), Golden(1), Both(2, 1), Both(3, 2)]
        );
        assert_eq!(
            align(&[1, 2, 3], &[1, 2, 9, 3]),
            vec![Both(0, 0), Both(1, 1), New(2), Both(2, 3)]
        );
    }

    #[test]
    fn two_messages_trading_places_are_one_swap() {
        assert_eq!(
            align(&[1, 2, 3, 4], &[1, 3, 2, 4]),
            vec![Both(0, 0), Swap(1, 2), Both(3, 3)]
        );
        assert_eq!(
            align(&[1, 2, 5, 3, 4], &[1, 3, 5, 2, 4]),
            vec![Both(0, 0), Swap(1, 3), Both(2, 2), Both(4, 4)]
        );
    }

    #[test]
    fn empty_sides() {
        assert_eq!(align::<u8>(&[], &[]), vec![]);
        assert_eq!(align(&[1, 2], &[]), vec![Golden(0), Golden(1)]);
        assert_eq!(align(&[], &[7]), vec![New(0)]);
    }
}
