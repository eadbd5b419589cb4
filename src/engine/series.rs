//! Flows claimed by the weight of several datagrams ([`crate::proto::Series`]).
//!
//! A flow nothing claims at its first datagram (off the foreign ports, heuristics on), or that
//! a likely probe claims for a protocol with a series, is watched by that protocol's
//! [`crate::proto::Series`]: its judge weighs each of the flow's first datagrams (up to
//! [`SERIES_DATAGRAMS`]), and the engine holds the flow's records meanwhile (the trial of
//! [`super::waiting::Waiting`]). A claim decodes every held datagram from the first, in order,
//! as if the decoder had been chosen at the first, and `stats` gives the judge's basis as the
//! flow's `decoder` fact; a likely choice the judge confirms, or cannot judge, is made as it
//! would have been. A refutation, no verdict, or a hold past the engine's bounds leaves a flow
//! nothing chose plain UDP, exactly as first shown (settled at its 8th datagram).

use super::choice::{Choice, watchable};
use super::flows::{Flow, Watch};
use super::overheard::Overheard;
use super::waiting::Queue;
use super::{Config, decode_into, detail_for, heard_by};
use crate::net;
use crate::proto::{ChosenBy, Confidence, Datagram, Judgement, Protocol, RoleSource};
use crate::toolkit::udp as udpf;

/// Datagrams a judge may weigh before its watch ends undecided: a mid-session capture may open
/// on a burst from one end (a Quake 3 server sent 9 snapshots before its stalled client's next
/// move), so more than the 8 probes; few enough that the records held meanwhile are a fraction
/// of a second of a game flow.
pub const SERIES_DATAGRAMS: u8 = 32;

/// Weighs a datagram of a flow on trial, or at its first datagram puts it on trial; `chosen` is
/// what the rules, probes and ports chose for it now (`None` past its probes). Returns the
/// choice to make now, if any, with the judge's basis when the judge made it. A flow nothing
/// chose, or that a likely probe chose for a protocol with a series, is watched from its first
/// datagram. The likely choice is made at once and stands unless the judge tells the roles
/// otherwise; a flow nothing chose gives way to a later choice. The watch ends with the judge's
/// verdict, or undecided after [`SERIES_DATAGRAMS`].
pub(super) fn weigh(
    f: &mut Flow,
    protocols: &[&'static dyn Protocol],
    config: &Config,
    u: &net::Udp<'_>,
    chosen: Option<Choice>,
) -> Option<(Choice, Option<String>)> {
    if f.datagrams == 0 {
        f.watch = start(protocols, config, u, chosen);
    }
    let as_chosen = chosen.map(|c| (c, None));
    let Some(w) = f.watch.as_mut() else {
        return as_chosen;
    };
    if w.likely.is_none() && chosen.is_some() {
        f.watch = None;
        return as_chosen;
    }
    let judgement = w.judge.weigh(u.payload, u.src == w.first);
    w.left -= 1;
    let (protocol, first, likely) = (w.protocol, w.first, w.likely);
    if judgement != Judgement::Undecided || w.left == 0 {
        f.watch = None;
    }
    let Judgement::Claimed {
        server_is_first,
        basis,
    } = judgement
    else {
        return as_chosen;
    };
    let other = if u.src == first { u.dst } else { u.src };
    let (server, client) = if server_is_first {
        (first, other)
    } else {
        (other, first)
    };
    if likely.is_some_and(|c| c.server == server) {
        return as_chosen;
    }
    let choice = Choice {
        protocol,
        chosen_by: ChosenBy::Series,
        server,
        client,
        role_source: RoleSource::Content,
    };
    Some((choice, Some(basis)))
}

/// The watch a flow's first datagram opens: for a flow nothing chose, the first protocol whose
/// series takes the datagram; for one a likely probe chose, that protocol's.
fn start(
    protocols: &[&'static dyn Protocol],
    config: &Config,
    u: &net::Udp<'_>,
    chosen: Option<Choice>,
) -> Option<Box<Watch>> {
    let likely = match chosen {
        None if watchable(config, u.src, u.dst) => None,
        Some(c) if c.chosen_by == ChosenBy::Probe(Confidence::Likely) => Some(c),
        _ => return None,
    };
    let watch = |(i, p): (usize, &&'static dyn Protocol)| {
        Some(Box::new(Watch {
            protocol: i,
            first: u.src,
            judge: p.series()?.watch(u.payload)?,
            likely,
            left: SERIES_DATAGRAMS,
        }))
    };
    match likely {
        Some(c) => watch((c.protocol, &protocols[c.protocol])),
        None => protocols.iter().enumerate().find_map(watch),
    }
}

/// Ends a flow's trial: decodes what it held with the decoder a claim has just given it (when
/// `claimed`), else leaves it as first shown.
pub(super) fn end(
    f: &mut Flow,
    (protocols, config): (&[&'static dyn Protocol], &Config),
    (overheard, hold): (&Overheard, &mut Queue),
    claimed: bool,
) {
    if claimed {
        replay(f, protocols, config, overheard, hold);
    } else {
        hold.end_trial(f.id);
    }
}

/// Decodes the datagrams a claimed flow held on trial, in order, with its new decoder; what
/// the decoder holds of them stays held, its releases go to `hold.releases`.
fn replay(
    f: &mut Flow,
    protocols: &[&'static dyn Protocol],
    config: &Config,
    overheard: &Overheard,
    hold: &mut Queue,
) {
    let id = f.id;
    let trial = (hold.waiting.iter_mut()).filter(|w| w.flow == id && w.trial);
    for (index, w) in (0u64..).zip(trial) {
        let direction = f.direction_to(w.dst);
        let dgram = Datagram {
            payload: &w.payload,
            truncated: w.tally.cut,
            direction,
            src: w.src,
            dst: w.dst,
            time: w.time,
            frame: w.frame,
            index_in_flow: index,
            conversations: w.conversations,
            overheard: heard_by(overheard, f, (w.src, w.dst)),
            role_source: f.role_source,
            detail: detail_for(config, w.frame, index),
        };
        decode_into(&mut w.records, f, protocols, &dgram, w.declared);
        // Settled while the judge still weighed it: it is claimed after all.
        w.notes
            .retain(|n| !std::ptr::eq(n.def, &udpf::PROBING_SETTLED));
        w.trial = false;
        w.direction = Some(direction);
        w.tally.direction = direction;
        w.held = (f.decoder.as_mut()).is_some_and(|d| d.holds_last(&mut hold.releases));
    }
}
