//! The shape of the house, checked on the source itself (docs/architecture.md, "Checking the
//! shape"): no import cycle among the modules of src/, layers that point one way, and no field
//! name of a protocol outside that protocol's folder.
//!
//! The import graph is read from the text: every `use` declaration and every `crate::`, `super::`
//! or `self::` path in code (comments, string literals and test modules left out), resolved to
//! the file that defines the module it names. An item a path names inside a file's inline module
//! belongs to that file. The crate root (src/lib.rs) and its aliases (`crate::tree` for
//! `crate::toolkit::tree`) are followed to the files they stand for. A module's use of its own
//! submodules (a `mod.rs` handing on or calling what its children define) is ownership, not an
//! arrow: a child may use its parent's items, as a trait's implementations use the trait. Every
//! other import is an arrow, and no arrows may close a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The game protocols: their field names start with their folder's name.
const PROTOCOLS: [&str; 4] = ["quake3", "srb2", "flightgear", "gamestudio"];

/// One source file of the library: its module path and what it imports.
struct Module {
    file: String,
    path: Vec<String>,
    /// Inline and file child modules it declares.
    children: BTreeSet<String>,
    code: String,
    test: bool,
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` → `[a, b]`; `src/a/mod.rs` → `[a]`; `src/lib.rs` → `[]`.
fn module_path(rel: &str) -> Vec<String> {
    let trimmed = rel.strip_suffix(".rs").unwrap();
    let mut parts: Vec<String> = trimmed.split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text with comments, string and character literals blanked, so that only code is left.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            out.extend(src[i..end].chars().filter(|c| *c == '\n'));
            i = end;
        } else if b[i] == b'"' || (b[i] == b'r' && raw_string_start(&b[i..]).is_some()) {
            i = skip_string(src, i, &mut out);
        } else if b[i] == b'\'' && char_literal_len(&b[i..]).is_some() {
            i += char_literal_len(&b[i..]).unwrap();
            out.push_str("' '");
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `r"`, `r#"`, … at the start of `b`: the number of `#`.
fn raw_string_start(b: &[u8]) -> Option<usize> {
    let hashes = b[1..].iter().take_while(|c| **c == b'#').count();
    (b.get(1 + hashes) == Some(&b'"')).then_some(hashes)
}

/// Skips the string literal at `i` (plain or raw), leaving `""` and its line breaks.
fn skip_string(src: &str, i: usize, out: &mut String) -> usize {
    let b = src.as_bytes();
    let (body, close) = match raw_string_start(&b[i..]).filter(|_| b[i] == b'r') {
        Some(h) => (i + 2 + h, format!("\"{}", "#".repeat(h))),
        None => (i + 1, "\"".to_string()),
    };
    let mut j = body;
    while j < b.len() {
        if close.len() == 1 && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j..].starts_with(close.as_bytes()) {
            out.push_str("\"\"");
            out.extend(src[i..j].chars().filter(|c| *c == '\n'));
            return j + close.len();
        }
        j += 1;
    }
    b.len()
}

/// The length of a character literal at the start of `b` (not a lifetime).
fn char_literal_len(b: &[u8]) -> Option<usize> {
    if b.get(1) == Some(&b'\\') {
        let end = b[2..].iter().position(|c| *c == b'\'')?;
        return (end <= 10).then_some(end + 3);
    }
    let width = match b.get(1)? {
        c if *c < 0x80 => 1,
        c if *c >= 0xf0 => 4,
        c if *c >= 0xe0 => 3,
        _ => 2,
    };
    (b.get(1 + width) == Some(&b'\'')).then_some(width + 2)
}

/// The code without its `#[cfg(test)]` items (a block item up to its closing brace at the start
/// of a line with the same indentation; a `mod x;` line alone).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_children = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let Some(item) = lines.next() else { break };
        if let Some(name) = declared_file_module(item) {
            test_children.push(name);
            continue;
        }
        if item.trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        for l in lines.by_ref() {
            if l.trim_end() == close {
                break;
            }
        }
    }
    (out, test_children)
}

