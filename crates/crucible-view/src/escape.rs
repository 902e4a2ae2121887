//! Text into HTML: every byte of a session is data, never markup.
//!
//! Escaping `&`, `<`, `>`, `"` and `'` everywhere (text and attribute
//! values alike) means a value can be put in either place without a
//! second thought; attributes are always written in double quotes.

/// Appends `text` to `out`, escaped for HTML text or a quoted attribute.
pub fn push(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '"', '\'', '\0']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            // NUL is not allowed in HTML text: shown as the replacement character.
            _ => "\u{FFFD}",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// `text` escaped (see [`push`]).
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push(&mut out, text);
    out
}

/// A link target that cannot run script or reach the network unasked:
/// `http`, `https` and `mailto` links, and links without a scheme (a
/// page of the site, an anchor); anything else (`javascript:`, `data:`,
/// `vbscript:`, `file:`) becomes `#`. Browsers ignore tabs, newlines and
/// leading spaces in a scheme, so the scheme is read the way they read it.
pub fn safe_href(url: &str) -> &str {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .take(16)
        .collect();
    let scheme_end = cleaned.find(':');
    let before_path = cleaned.find(['/', '?', '#']);
    match scheme_end {
        // No scheme: relative.
        None => url,
        // A colon after the path started (`a/b:c`) is not a scheme.
        Some(colon) if before_path.is_some_and(|p| p < colon) => url,
        Some(colon) => {
            let scheme = cleaned[..colon].to_ascii_lowercase();
            if matches!(scheme.as_str(), "http" | "https" | "mailto") {
                url
            } else {
                "#"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escaped(r#"<script>alert("x&y")</script> it's"#),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; it&#39;s"
        );
        assert_eq!(escaped("a\0b"), "a\u{FFFD}b");
    }

    #[test]
    fn only_safe_schemes_are_linked() {
        for ok in [
            "https://example.com/a?b#c",
            "http://x",
            "mailto:a@b.c",
            "other-session.html",
            "#phase-2",
            "a/b:c",
            "?q=1",
        ] {
            assert_eq!(safe_href(ok), ok);
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " \tjava\nscript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert_eq!(safe_href(bad), "#", "{bad:?}");
        }
    }

    proptest! {
        /// Nothing escaped holds a character that could open markup or
        /// close an attribute.
        #[test]
        fn escaped_text_holds_no_markup(s in any::<String>()) {
            let e = escaped(&s);
            prop_assert!(!e.contains(['<', '>', '"', '\'', '\0']));
            // Every `&` starts one of the entities written above.
            for (i, _) in e.match_indices('&') {
                let rest = &e[i..];
                prop_assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|x| rest.starts_with(x))
                );
            }
        }
    }
}
