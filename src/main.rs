//! The `gamedissect` program: the command line's settings, run.

use std::process::ExitCode;

use gamedissect::{cli, commands};

fn main() -> ExitCode {
    match cli::parse() {
        Ok(settings) => commands::run(settings),
        Err(code) => code,
    }
}
