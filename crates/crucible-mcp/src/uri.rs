//! Ids in resource URIs: percent-encoded as RFC 3986 wants (an id may hold
//! any letter, `幫` as well as `a`), and decoded when a client reads them.

/// Every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`.
#[must_use]
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `%XX` sequences as the bytes they stand for; the text as it came when
/// it has none, or when what they make is not UTF-8.
#[must_use]
pub fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_and_stray_percents_stay() {
        assert_eq!(
            percent_encode("2025-08-28-幫 b"),
            "2025-08-28-%E5%B9%AB%20b"
        );
        assert_eq!(
            percent_decode("2025-08-28-%E5%B9%AB%20b"),
            "2025-08-28-幫 b"
        );
        assert_eq!(percent_decode("2025-12-10-fix"), "2025-12-10-fix");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%ff"), "%ff");
    }
}
