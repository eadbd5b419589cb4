//! Shell completions and man pages, made from the parser's own definitions ([`Cli`]), so
//! that every command and option the parser takes is in them (README "Install").
//!
//! Only text is made here; `commands` writes it, as it writes every output.

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "gamedissect", &mut script);
    script
}

/// Every man page, named as `man` finds them: `gamedissect.1` first, then
/// `gamedissect-dissect.1` and the others in the order of `--help`.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    // As clap_mangen::generate_to: `help` is not a command of its own in a manual.
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    add_pages(cmd, &mut pages);
    pages
}

fn add_pages(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) {
    let subcommands: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    // Every page names the release (a subcommand has no version of its own).
    let man = clap_mangen::Man::new(cmd).source(concat!("gamedissect ", env!("CARGO_PKG_VERSION")));
    let mut page = Vec::new();
    // Rendering into memory cannot fail.
    let _ = man.render(&mut page);
    pages.push((man.get_filename(), page));
    for sub in subcommands {
        add_pages(sub, pages);
    }
}
