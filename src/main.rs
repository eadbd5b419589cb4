//! The `gamedissect` program: the command line's settings, run.

use std::process::ExitCode;

use gamedissect::{cli, run};

fn main() -> ExitCode {
    match cli::parse() {
        Ok(settings) => run::run(settings),
        Err(code) => code,
    }
}
