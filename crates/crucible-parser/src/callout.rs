//! Callouts in block quotes: `> [!kind] title` then `> body` lines.

use crucible_core::Callout;

/// Strips a block quote's `>` markers: up to three spaces, `>`, one optional
/// space. Lazy continuation lines (no `>`) are kept as they are.
fn unquote(line: &str) -> &str {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return line;
    }
    match t.strip_prefix('>') {
        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
        None => line,
    }
}

/// Reads a block quote as a callout; `None` when its first line is not
/// `[!kind]` (a plain quote, kept as prose).
pub(crate) fn parse(quote: &str) -> Option<Callout> {
    let mut lines = quote.lines().map(unquote);
    let first = lines.next()?.trim_start();
    let rest = first.strip_prefix("[!")?;
    let close = rest.find(']')?;
    let kind = &rest[..close];
    if kind.is_empty()
        || !kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let mut after = &rest[close + 1..];
    let fold = match after.chars().next() {
        Some(c @ ('+' | '-')) => {
            after = &after[1..];
            Some(c)
        }
        _ => None,
    };
    Some(Callout {
        kind: kind.to_owned(),
        fold,
        title: after.trim().to_owned(),
        body: lines.map(str::to_owned).collect(),
    })
}

pub(crate) fn write(c: &Callout, out: &mut String) {
    out.push_str("> [!");
    out.push_str(&c.kind);
    out.push(']');
    if let Some(f) = c.fold {
        out.push(f);
    }
    if !c.title.is_empty() {
        out.push(' ');
        out.push_str(&c.title);
    }
    for line in &c.body {
        out.push_str(if line.is_empty() { "\n>" } else { "\n> " });
        out.push_str(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kind_title_fold_and_body() {
        let c = parse("> [!subagent]- @coder@1.0 (m)\n> mode: link\n>\n>   indented").unwrap();
        assert_eq!(c.kind, "subagent");
        assert_eq!(c.fold, Some('-'));
        assert_eq!(c.title, "@coder@1.0 (m)");
        assert_eq!(c.body, ["mode: link", "", "  indented"]);
        let mut out = String::new();
        write(&c, &mut out);
        assert_eq!(parse(&out).unwrap(), c);
    }

    #[test]
    fn plain_quotes_are_not_callouts() {
        assert!(parse("> just a quote").is_none());
        assert!(parse("> [!] empty").is_none());
        assert!(parse("> [!no spaces allowed]").is_none());
    }
}