/// `mod x;` or `pub mod x;` (a child in its own file): its name.
fn declared_file_module(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t
        .strip_prefix("pub(crate) ")
        .or(t.strip_prefix("pub "))
        .unwrap_or(t);
    let name = t.strip_prefix("mod ")?.strip_suffix(';')?;
    Some(name.trim().to_string())
}

/// Inline and file child modules declared in the code.
fn declared_children(code: &str) -> BTreeSet<String> {
    let mut v = BTreeSet::new();
    for line in code.lines() {
        let t = line.trim();
        let t = t
            .strip_prefix("pub(crate) ")
            .or(t.strip_prefix("pub "))
            .unwrap_or(t);
        if let Some(rest) = t.strip_prefix("mod ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            v.insert(name);
        }
    }
    v
}

fn load() -> Vec<Module> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&root, &mut files);
    let mut modules = Vec::new();
    let mut test_paths: BTreeSet<Vec<String>> = BTreeSet::new();
    for f in files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "main.rs" {
            continue;
        }
        let src = fs::read_to_string(&f).unwrap();
        let (code, tests) = without_tests(&code_only(&src));
        let path = module_path(&rel);
        for t in tests {
            let mut p = path.clone();
            p.push(t);
            test_paths.insert(p);
        }
        modules.push(Module {
            file: format!("src/{rel}"),
            children: declared_children(&code),
            path,
            code,
            test: false,
        });
    }
    for m in &mut modules {
        m.test = test_paths.iter().any(|t| m.path.starts_with(t));
    }
    modules
}

/// Every path the code names, as written: each `use` tree expanded, then the `crate::`,
/// `super::` and `self::` paths of the code outside `use` declarations.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut chars = code.char_indices().peekable();
    let b = code.as_bytes();
    let mut start = 0;
    while let Some((i, _)) = chars.next() {
        let at_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if at_word && code[i..].starts_with("use ") {
            let end = code[i..].find(';').map_or(code.len(), |e| i + e);
            rest.push_str(&code[start..i]);
            expand_tree("", code[i + 4..end].trim(), &mut paths);
            start = end;
            while chars.peek().is_some_and(|(j, _)| *j < end) {
                chars.next();
            }
        }
    }
    rest.push_str(&code[start..]);
    let rb = rest.as_bytes();
    for key in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(p) = rest[from..].find(key) {
            let s = from + p;
            from = s + key.len();
            if s > 0
                && (rb[s - 1].is_ascii_alphanumeric() || rb[s - 1] == b'_' || rb[s - 1] == b':')
            {
                continue;
            }
            let end = rest[s..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(rest.len(), |e| s + e);
            paths.push(rest[s..end].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (a `self` leaf names its parent).
fn expand_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let join = |p: &str, s: &str| {
        if p.is_empty() {
            s.to_string()
        } else {
            format!("{p}::{s}")
        }
    };
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base = join(prefix, head);
        for part in split_top(inner) {
            expand_tree(&base, part, out);
        }
        return;
    }
    let leaf = tree.split(" as ").next().unwrap().trim();
    if leaf.is_empty() {
        return;
    }
    if leaf == "self" {
        out.push(prefix.to_string());
    } else {
        out.push(join(prefix, leaf));
    }
}

/// Splits on the commas that are not inside braces.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// The crate root's aliases: `pub use toolkit::{proto, tree}` makes `crate::proto` stand for
/// `crate::toolkit::proto`.
fn aliases(lib: &Module) -> BTreeMap<String, Vec<String>> {
    let mut v = BTreeMap::new();
    let mut paths = Vec::new();
    for line in lib.code.lines() {
        if let Some(t) = line.trim().strip_prefix("pub use ") {
            expand_tree("", t.trim_end_matches(';'), &mut paths);
        }
    }
    for p in paths {
        let segs: Vec<String> = p.split("::").map(String::from).collect();
        v.insert(segs.last().unwrap().clone(), segs);
    }
    v
}

/// The file a path leads to from `m`, when it leads into the crate.
fn resolve<'a>(
    m: &Module,
    path: &str,
    by_path: &'a BTreeMap<Vec<String>, usize>,
    aliases: &BTreeMap<String, Vec<String>>,
    modules: &[Module],
) -> Option<&'a usize> {
    let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut abs: Vec<String> = match segs.first().copied()? {
        "crate" => {
            segs.remove(0);
            Vec::new()
        }
        "self" => {
            segs.remove(0);
            m.path.clone()
        }
        "super" => {
            let mut p = m.path.clone();
            while segs.first() == Some(&"super") {
                segs.remove(0);
                p.pop();
            }
            p
        }
        first if m.children.contains(first) => m.path.clone(),
        _ => return None,
    };
    if abs.is_empty()
        && let Some(a) = segs.first().and_then(|s| aliases.get(*s))
    {
        segs.remove(0);
        abs = a.clone();
    }
    abs.extend(segs.iter().map(|s| s.to_string()));
    let _ = modules;
    (0..=abs.len())
        .rev()
        .find_map(|n| by_path.get(&abs[..n]))
        .filter(|i| !modules[**i].path.is_empty())
}

