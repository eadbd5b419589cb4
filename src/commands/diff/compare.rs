//! Field-by-field comparison of two corresponding messages.

use super::msg::Msg;

/// What is compared, beside the decoded fields.
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// Compare capture times (`time`), within `time_tolerance` seconds.
    pub time: bool,
    pub time_tolerance: f64,
    /// Compare addresses and ports (`src`, `dst`).
    pub addresses: bool,
    /// Field-name patterns (`*` any run, `?` one character) left out of the comparison.
    pub ignore: Vec<String>,
    /// When not empty, only names matching one of these are compared.
    pub only: Vec<String>,
    /// Per-field absolute tolerance for numbers: `(pattern, tolerance)`.
    pub tolerances: Vec<(String, f64)>,
}

/// One field that differs; `None` is "absent on that side".
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDiff {
    pub name: String,
    pub golden: Option<String>,
    pub new: Option<String>,
}

impl CompareOptions {
    /// Whether a field (its shown name, occurrence indices and all) takes part.
    pub fn wanted(&self, shown: &str) -> bool {
        if self.ignore.is_empty() && self.only.is_empty() {
            return true;
        }
        let name = strip_occurrences(shown);
        if self.ignore.iter().any(|p| glob(p, &name)) {
            return false;
        }
        self.only.is_empty() || self.only.iter().any(|p| glob(p, &name))
    }

    fn tolerance(&self, shown: &str) -> f64 {
        if self.tolerances.is_empty() {
            return 0.0;
        }
        let name = strip_occurrences(shown);
        self.tolerances
            .iter()
            .filter(|(p, _)| glob(p, &name))
            .map(|&(_, t)| t)
            .fold(0.0, f64::max)
    }

    fn same(&self, name: &str, a: &str, b: &str) -> bool {
        if a == b {
            return true;
        }
        let tol = self.tolerance(name);
        tol > 0.0
            && matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if (x - y).abs() <= tol)
    }

    /// The differences between two corresponding messages, in the golden message's field order
    /// (fields only in the new one after).
    pub fn compare(&self, g: &Msg, n: &Msg) -> Vec<FieldDiff> {
        let mut out = Vec::new();
        self.record_level(g, n, &mut out);
        // Most corresponding messages are the same: their texts say so, unparsed.
        if g.body == n.body {
            return out;
        }
        let mut new_sorted: Vec<(&str, &str)> = n
            .fields()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        new_sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut seen = vec![false; new_sorted.len()];
        for (name, gv) in g.fields() {
            let hit = new_sorted.binary_search_by(|p| p.0.cmp(name)).ok();
            if let Some(i) = hit {
                seen[i] = true;
            }
            if !self.wanted(name) {
                continue;
            }
            match hit.map(|i| new_sorted[i].1) {
                Some(nv) if self.same(name, gv, nv) => {}
                nv => out.push(FieldDiff {
                    name: name.clone(),
                    golden: Some(gv.clone()),
                    new: nv.map(str::to_string),
                }),
            }
        }
        for (k, &(name, nv)) in new_sorted.iter().enumerate() {
            if !seen[k] && self.wanted(name) {
                out.push(FieldDiff {
                    name: name.to_string(),
                    golden: None,
                    new: Some(nv.to_string()),
                });
            }
        }
        out
    }

    fn record_level(&self, g: &Msg, n: &Msg, out: &mut Vec<FieldDiff>) {
        let mut check = |name: &str, a: String, b: String, same: bool| {
            if !same {
                out.push(FieldDiff {
                    name: name.to_string(),
                    golden: Some(a),
                    new: Some(b),
                });
            }
        };
        if self.addresses {
            check("src", g.src.clone(), n.src.clone(), g.src == n.src);
            check("dst", g.dst.clone(), n.dst.clone(), g.dst == n.dst);
        }
        if self.time {
            let show = |t: Option<f64>| t.map_or("unknown".to_string(), |t| format!("{t:.6}"));
            let same = match (g.time, n.time) {
                (Some(a), Some(b)) => (a - b).abs() <= self.time_tolerance,
                (a, b) => a.is_none() && b.is_none(),
            };
            check("time", show(g.time), show(n.time), same);
        }
    }
}

/// `quake3.pair[3].key` → `quake3.pair.key`: patterns name fields, not occurrences.
fn strip_occurrences(shown: &str) -> String {
    let mut out = String::with_capacity(shown.len());
    let mut depth = 0;
    for c in shown.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A glob over a dotted name: `*` matches any run of characters (dots included), `?` one.
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(fields: &[(&str, &str)]) -> Msg {
        Msg::with_fields(fields)
    }

    #[test]
    fn globs_match_dotted_names() {
        assert!(glob("game.*", "game.snapshot.server_time"));
        assert!(glob("*.server_time", "game.snapshot.server_time"));
        assert!(glob("g?me.snapshot.*time", "game.snapshot.server_time"));
        assert!(!glob("game.usercmd.*", "game.snapshot.server_time"));
        assert!(glob("*", ""));
        assert!(!glob("a", "ab"));
    }

    #[test]
    fn one_changed_one_absent_one_added() {
        let g = msg(&[("p.a", "1"), ("p.b", "2"), ("p.c", "3")]);
        let n = msg(&[("p.a", "1"), ("p.b", "5"), ("p.d", "4")]);
        let d = CompareOptions::default().compare(&g, &n);
        let shown: Vec<_> = d
            .iter()
            .map(|f| (f.name.as_str(), f.golden.as_deref(), f.new.as_deref()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("p.b", Some("2"), Some("5")),
                ("p.c", Some("3"), None),
                ("p.d", None, Some("4"))
            ]
        );
    }

    #[test]
    fn ignore_only_and_tolerance() {
        let g = msg(&[("p.x[0].pos", "1.00"), ("p.y", "a")]);
        let n = msg(&[("p.x[0].pos", "1.04"), ("p.y", "b")]);
        let opts = CompareOptions {
            ignore: vec!["p.y".into()],
            tolerances: vec![("p.x.pos".into(), 0.05)],
            ..Default::default()
        };
        assert!(opts.compare(&g, &n).is_empty());
        let only = CompareOptions {
            only: vec!["p.x.*".into()],
            ..Default::default()
        };
        assert_eq!(only.compare(&g, &n).len(), 1);
    }

    #[test]
    fn times_and_addresses_only_when_asked() {
        let g = msg(&[]);
        let mut n = msg(&[]);
        n.time = Some(70.0);
        n.src = "c".into();
        assert!(CompareOptions::default().compare(&g, &n).is_empty());
        let opts = CompareOptions {
            time: true,
            addresses: true,
            ..Default::default()
        };
        let names: Vec<_> = opts.compare(&g, &n).into_iter().map(|d| d.name).collect();
        assert_eq!(names, vec!["src", "time"]);
        let tolerant = CompareOptions {
            time: true,
            time_tolerance: 60.0,
            ..Default::default()
        };
        assert!(tolerant.compare(&g, &n).is_empty());
    }
}
