//! Text made safe for the page: shared by the HTML and the SVG charts inside it.

/// Text for HTML and XML: the five special characters as entities, control and bidirectional
/// characters in the visible form every text writer gives them ([`crate::text::push_escaped`];
/// a newline and a tab stay, as white space).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c => crate::text::push_escaped_char(&mut out, c),
        }
    }
    out
}