/// For each file (by index), the files it imports and the paths that tie them.
type Edges = BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>;

/// Every library file with the files it imports, and the names that tie them.
fn graph() -> (Vec<Module>, Edges) {
    let modules = load();
    let by_path: BTreeMap<Vec<String>, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.path.clone(), i))
        .collect();
    let lib = &modules[by_path[&Vec::new()]];
    let aliases = aliases(lib);
    let mut edges = Edges::new();
    for (i, m) in modules.iter().enumerate() {
        if m.test {
            continue;
        }
        for p in named_paths(&m.code) {
            if let Some(&j) = resolve(m, &p, &by_path, &aliases, &modules)
                && j != i
                && !modules[j].test
                && !modules[j].path.starts_with(&m.path)
            {
                edges.entry(i).or_default().entry(j).or_default().insert(p);
            }
        }
    }
    (modules, edges)
}

/// Strongly connected components of more than one file (Tarjan's algorithm).
fn cycles(n: usize, edges: &Edges) -> Vec<Vec<usize>> {
    struct T<'a> {
        edges: &'a Edges,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        let targets: Vec<usize> = t
            .edges
            .get(&v)
            .map(|e| e.keys().copied().collect())
            .unwrap_or_default();
        for w in targets {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_cycle_among_the_modules() {
    let (modules, edges) = graph();
    let mut report = String::new();
    for comp in cycles(modules.len(), &edges) {
        report.push_str("cycle:\n");
        for &a in &comp {
            for (&b, names) in edges.get(&a).into_iter().flatten() {
                if comp.contains(&b) {
                    let names: Vec<_> = names.iter().cloned().collect();
                    report.push_str(&format!(
                        "  {} -> {}: {}\n",
                        modules[a].file,
                        modules[b].file,
                        names.join(", ")
                    ));
                }
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// Files of `from` (a folder of src/) that import files of a folder `banned` allows none of.
fn imports_from(from: &str, banned: &dyn Fn(&str) -> bool) -> Vec<String> {
    let (modules, edges) = graph();
    let mut found = Vec::new();
    for (&a, targets) in &edges {
        if !modules[a].file.starts_with(from) {
            continue;
        }
        for (&b, names) in targets {
            if banned(&modules[b].file) {
                let names: Vec<_> = names.iter().cloned().collect();
                found.push(format!(
                    "{} -> {}: {}",
                    modules[a].file,
                    modules[b].file,
                    names.join(", ")
                ));
            }
        }
    }
    found
}

#[test]
fn the_toolkit_imports_nothing_above_it() {
    let above = imports_from("src/toolkit/", &|f| !f.starts_with("src/toolkit/"));
    assert!(above.is_empty(), "{above:#?}");
}

#[test]
fn the_engine_imports_no_protocol_but_the_registry_and_no_command() {
    let banned = |f: &str| {
        (f.starts_with("src/protocols/") && f != "src/protocols/mod.rs")
            || f.starts_with("src/commands/")
            || f == "src/cli.rs"
    };
    let found = imports_from("src/engine/", &banned);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn protocols_import_only_the_toolkit_and_their_own_folder() {
    for p in PROTOCOLS {
        let own = format!("src/protocols/{p}/");
        let found = imports_from(&own, &|f| {
            !f.starts_with(&own) && !f.starts_with("src/toolkit/")
        });
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn only_the_command_line_knows_the_commands_and_clap() {
    let (modules, edges) = graph();
    for (&a, targets) in &edges {
        let from = &modules[a].file;
        // `cli` is cli.rs and its children (src/cli/: the completions and man pages).
        if from.starts_with("src/commands/") || from.starts_with("src/cli") {
            continue;
        }
        for &b in targets.keys() {
            let to = &modules[b].file;
            assert!(
                !to.starts_with("src/commands/") && !to.starts_with("src/cli"),
                "{from} imports {to}"
            );
        }
    }
    for m in &modules {
        if !m.file.starts_with("src/cli") {
            let named = m.code.contains("clap::") || m.code.contains("clap_");
            assert!(!named, "{} names clap", m.file);
        }
    }
}

/// A string literal in `src` that begins with `"<protocol>.`: a field name, a note name or an
/// option of that protocol.
fn protocol_strings(src: &str, protocol: &str) -> usize {
    src.matches(&format!("\"{protocol}.")).count()
        + src.matches(&format!("\"expert.{protocol}.")).count()
}

#[test]
fn no_field_name_of_a_protocol_outside_its_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&root, &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = format!("src/{}", f.strip_prefix(&root).unwrap().to_string_lossy());
        // Comments go (a doc example may name a field); string literals stay.
        let src = strip_comments(&fs::read_to_string(&f).unwrap());
        for p in PROTOCOLS {
            if rel.starts_with(&format!("src/protocols/{p}/")) {
                continue;
            }
            let n = protocol_strings(&src, p);
            if n > 0 {
                found.push(format!("{rel}: {n} string(s) of {p}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The text without `//` comments (string literals kept).
fn strip_comments(src: &str) -> String {
    src.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("//") { "" } else { l }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_reader_sees_the_shapes_it_is_built_for() {
    let mut paths = Vec::new();
    expand_tree("", "super::{a, b::{self, C}, d as e}", &mut paths);
    assert_eq!(paths, ["super::a", "super::b", "super::b::C", "super::d"]);
    let code = code_only("let s = \"crate::x::Y\"; // crate::z\nuse crate::a::B;\nlet c = '{';\n");
    assert_eq!(named_paths(&code), ["crate::a::B"]);
    let (kept, tests) = without_tests(
        "fn a() {}\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod t {\n    use crate::b;\n}\nfn c() {}\n",
    );
    assert_eq!(tests, ["tests"]);
    assert_eq!(kept, "fn a() {}\nfn c() {}\n");
    let (modules, edges) = graph();
    let file = |f: &str| modules.iter().position(|m| m.file == f).unwrap();
    let arrow = |a: &str, b: &str| {
        edges
            .get(&file(a))
            .is_some_and(|e| e.contains_key(&file(b)))
    };
    // Real arrows of the house: between siblings, from a child to its parent's items, and
    // through the crate root's aliases; a parent's use of its child is none.
    assert!(arrow("src/engine/flows.rs", "src/engine/choice.rs"));
    assert!(arrow("src/output/json.rs", "src/output/mod.rs"));
    assert!(arrow("src/engine/mod.rs", "src/toolkit/proto.rs"));
    assert!(!arrow("src/engine/mod.rs", "src/engine/config.rs"));
}
