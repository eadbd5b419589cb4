//! The integration tests, one module per file of `tests/` (docs/testing.md lists them), built
//! as one binary: `cargo test --test suite golden::` runs one file's tests.

#[path = "annotate.rs"]
mod annotate;
#[path = "architecture.rs"]
mod architecture;
#[path = "cli.rs"]
mod cli;
#[path = "completions.rs"]
mod completions;
#[path = "decoders_property.rs"]
mod decoders_property;
#[path = "demo.rs"]
mod demo;
#[path = "demo_input.rs"]
mod demo_input;
#[path = "diff.rs"]
mod diff;
#[path = "escape.rs"]
mod escape;
#[path = "events.rs"]
mod events;
#[path = "fields.rs"]
mod fields;
#[path = "filter.rs"]
mod filter;
#[path = "flightgear.rs"]
mod flightgear;
#[path = "foreign.rs"]
mod foreign;
#[path = "gamestudio.rs"]
mod gamestudio;
#[path = "golden.rs"]
mod golden;
#[path = "hostile.rs"]
mod hostile;
#[path = "injection.rs"]
mod injection;
#[path = "interval.rs"]
mod interval;
#[path = "live.rs"]
mod live;
#[path = "multi.rs"]
mod multi;
#[path = "parquet.rs"]
mod parquet;
#[path = "quake3.rs"]
mod quake3;
#[path = "quake3_corpus.rs"]
mod quake3_corpus;
#[path = "quake3_port.rs"]
mod quake3_port;
#[path = "quake3_wild.rs"]
mod quake3_wild;
#[path = "quake3_wild_busy.rs"]
mod quake3_wild_busy;
#[path = "quake3_wild_more.rs"]
mod quake3_wild_more;
#[path = "report.rs"]
mod report;
#[path = "schema.rs"]
mod schema;
#[path = "srb2.rs"]
mod srb2;
#[path = "tracks.rs"]
mod tracks;
#[path = "tree_focus.rs"]
mod tree_focus;
#[path = "wild/mod.rs"]
mod wild;
