//! Telling a source's format by its content: a folder by its files, a file
//! by the whole shape of its head.

use std::path::Path;

use crate::line_shape::Shape;
use crate::{
    Format, agent_dir, claude_code, codeloops, codex, connectonion, copilot, gemini, messages,
    opencode,
};

/// The format of a file or folder, by its content.
///
/// A JSONL file is told by its whole shape: the complete lines of its
/// head (the first [`JUDGED_BYTES`] of them, and at least one line, up to
/// 4 MB) are offered to each JSONL format, and the format that recognizes
/// the most lines wins. Agents put lines that are not messages
/// first (snapshots, hook progress, summaries), and a file with a few
/// unknown lines is still the format of the many known ones.
pub fn detect(path: &Path) -> Option<Format> {
    if path.is_dir() {
        if opencode::is_storage(path) {
            return Some(Format::OpenCode);
        }
        return agent_dir::looks_like(path).then_some(Format::AgentDir);
    }
    let bytes = head(path)?;
    if opencode::is_db(path, &bytes) || opencode::is_session_file(path, &bytes) {
        return Some(Format::OpenCode);
    }
    detect_bytes(&bytes)
}

/// How much of a head's lines the JSONL formats judge once those lines make
/// a JSONL format: a dozen lines of a transcript or more, enough to
/// outvote the few lines of other kinds an agent writes first. Parsing the
/// whole 64 KB head of every file was a tenth of an import. A head whose
/// first 16 KB make no JSONL format is judged whole, as before. (The other
/// formats' checks always see the whole head.)
const JUDGED_BYTES: usize = 16 * 1024;

