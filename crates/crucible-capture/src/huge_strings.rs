//! Hook input with strings too large to be worth a hook's time: a tool
//! result of 50 MB (a `cat` of a log, a build's output) reaches the hook
//! whole, and parsing, summarising and writing it all made the agent wait
//! seconds. Before the input is parsed, each JSON string longer than
//! [`KEPT`] bytes is cut to its first [`KEPT`] bytes and a marker saying
//! how many were dropped; the sidecar keeps what is left (docs/recording.md,
//! "Large payloads"). One pass over the bytes, jumping from quote to
//! quote.

use memchr::{memchr, memchr2};

/// The bytes of a JSON string a hook keeps (1 MiB).
pub const KEPT: usize = 1 << 20;

/// `json` with every string literal over `keep` bytes cut, and how many
/// bytes were dropped; `None` when no string is that long (or the text is
/// not JSON enough to tell: then the parser says what is wrong).
pub(crate) fn cap(json: &[u8], keep: usize) -> Option<(Vec<u8>, u64)> {
    if json.len() <= keep {
        return None;
    }
    let mut out: Vec<u8> = Vec::new();
    let (mut copied, mut at, mut dropped) = (0, 0, 0u64);
    while let Some(q) = memchr(b'"', &json[at..]) {
        let start = at + q + 1;
        let end = string_end(json, start)?;
        if end - start > keep {
            let cut = boundary(json, start, start + keep);
            let gone = end - cut;
            out.extend_from_slice(&json[copied..cut]);
            out.extend_from_slice(format!("…[cut: {gone} bytes not kept]").as_bytes());
            copied = end;
            dropped += gone as u64;
        }
        at = end + 1;
    }
    if dropped == 0 {
        return None;
    }
    out.extend_from_slice(&json[copied..]);
    Some((out, dropped))
}

/// Where the string whose contents start at `start` ends (its closing
/// quote), skipping escapes.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    loop {
        let p = at + memchr2(b'"', b'\\', &json[at..])?;
        if json[p] == b'"' {
            return Some(p);
        }
        at = p + 2;
        if at > json.len() {
            return None;
        }
    }
}

/// A place at or before `at` where the string starting at `start` can be
/// cut: not inside an escape (before the run of backslashes an escape
/// near it starts with) nor inside a UTF-8 character.
fn boundary(json: &[u8], start: usize, mut at: usize) -> usize {
    let window = at.saturating_sub(6).max(start);
    if let Some(b) = memchr(b'\\', &json[window..at]) {
        at = window + b;
        while at > start && json[at - 1] == b'\\' {
            at -= 1;
        }
    }
    while at > start && json[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    if ends_in_high_surrogate(json, start, at) {
        at -= 6;
    }
    at
}

/// True when `json[start..at]` ends in the escape of a high surrogate
/// (`\uD800` to `\uDBFF`): the first half of a character written as a
/// pair of escapes (an emoji, as Python and JavaScript write it), whose
/// second half the cut would leave out (read back as U+FFFD).
fn ends_in_high_surrogate(json: &[u8], start: usize, at: usize) -> bool {
    if at < start + 6 {
        return false;
    }
    let e = &json[at - 6..at];
    let high = e[0] == b'\\'
        && e[1] == b'u'
        && matches!(e[2], b'd' | b'D')
        && matches!(e[3], b'8' | b'9' | b'a' | b'b' | b'A' | b'B')
        && e[4].is_ascii_hexdigit()
        && e[5].is_ascii_hexdigit();
    // Its backslash starts an escape only after an even run of others.
    let before = json[start..at - 6]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    high && before % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_never_splits_a_character_written_as_two_escapes() {
        // An emoji as Python's json.dumps writes it: `\ud83d\ude00`.
        for pad in 0..14 {
            let text = format!("{}{}", "s".repeat(pad), "\\ud83d\\ude00".repeat(40));
            let json = format!(r#"{{"stdout":"{text}"}}"#);
            // (From 7: the key is never cut.)
            for keep in 7..json.len() {
                let Some((out, _)) = cap(json.as_bytes(), keep) else {
                    continue;
                };
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                let kept = v["stdout"].as_str().unwrap();
                assert!(!kept.contains('\u{fffd}'), "{pad} {keep}: {kept}");
            }
        }
        // A backslash written as `\\` before `ud83d` starts no escape.
        assert!(ends_in_high_surrogate(br"\ud83d", 0, 6));
        assert!(!ends_in_high_surrogate(br"\\ud83d", 0, 7));
        assert!(ends_in_high_surrogate(br"\\\ud83d", 0, 8));
        assert!(!ends_in_high_surrogate(br"\ude00", 0, 6), "a low half");
    }

    #[test]
    fn long_strings_are_cut_to_valid_json_and_short_ones_kept() {
        let json = r#"{"a":"0123456789","b":"short","c":"é\"\\\u00e9xxxxxxxxxx"}"#;
        // (From 1: a key of one byte is never cut.)
        for keep in 1..12 {
            let Some((out, dropped)) = cap(json.as_bytes(), keep) else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_slice(&out)
                .unwrap_or_else(|e| panic!("{keep}: {e}: {}", String::from_utf8_lossy(&out)));
            assert!(dropped > 0);
            let a = v["a"].as_str().unwrap();
            assert_eq!(a.contains("bytes not kept"), keep < 10, "{v}");
            assert!(v["c"].as_str().unwrap().contains("bytes not kept"), "{v}");
            if keep >= 5 {
                assert_eq!(v["b"], "short");
            }
        }
        assert!(cap(json.as_bytes(), 100).is_none(), "nothing that long");
    }

    #[test]
    fn fifty_megabytes_keep_their_first_mebibyte() {
        let json = format!(
            r#"{{"tool_response":{{"stdout":"{}"}}}}"#,
            "x".repeat(50_000_000)
        );
        let (out, dropped) = cap(json.as_bytes(), KEPT).unwrap();
        assert_eq!(dropped, 50_000_000 - KEPT as u64);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let s = v["tool_response"]["stdout"].as_str().unwrap();
        assert!(
            s.starts_with("xxx") && s.ends_with(" bytes not kept]"),
            "{}",
            &s[s.len() - 40..]
        );
    }
}
