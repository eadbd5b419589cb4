//! The read → decode → write loop and in-memory rendering, shared by `cli` and `parallel`.
//!
//! (Transitional: the definitions still live in `cli`; this is the path tests, benches and fuzz
//! targets use.)

pub use crate::cli::{Outcome, OutputFormat, render, run_capture, run_capture_each, stats_of};
