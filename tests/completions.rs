//! Shell completions and man pages follow the parser: every command and every option of the
//! clap definitions (`cli::Cli`) is in the bash, zsh and fish scripts, in that command's man
//! page, and every value of a value list too. An option added without them following fails
//! here; so does one the generators drop (hidden, or a hand-written script).

use std::process::Command;

use clap::CommandFactory;
use clap_complete::Shell;
use gamedissect::cli::Cli;
use gamedissect::cli::generate::{completions, man_pages};

const BIN: &str = env!("CARGO_BIN_EXE_gamedissect");

fn text(shell: Shell) -> String {
    String::from_utf8(completions(shell)).unwrap()
}

/// The lines from the first one that is `start` (indentation aside) to the next one that
/// begins with `end`, without either.
fn section(script: &str, start: &str, end: &str) -> String {
    let mut lines = script.lines().skip_while(|l| l.trim() != start);
    assert!(lines.next().is_some(), "no {start:?}");
    let own: Vec<&str> = lines.take_while(|l| !l.trim().starts_with(end)).collect();
    own.join("\n")
}

/// How roff writes an option: `-` escaped.
fn roff(s: &str) -> String {
    s.replace('-', "\\-")
}

/// The commands of the parser (without clap's `help`), each with its long options, short
/// options, and the values of each option that takes a list.
struct Sub {
    name: String,
    longs: Vec<String>,
    shorts: Vec<char>,
    values: Vec<(String, Vec<String>)>,
}

fn subcommands() -> Vec<Sub> {
    let mut cmd = Cli::command();
    cmd.build();
    cmd.get_subcommands()
        .filter(|s| s.get_name() != "help")
        .map(|s| {
            assert!(!s.has_subcommands(), "nested commands: walk them here too");
            let args: Vec<_> = s.get_arguments().filter(|a| !a.is_positional()).collect();
            Sub {
                name: s.get_name().to_string(),
                longs: args
                    .iter()
                    .filter_map(|a| a.get_long())
                    .map(String::from)
                    .collect(),
                shorts: args.iter().filter_map(|a| a.get_short()).collect(),
                values: args
                    .iter()
                    .filter(|a| !a.get_possible_values().is_empty() && a.get_long().is_some())
                    .map(|a| {
                        let values = a.get_possible_values();
                        let names = values.iter().map(|v| v.get_name().to_string()).collect();
                        (a.get_long().unwrap().to_string(), names)
                    })
                    .collect(),
            }
        })
        .collect()
}

#[test]
fn the_parser_has_the_commands_and_options_the_test_walks() {
    let subs = subcommands();
    let names: Vec<&str> = subs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "dissect",
            "stats",
            "events",
            "tracks",
            "protocols",
            "fields",
            "diff",
            "demo",
            "report",
            "annotate",
            "completions",
            "man"
        ]
    );
    let dissect = &subs[0];
    assert!(dissect.longs.iter().any(|l| l == "decode-as"));
    assert!(dissect.shorts.contains(&'Y'));
    let format = dissect.values.iter().find(|(l, _)| l == "format").unwrap();
    assert_eq!(format.1, ["summary", "tree", "json", "fields", "parquet"]);
    let shells = &subs[10].values;
    assert!(shells.is_empty(), "the shell is positional: {shells:?}");
}

#[test]
fn bash_completes_every_command_and_option() {
    let script = text(Shell::Bash);
    let top = section(&script, "gamedissect)", "fi");
    for sub in subcommands() {
        assert!(
            top.split_whitespace()
                .any(|w| w == sub.name || w == format!("{}\"", sub.name))
        );
        let own = section(
            &script,
            &format!("gamedissect__subcmd__{})", sub.name),
            "gamedissect__",
        );
        let opts = own.lines().next().unwrap();
        for long in &sub.longs {
            assert!(
                opts.split(['"', ' ']).any(|w| w == format!("--{long}")),
                "{} --{long}",
                sub.name
            );
        }
        for short in &sub.shorts {
            assert!(
                opts.split(['"', ' ']).any(|w| w == format!("-{short}")),
                "{} -{short}",
                sub.name
            );
        }
        for (long, values) in &sub.values {
            let list = format!("compgen -W \"{}\"", values.join(" "));
            assert!(own.contains(&list), "{} --{long}: {list}", sub.name);
        }
    }
}