/// Tells whether one JSON line is a record of a format.
type IsRecord = fn(&Shape<'_>) -> bool;

/// [`detect`] on the start of a file.
pub(crate) fn detect_bytes(bytes: &[u8]) -> Option<Format> {
    let recognizers: [(Format, IsRecord); 5] = [
        (Format::Codeloops, |v: &Shape<'_>| codeloops::is_record(v)),
        (Format::Codex, |v: &Shape<'_>| codex::is_record(v)),
        (Format::ClaudeCode, |v: &Shape<'_>| {
            claude_code::is_record(v)
        }),
        (Format::Gemini, |v: &Shape<'_>| gemini::is_record(v)),
        (Format::Copilot, |v: &Shape<'_>| copilot::is_record(v)),
    ];
    let mut counts = [0usize; 5];
    let (mut lines, mut objects) = (0usize, 0usize);
    // The head may end inside a line: that one is not judged.
    let whole = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) if i + 1 < bytes.len() => &bytes[..=i],
        _ => bytes,
    };
    let mut judged = 0usize;
    // The JSONL format the lines judged so far make the file, if any.
    let verdict = |counts: &[usize; 5], lines: usize, objects: usize| {
        (0..recognizers.len())
            .filter(|&i| counts[i] > 0 && objects * 2 > lines)
            .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
    };
    for line in whole.split(|&b| b == b'\n') {
        // Enough once the lines judged make a JSONL format; a head whose
        // first lines no format recognizes (a cut or damaged first line,
        // lines of a kind not known yet, blank lines) is judged whole.
        if judged >= JUDGED_BYTES && verdict(&counts, lines, objects).is_some() {
            break;
        }
        judged += line.len() + 1;
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        lines += 1;
        if !line.starts_with(b"{") {
            continue;
        }
        // Only the keys the recognizers look at are kept (the line is still
        // parsed whole, as a `Value` would be).
        let Some(v) = Shape::of(line) else {
            continue;
        };
        objects += 1;
        for (i, (_, is)) in recognizers.iter().enumerate() {
            counts[i] += usize::from(is(&v));
        }
    }
    // A JSONL format only for a file that is mostly JSON lines (a README or
    // a Python file with one JSON line in it is neither), then the format
    // that recognizes the most lines; a tie goes to the one listed first.
    if let Some(i) = verdict(&counts, lines, objects) {
        return Some(recognizers[i].0);
    }
    if gemini::looks_like(bytes) {
        return Some(Format::Gemini);
    }
    // YAML only for text that does not start as JSON: a JSON file is never
    // ConnectOnion's, and a YAML parser on deeply nested JSON takes time
    // that grows with the square of the depth.
    let json_like = matches!(bytes.trim_ascii_start().first(), Some(b'{' | b'['));
    if !json_like && connectonion::looks_like(bytes) {
        return Some(Format::ConnectOnion);
    }
    messages::looks_like(bytes).then_some(Format::OpenAiMessages)
}

/// The start of a file, enough to tell its format by: 64 KB, or more up
/// to 4 MB until a whole first line is in (a transcript's first line can
/// hold a long tool result). Detection never reads a big file whole.
pub(crate) fn head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    // Regular files only, opened without blocking: a FIFO among an agent's
    // files must not hang the import.
    let (mut f, _) = crucible_core::store::safe_file::open_regular(path, u64::MAX).ok()?;
    let mut out = Vec::new();
    let mut limit = 64 * 1024;
    loop {
        let want = limit - out.len();
        let got = (&mut f).take(want as u64).read_to_end(&mut out).ok()?;
        if got < want || out.contains(&b'\n') || limit >= 4 * 1024 * 1024 {
            return Some(out);
        }
        limit *= 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_file_with_one_json_line_is_no_jsonl_format() {
        // A README, a Python file: one line that happens to be a record of
        // an agent's kind does not make the file that agent's.
        let text = b"hello\nthis is prose\n{\"type\":\"turn.started\"}\nmore prose\n";
        assert_eq!(detect_bytes(text), None);
        // The same line among other records of the format is.
        let jsonl =
            b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n";
        assert_eq!(detect_bytes(jsonl), Some(Format::Codex));
        // A head cut inside its last line is judged by its whole lines.
        let cut = b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.sta";
        assert_eq!(detect_bytes(cut), Some(Format::Codex));
    }

    #[test]
    fn the_first_lines_of_a_head_tell_its_format_however_long_they_are() {
        // A first line longer than what is judged is judged whole.
        let long = format!(
            "{{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
            "x".repeat(JUDGED_BYTES * 2)
        );
        assert_eq!(detect_bytes(long.as_bytes()), Some(Format::ClaudeCode));
        // Lines past what is judged do not outvote the first ones.
        let codex =
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n".repeat(JUDGED_BYTES / 40 + 1);
        let claude = "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
        // More lines of another format after them: Claude Code would win a
        // count of the whole.
        let mixed = codex + &claude.repeat(JUDGED_BYTES / 20);
        assert_eq!(detect_bytes(mixed.as_bytes()), Some(Format::Codex));
    }

    #[test]
    fn a_head_whose_first_16_kb_make_no_format_is_judged_whole() {
        // Review s6: these were left as "no format cru imports".
        let claude = "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
        let records = claude.repeat(3);
        let heads = [
            // A long first line that does not parse (a cut emoji's lone
            // surrogate, a line cut short).
            format!(
                "{{\"type\":\"user\",\"x\":\"{}\\ud83d\"}}\n",
                "x".repeat(JUDGED_BYTES + 100)
            ),
            format!(
                "{{\"type\":\"user\",\"x\":\"{}\n",
                "x".repeat(JUDGED_BYTES + 100)
            ),
            // Lines of a kind no format knows yet, then records.
            "{\"type\":\"brand-new-kind\",\"data\":1}\n".repeat(JUDGED_BYTES / 30),
            // Blank lines first.
            "\n".repeat(JUDGED_BYTES + 1),
            " \n".repeat(JUDGED_BYTES / 2 + 1),
        ];
        for first in heads {
            let text = first.clone() + &records;
            assert_eq!(
                detect_bytes(text.as_bytes()),
                Some(Format::ClaudeCode),
                "{}",
                &first[..first.len().min(60)]
            );
        }
    }
}
