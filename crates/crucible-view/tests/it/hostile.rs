//! Sessions written to break out of the page: every way text could turn
//! into markup or script.

use std::collections::HashMap;

use crate::{Directory, page_of};

const HOSTILE: &str = r#"---
type: session
session_id: 2026-01-01-hostile
started: 2026-01-01T00:00:00Z
status: completed
title: "</title><script>alert('title')</script>"
model: "<img src=x onerror=alert(1)>"
channel: "\"><script>alert(2)</script>"
---

# </title><script>alert('title')</script>

<script>alert('preamble')</script>

## Phase <b onclick=alert(3)>x</b> @evil@1.0 #chan

<iframe src="https://evil.example"></iframe>

See [[</a><script>alert(13)</script>]] and [[x" onmouseover="alert(16)|label<script>]].

[click](javascript:alert(4)) [data](data:text/html,<script>alert(5)</script>) ![pixel](https://evil.example/p.png)

**Tool calls:**
- `bash <script>alert(6)</script>` → </li><script>alert(7)</script>
- `curl "x" onmouseover="alert(8)` → ✗ <svg onload=alert(9)>

> [!decision" onmouseover="alert(10)] </div><script>alert(11)</script>
> <style>body{display:none}</style>

> [!subagent] @x@1 (<script>alert(12)</script>)
> mode: link
> [[2026-01-01-gone]]
> Summary: <script>alert(14)</script>

```tasks
[{"id":"1","content":"<script>alert(15)</script>","status":"pending"}]
```
"#;

/// Every tag of the page (each `<` in it opens one: text `<` is
/// `&lt;`), as its name and its attributes' names and values.
fn tags(page: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').map_or(rest.len(), |c| c + open);
        let inside = rest[open + 1..close.max(open + 1)].trim_start_matches('/');
        rest = rest.get(close + 1..).unwrap_or("");
        if inside.starts_with('!') {
            continue;
        }
        let (name, mut attrs) = inside.split_once(' ').unwrap_or((inside, ""));
        let mut parsed = Vec::new();
        while !attrs.trim().is_empty() {
            attrs = attrs.trim_start();
            let end = attrs.find(['=', ' ']).unwrap_or(attrs.len()).max(1);
            let key = attrs[..end].to_owned();
            attrs = &attrs[end..];
            let value = if let Some(v) = attrs.strip_prefix("=\"") {
                let q = v.find('"').unwrap_or(v.len());
                attrs = v.get(q + 1..).unwrap_or("");
                v[..q].to_owned()
            } else {
                String::new()
            };
            parsed.push((key, value));
        }
        out.push((name.to_ascii_lowercase(), parsed));
    }
    out
}

const TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "main",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "dl",
    "div",
    "dt",
    "dd",
    "section",
    "a",
    "span",
    "code",
    "p",
    "ul",
    "ol",
    "li",
    "details",
    "summary",
    "pre",
    "aside",
    "small",
    "strong",
    "em",
    "del",
    "blockquote",
    "hr",
    "br",
    "input",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
];
const ATTRS: &[&str] = &[
    "lang",
    "charset",
    "http-equiv",
    "content",
    "name",
    "class",
    "id",
    "href",
    "title",
    "rel",
    "type",
    "disabled",
    "checked",
    "start",
    "data-lang",
];

/// Every tag and attribute of `page` is one the page itself writes, and
/// no link runs script.
fn assert_only_own_markup(page: &str) {
    for (name, attrs) in tags(page) {
        assert!(TAGS.contains(&name.as_str()), "<{name}> in:\n{page}");
        for (key, value) in attrs {
            assert!(
                ATTRS.contains(&key.as_str()),
                "<{name} {key}=...> in:\n{page}"
            );
            if key == "href" {
                let v = value.to_ascii_lowercase();
                assert!(
                    !v.contains("script:") && !v.starts_with("data:"),
                    "href={value}"
                );
            }
        }
    }
}

#[test]
fn nothing_in_a_session_becomes_markup() {
    let log = crucible_parser::parse_session(std::path::Path::new("h.md"), HOSTILE.as_bytes())
        .expect("the hostile session parses");
    let dir = Directory {
        sessions: HashMap::from([(log.id().to_string(), log)]),
    };
    let page = page_of(&dir, "2026-01-01-hostile");
    assert_only_own_markup(&page);
    // The text is still there for a person to read.
    assert!(page.contains("&lt;script&gt;alert(6)&lt;/script&gt;"));
    assert!(page.contains("&lt;iframe"));
    // One <style> (the page's own), one <title>.
    assert_eq!(page.matches("<style").count(), 1);
    assert_eq!(page.matches("<title>").count(), 1);
}