#[test]
fn zsh_completes_every_command_and_option() {
    let script = text(Shell::Zsh);
    for sub in subcommands() {
        assert!(
            script.contains(&format!("\n'{}:", sub.name)),
            "{}",
            sub.name
        );
        let own = section(&script, &format!("({})", sub.name), "&& ret=0");
        for long in &sub.longs {
            let forms = [
                format!("'--{long}["),
                format!("'--{long}=["),
                format!("'*--{long}=["),
                // An option with conflicts: `'(--other)--long[…]'`.
                format!(")--{long}["),
            ];
            assert!(
                forms.iter().any(|f| own.contains(f.as_str())),
                "{} --{long}",
                sub.name
            );
        }
        for (long, values) in &sub.values {
            let plain = format!("({})'", values.join(" "));
            let described = values.iter().all(|v| {
                own.contains(&format!("\n{v}\\:"))
                    || own.contains(&format!("({v}\\:"))
                    || own.contains(&format!(" {v}\\:"))
            });
            assert!(own.contains(&plain) || described, "{} --{long}", sub.name);
        }
    }
}

#[test]
fn fish_completes_every_command_and_option() {
    let script = text(Shell::Fish);
    for sub in subcommands() {
        let needs = format!("__fish_gamedissect_needs_command\" -f -a \"{}\"", sub.name);
        assert!(script.contains(&needs), "{}", sub.name);
        let own: Vec<&str> = script
            .lines()
            .filter(|l| {
                l.contains(&format!(
                    "__fish_gamedissect_using_subcommand {}\"",
                    sub.name
                ))
            })
            .collect();
        for long in &sub.longs {
            let word = format!("-l {long}");
            let found = own
                .iter()
                .any(|l| l.split(" -").any(|w| format!("-{w}").trim_end() == word));
            assert!(found, "{} --{long}", sub.name);
        }
        for (long, values) in &sub.values {
            // A value list runs over several lines, up to the next `complete`.
            let cond = format!("__fish_gamedissect_using_subcommand {}\"", sub.name);
            let entry = script
                .split("\ncomplete ")
                .find(|e| e.contains(&cond) && e.contains(&format!(" -l {long} ")))
                .unwrap_or_else(|| panic!("{} --{long}", sub.name));
            for v in values {
                let listed = [format!("\"{v}\\t"), format!("\n{v}\\t")];
                let found = listed.iter().any(|x| entry.contains(x.as_str()));
                assert!(found, "{} --{long} {v}", sub.name);
            }
        }
    }
}

#[test]
fn every_command_has_a_man_page_with_every_option() {
    let pages = man_pages();
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    let subs = subcommands();
    let mut want = vec!["gamedissect.1".to_string()];
    want.extend(subs.iter().map(|s| format!("gamedissect-{}.1", s.name)));
    assert_eq!(names, want);
    let text = |i: usize| String::from_utf8(pages[i].1.clone()).unwrap();
    let top = text(0);
    for (i, sub) in (1..).zip(&subs) {
        assert!(
            top.contains(&format!("\ngamedissect\\-{}(1)\n", roff(&sub.name))),
            "{}",
            sub.name
        );
        let page = text(i);
        assert!(
            page.contains(&format!(".TH gamedissect-{} 1", sub.name)),
            "{}",
            sub.name
        );
        assert!(page.contains(concat!("\"gamedissect ", env!("CARGO_PKG_VERSION"), "\"")));
        let options = &page[page
            .find(".SH OPTIONS")
            .unwrap_or_else(|| panic!("{}", sub.name))..];
        for long in &sub.longs {
            let entry = format!("\\fB\\-\\-{}\\fR", roff(long));
            let listed = options
                .lines()
                .any(|l| l.starts_with(&entry) || l.contains(&format!(", {entry}")));
            assert!(listed, "{} --{long}", sub.name);
        }
        for short in &sub.shorts {
            let entry = format!("\\fB\\-{short}\\fR, ");
            assert!(
                options.lines().any(|l| l.starts_with(&entry)),
                "{} -{short}",
                sub.name
            );
        }
        for (long, values) in &sub.values {
            for v in values {
                assert!(
                    options.contains(&format!(".IP \\(bu 2\n{v}")),
                    "{} --{long} {v}",
                    sub.name
                );
            }
        }
    }
}

#[test]
fn the_commands_write_what_the_generators_make() {
    for (shell, name) in [
        (Shell::Bash, "bash"),
        (Shell::Zsh, "zsh"),
        (Shell::Fish, "fish"),
        (Shell::Elvish, "elvish"),
        (Shell::PowerShell, "powershell"),
    ] {
        let run = Command::new(BIN)
            .args(["completions", name])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0));
        assert_eq!(run.stdout, completions(shell), "{name}");
        assert!(run.stdout.len() > 1000, "{name}");
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("man-pages");
    let _ = std::fs::remove_dir_all(&dir);
    let run = Command::new(BIN)
        .args(["man", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    for (name, page) in man_pages() {
        assert_eq!(std::fs::read(dir.join(&name)).unwrap(), page, "{name}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), man_pages().len());
    let run = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
}
