//! JSON text as agents really write it. JavaScript strings are UTF-16, and
//! `JSON.stringify` of one cut in the middle of an emoji (or of a string a
//! script mangled) writes a lone surrogate escape such as `\udc90`, which
//! no Unicode string can hold: serde_json refuses the whole line. Real
//! Claude Code hook payloads carry them (fixtures/hooks/real). The line is
//! read with each lone surrogate as U+FFFD, as a browser would show it.

/// `text` with every lone surrogate escape (`\ud800`–`\udfff` not part of
/// a high-low pair) written as `\ufffd`; `None` when it has none, so a
/// caller retries a parse only when mending changed something.
pub fn mend_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Bytes of `text` copied to `out` so far.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_unit(bytes, i) else {
            // Another escape (`\\`, `\"`, `\n`...): its next byte is not a
            // backslash that starts one.
            i += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && escape_unit(bytes, i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    out.map(|mut out| {
        out.push_str(&text[copied..]);
        out
    })
}

/// The code unit of a `\uXXXX` escape at `at`, if one is there.
fn escape_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> String {
        let mended = mend_lone_surrogates(text).unwrap_or_else(|| text.to_owned());
        serde_json::from_str::<String>(&mended).unwrap()
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert!(serde_json::from_str::<String>(r#""a\udc90b""#).is_err());
        assert_eq!(parsed(r#""a\udc90b""#), "a\u{fffd}b");
        assert_eq!(parsed(r#""cut \ud83d""#), "cut \u{fffd}");
        assert_eq!(parsed(r#""\ud83d\ud83d\ude00""#), "\u{fffd}😀");
    }

    #[test]
    fn pairs_escaped_backslashes_and_plain_text_are_left_alone() {
        assert_eq!(mend_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(mend_lone_surrogates(r#""C:\\udc90 \\\"x""#), None);
        assert_eq!(mend_lone_surrogates(r#""é \u00e9 \n""#), None);
        assert_eq!(parsed(r#""C:\\\udc90""#), "C:\\\u{fffd}");
        // A truncated escape at the end is the parser's to refuse.
        assert_eq!(mend_lone_surrogates(r#""\ud8"#), None);
    }

    proptest::proptest! {
        /// Any string serde_json writes reads back the same after mending
        /// (there is nothing to mend in it).
        #[test]
        fn valid_json_is_never_changed(s in ".*") {
            let text = serde_json::to_string(&s).unwrap();
            proptest::prop_assert_eq!(mend_lone_surrogates(&text), None);
        }
    }
}
