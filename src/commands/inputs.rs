//! The captures a run over several inputs reads: each file named, and the capture files found
//! under each directory named (docs/output.md, "Several captures").
//!
//! A directory is walked recursively and its files are taken by their extension, not sniffed:
//! a folder of captures also holds notes, logs and checksums, which would each cost an open and
//! a warning, and a name says what a file is meant to be. A file named on the command line is
//! read whatever its name. What a directory gives is sorted by path, byte by byte (as
//! `LC_ALL=C sort` orders `find`'s output), so the order does not depend on the file system;
//! the named inputs keep their order. Symbolic links to directories are not followed and the
//! walk stops at [`MAX_DEPTH`], so a link loop or a deep tree cannot make it run away; one to
//! a capture file is taken like the file.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Directory levels walked below a directory named on the command line.
pub const MAX_DEPTH: usize = 32;

/// Capture files one run takes at most: past it the run stops before decoding anything (the
/// list of names is the only thing that grows with the count).
pub const MAX_CAPTURES: usize = 1_000_000;

/// One capture to decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub path: PathBuf,
    /// The path as given or found, as records and messages name it (lossy where the path is
    /// not UTF-8).
    pub name: String,
}

impl Capture {
    fn new(path: PathBuf) -> Capture {
        let name = path.to_string_lossy().into_owned();
        Capture { path, name }
    }
}

/// The captures of `inputs`, and an error message for each directory (or part of one) that
/// could not be read. `Err`: more than [`MAX_CAPTURES`] files.
pub fn expand(inputs: &[String]) -> Result<(Vec<Capture>, Vec<String>), String> {
    let (mut captures, mut errors) = (Vec::new(), Vec::new());
    for input in inputs {
        let path = PathBuf::from(input);
        if !path.is_dir() {
            captures.push(Capture {
                path,
                name: input.clone(),
            });
        } else {
            let mut found = Vec::new();
            walk(&path, 0, &mut found, &mut errors)?;
            let bytes = |p: &PathBuf| p.as_os_str().as_encoded_bytes().to_owned();
            found.sort_by_cached_key(bytes);
            captures.extend(found.into_iter().map(Capture::new));
        }
        if captures.len() > MAX_CAPTURES {
            return Err(too_many());
        }
    }
    Ok((captures, errors))
}

fn too_many() -> String {
    format!("more than {MAX_CAPTURES} capture files: name fewer directories")
}

/// Appends the capture files under `dir` to `found`, unsorted.
fn walk(
    dir: &Path,
    depth: usize,
    found: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
) -> Result<(), String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(unreadable(dir, &e));
            return Ok(());
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                errors.push(unreadable(dir, &e));
                continue;
            }
        };
        let path = entry.path();
        // The entry's own type: a link is not followed to a directory.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth + 1 < MAX_DEPTH {
                walk(&path, depth + 1, found, errors)?;
            } else {
                errors.push(format!(
                    "{}: deeper than {MAX_DEPTH} directory levels: not read",
                    crate::text::escaped(&path.to_string_lossy())
                ));
            }
        } else if is_capture_name(entry.file_name().as_ref()) && (kind.is_file() || path.is_file())
        {
            found.push(path);
            if found.len() > MAX_CAPTURES {
                return Err(too_many());
            }
        }
    }
    Ok(())
}

fn unreadable(dir: &Path, e: &std::io::Error) -> String {
    let dir = crate::text::escaped(&dir.to_string_lossy()).into_owned();
    let e = crate::text::escaped(&e.to_string()).into_owned();
    format!("{dir}: cannot read the directory: {e}")
}

/// Whether a file name ends in an extension of a format the capture reader reads: `.pcap`,
/// `.pcapng`, `.cap`, `.dmp` (tcpdump's and Windows tools' names for pcap), and a Quake 3
/// demo's `.dm_` and protocol number (`.dm_68`); any case.
pub fn is_capture_name(name: &OsStr) -> bool {
    let name = name.as_encoded_bytes();
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else {
        return false;
    };
    let ext = name[dot + 1..].to_ascii_lowercase();
    match ext.as_slice() {
        b"pcap" | b"pcapng" | b"cap" | b"dmp" => true,
        [b'd', b'm', b'_', digits @ ..] => {
            !digits.is_empty() && digits.len() <= 3 && digits.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_by_extension() {
        for yes in [
            "a.pcap",
            "B.PCAPNG",
            "x.cap",
            "y.dmp",
            "p_1.2-3_q3dm17.dm_68",
            "d.dm_71",
        ] {
            assert!(is_capture_name(OsStr::new(yes)), "{yes}");
        }
        for no in [
            "pcap",
            "a.pcap.gz",
            "notes.txt",
            "a.dm_",
            "a.dm_x",
            "a.dm_1234",
            ".pcap2",
        ] {
            assert!(!is_capture_name(OsStr::new(no)), "{no}");
        }
    }
}
