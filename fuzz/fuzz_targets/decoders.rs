//! Every decoder with a flow history in both directions, so stateful paths (Quake 3's delta and
//! XOR state, SRB2's release detection, GameStudio's dialect) are reached. The first byte picks
//! the protocol and the preference variant; the rest is split by `testkit::synth::flow_history`.
#![no_main]

use gamedissect::protocols;
use testkit::synth::{drive_decoder, flow_history, pref_variants};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let registry = protocols::all();
    let prefs = pref_variants();
    let protocol = registry[first as usize % registry.len()];
    let pref = &prefs[(first as usize / registry.len()) % prefs.len()];
    let history = flow_history(rest);
    let records = drive_decoder(protocol, pref, &history, None);
    assert!(records >= history.len());
});
