//! From bytes on disk to the text the parser reads.

use std::borrow::Cow;

use crate::error::ParseErrorKind;

/// The file's text with a UTF-8 byte order mark removed and CRLF line endings
/// turned into LF. Line numbers are unchanged by either.
pub(crate) fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, (usize, ParseErrorKind)> {
    // SIMD validation first (several times std's speed on the mostly ASCII
    // text of a session, where it was a sixth of the index's scan); std's,
    // which says where the bad byte is, only for a file that fails.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Ok(normalize(text));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let before = &bytes[..e.valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        (line, ParseErrorKind::NotUtf8 { column })
    })?;
    Ok(normalize(text))
}

fn normalize(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // SIMD memchr: std's scalar search was 5% of parsing, over every byte.
    if memchr::memchr(b'\r', text.as_bytes()).is_some() {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Maps byte offsets to 1-based line numbers, counting forward from the last
/// answer, so that a pass over a document in order costs one scan in all.
pub(crate) struct LineCounter<'a> {
    text: &'a str,
    first_line: usize,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    /// `first_line` is the file line on which `text` begins.
    pub(crate) fn new(text: &'a str, first_line: usize) -> Self {
        Self {
            text,
            first_line,
            offset: 0,
            line: first_line,
        }
    }

    pub(crate) fn line_at(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = self.first_line;
        }
        self.line += memchr::memchr_iter(b'\n', &self.text.as_bytes()[self.offset..offset]).count();
        self.offset = offset;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_bom_and_crlf_and_reports_bad_bytes_by_line() {
        assert_eq!(decode(b"\xef\xbb\xbfa\r\nb\r\n").unwrap(), "a\nb\n");
        let (line, kind) = decode(b"ok\nfine\nbad \xff here").unwrap_err();
        assert_eq!(line, 3);
        assert_eq!(kind, ParseErrorKind::NotUtf8 { column: 5 });
    }

    #[test]
    fn counts_lines_forward_and_back() {
        let mut c = LineCounter::new("a\nb\nc\n", 10);
        assert_eq!(c.line_at(0), 10);
        assert_eq!(c.line_at(4), 12);
        assert_eq!(c.line_at(2), 11);
    }
}
