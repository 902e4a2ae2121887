//! A small shell lexer: a command line into simple commands, each with its
//! words (quotes removed) and its redirections, and the bodies of its
//! here-documents.
//!
//! Two passes. [`Scanner`] finds what a word splitter does not know about:
//! the operators between simple commands (`|`, `&&`, `;`, ...),
//! redirections, here-documents and comments; it keeps each word as written.
//! `shell-words` then takes quotes and escapes out of the words. Both honour
//! quotes, so `grep '->' f` has no redirection and `sed 's/a|b//'` no pipe.

/// Which way a redirection goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// `< f`
    In,
    /// `> f`, `>> f`, `>| f`, `2> f`, `&> f`, `&>> f`
    Out,
}

/// One simple command: `words` and the files it redirects to or from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Simple {
    pub words: Vec<String>,
    pub redirects: Vec<(Direction, String)>,
}

/// A lexed command line.
#[derive(Debug, Default)]
pub(super) struct Lexed {
    pub commands: Vec<Simple>,
    /// Here-document bodies (`cat > f <<'EOF'` ... `EOF`), in order.
    pub heredocs: Vec<String>,
}

/// Lexes `line` (`⏎` counts as a newline: how cru's markdown writes one).
pub(super) fn lex(line: &str) -> Lexed {
    Scanner {
        chars: line
            .chars()
            .map(|c| if c == '⏎' { '\n' } else { c })
            .collect(),
        ..Scanner::default()
    }
    .run()
}

/// `text` split into words as a POSIX shell splits them, quotes and escapes
/// taken out. A line cut short (an open quote, a last backslash: the
/// markdown shortens long lines) is closed first, so the words it has are
/// still found.
pub(super) fn words(text: &str) -> Vec<String> {
    ["", "'", "\"", "\\"]
        .iter()
        .find_map(|close| shell_words::split(&format!("{text}{close}")).ok())
        .unwrap_or_else(|| text.split_whitespace().map(str::to_owned).collect())
}

/// A simple command as written: each word and redirection target still
/// has its quotes.
#[derive(Debug, Default)]
struct RawCommand {
    words: Vec<String>,
    redirects: Vec<(Direction, String)>,
}

impl RawCommand {
    fn is_empty(&self) -> bool {
        self.words.is_empty() && self.redirects.is_empty()
    }

    fn unquote(self) -> Simple {
        Simple {
            words: words(&self.words.join(" ")),
            redirects: self
                .redirects
                .into_iter()
                .map(|(d, target)| (d, words(&target).join(" ")))
                .collect(),
        }
    }
}

/// Characters that end a word outside quotes, besides blanks.
fn is_operator(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>' | '\n')
}

/// The blanks that end a word: space and tab (the shell's, from `IFS`),
/// and a carriage return (bash keeps one in the word; cru drops it, as a
/// command pasted from a CRLF file means none). Other white space (U+00A0,
/// U+202F, U+3000, a form feed) is part of the word, as in bash.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

#[derive(Debug, Default)]
struct Scanner {
    chars: Vec<char>,
    i: usize,
    out: Lexed,
    current: RawCommand,
    /// Here-documents (delimiter, `<<-`) whose bodies start at the next
    /// newline.
    heredocs: Vec<(String, bool)>,
}

impl Scanner {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        self.i += usize::from(found);
        found
    }

    fn run(mut self) -> Lexed {
        while let Some(c) = self.skip_blanks() {
            match c {
                '#' => self.skip_comment(),
                '\n' => {
                    self.i += 1;
                    self.end_command();
                    self.heredoc_bodies();
                }
                ';' | '(' | ')' => {
                    self.i += 1;
                    self.end_command();
                }
                '&' if self.chars.get(self.i + 1) == Some(&'>') => {
                    // `&>`, `&>>`: both streams to a file.
                    self.i += 2;
                    self.eat('>');
                    self.target(Direction::Out);
                }
                '|' | '&' => {
                    // `|`, `||`, `|&`, `&`, `&&`.
                    self.i += 1;
                    self.end_command();
                    let _ = self.eat('|') || self.eat('&');
                }
                '<' | '>' => self.redirection(),
                _ => self.word(),
            }
        }
        self.end_command();
        self.out
    }

    /// Skips blanks and line continuations; returns what comes next.
    fn skip_blanks(&mut self) -> Option<char> {
        loop {
            match self.peek()? {
                c if is_blank(c) => self.i += 1,
                '\\' if self.chars.get(self.i + 1) == Some(&'\n') => self.i += 2,
                c => return Some(c),
            }
        }
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    /// Reads one word as written, up to a blank or an operator outside
    /// quotes.
    fn raw_word(&mut self) -> String {
        let mut raw = String::new();
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek() {
            match (quote, c) {
                (None, c) if is_blank(c) || is_operator(c) => break,
                (None, '\'' | '"') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None | Some('"'), '\\') => {
                    raw.push(c);
                    self.i += 1;
                    match self.peek() {
                        // A line continuation joins the word's two halves.
                        Some('\n') if quote.is_none() => {
                            raw.pop();
                            self.i += 1;
                        }
                        Some(n) => {
                            raw.push(n);
                            self.i += 1;
                        }
                        None => {}
                    }
                    continue;
                }
                _ => {}
            }
            raw.push(c);
            self.i += 1;
        }
        raw
    }

    fn word(&mut self) {
        let from = self.i;
        let raw = self.raw_word();
        if self.i == from {
            // Nothing read (no character starts a word here): step over
            // it rather than read the same empty word forever.
            self.i += 1;
            return;
        }
        // A word of digits right before `>` or `<` is the descriptor of a
        // redirection (`2>`), not an argument.
        let descriptor = raw.bytes().all(|b| b.is_ascii_digit());
        if !(descriptor && matches!(self.peek(), Some('<' | '>'))) {
            self.current.words.push(raw);
        }
    }

    /// The word after a redirection operator: the file it names.
    fn target(&mut self, d: Direction) {
        if let Some(raw) = self.operand() {
            self.current.redirects.push((d, raw));
        }
    }

    /// The next word, if a word comes before the next operator.
    fn operand(&mut self) -> Option<String> {
        let c = self.skip_blanks()?;
        (!is_operator(c)).then(|| self.raw_word())
    }

    /// Reads the operator at `<` or `>` (`>`, `>>`, `>|`, `>&`, `<`, `<<`,
    /// `<<-`, `<<<`, `<&`, `<(`) and the word it takes.
    fn redirection(&mut self) {
        if self.eat('>') {
            if self.eat('&') {
                // `2>&1`: a descriptor, not a file.
                self.operand();
            } else {
                let _ = self.eat('>') || self.eat('|');
                self.target(Direction::Out);
            }
            return;
        }
        self.i += 1;
        if self.eat('<') {
            if self.eat('<') {
                // A here-string: its word is text, not a file.
                self.operand();
            } else {
                let strip_tabs = self.eat('-');
                if let Some(raw) = self.operand() {
                    self.heredocs.push((words(&raw).concat(), strip_tabs));
                }
            }
        } else if self.eat('&') {
            self.operand();
        } else if self.eat('(') {
            // Process substitution: the command inside is its own.
            self.end_command();
        } else {
            self.target(Direction::In);
        }
    }

    fn end_command(&mut self) {
        let c = std::mem::take(&mut self.current);
        if !c.is_empty() {
            self.out.commands.push(c.unquote());
        }
    }

    /// After a newline: the bodies of the here-documents opened on the line
    /// before, each up to its delimiter line.
    fn heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            while self.i < self.chars.len() {
                let rest = &self.chars[self.i..];
                let end = rest.iter().position(|&c| c == '\n').unwrap_or(rest.len());
                let line: String = rest[..end].iter().collect();
                self.i = (self.i + end + 1).min(self.chars.len());
                let bare = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if bare.trim_end() == delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            self.out.heredocs.push(body);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(line: &str) -> Vec<String> {
        lex(line)
            .commands
            .iter()
            .map(|c| {
                let mut s = c.words.join(" ");
                for (d, f) in &c.redirects {
                    s.push_str(match d {
                        Direction::In => " <",
                        Direction::Out => " >",
                    });
                    s.push_str(f);
                }
                s
            })
            .collect()
    }

    #[test]
    fn white_space_the_shell_does_not_split_on_is_part_of_the_word() {
        // It looped forever on these (the word reader stopped at any white
        // space, the blank skipper only at ASCII blanks).
        for space in [
            '\u{a0}', '\u{202f}', '\u{3000}', '\u{2028}', '\u{85}', '\u{b}', '\u{c}',
        ] {
            let line = format!("echo{space}hi > out.txt");
            assert_eq!(
                show(&line),
                [format!("echo{space}hi >out.txt")],
                "{space:?}"
            );
        }
    }

    /// Any char, half the time one the reader treats apart: white space
    /// of every kind, quotes, escapes, operators.
    fn shell_char() -> impl proptest::strategy::Strategy<Value = char> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::char::any(),
            proptest::sample::select(vec![
                ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{a0}', '\u{202f}',
                '\u{3000}', '\'', '"', '\\', '<', '>', '|', '&', ';', '#', '(', ')', 'a', '2',
            ]),
        ]
    }

    proptest::proptest! {
        /// Any line, white space and controls of every kind included, is
        /// read to its end (every turn of the reader moves on).
        #[test]
        fn any_line_is_read_to_its_end(chars in proptest::collection::vec(shell_char(), 0..60)) {
            let line: String = chars.into_iter().collect();
            let lexed = lex(&line);
            let words: usize = lexed.commands.iter().map(|c| c.words.len()).sum();
            proptest::prop_assert!(words <= line.chars().count());
        }
    }

    #[test]
    fn operators_outside_quotes_only() {
        assert_eq!(
            show("grep '->' src/a.rs | sed 's/a|b//' && echo \"x; y\""),
            ["grep -> src/a.rs", "sed s/a|b//", "echo x; y"]
        );
        assert_eq!(show("a || b; c & d"), ["a", "b", "c", "d"]);
    }

    #[test]
    fn redirections() {
        assert_eq!(show("cargo test 2> out.txt"), ["cargo test >out.txt"]);
        assert_eq!(show("cargo test 2>out.txt"), ["cargo test >out.txt"]);
        assert_eq!(show("make &> build.log"), ["make >build.log"]);
        assert_eq!(show("make >> a.log 2>&1"), ["make >a.log"]);
        assert_eq!(show("sort < in.txt >| out.txt"), ["sort <in.txt >out.txt"]);
        assert_eq!(show("cat <<< 'hi' > x.txt"), ["cat >x.txt"]);
    }

    #[test]
    fn heredocs_are_bodies_not_commands() {
        let l = lex("cat > notes.md <<'EOF'\nrm -rf /\n> not a redirect\nEOF\nls src/");
        assert_eq!(l.heredocs, ["rm -rf /\n> not a redirect\n"]);
        let words: Vec<&str> = l.commands.iter().map(|c| c.words[0].as_str()).collect();
        assert_eq!(words, ["cat", "ls"]);
    }

    #[test]
    fn escapes_and_empty_words() {
        assert_eq!(
            lex("sed -i '' f.txt").commands[0].words,
            ["sed", "-i", "", "f.txt"]
        );
        assert_eq!(lex(r"cat a\ b.txt").commands[0].words, ["cat", "a b.txt"]);
        assert_eq!(show("ls # a comment > x"), ["ls"]);
    }

    #[test]
    fn escapes_inside_and_outside_quotes() {
        // The issue's example: `\|` inside double quotes stays in the
        // pattern and the directory after it is still a word.
        assert_eq!(
            lex(r#"grep -n "a\|b" src/"#).commands[0].words,
            ["grep", "-n", r"a\|b", "src/"]
        );
        assert_eq!(
            show(r#"echo "say \"hi\"; ok" > out.txt"#),
            [r#"echo say "hi"; ok >out.txt"#]
        );
        assert_eq!(
            show(r"find . -name '*.rs' -exec wc -l {} \; | sort"),
            ["find . -name *.rs -exec wc -l {} ;", "sort"]
        );
        assert_eq!(
            show("ls \\\n  src/ && \\\ncat a.txt"),
            ["ls src/", "cat a.txt"]
        );
    }

    #[test]
    fn lines_cut_short_keep_their_words() {
        assert_eq!(
            lex("grep -n 'fn main src/a.rs").commands[0].words,
            ["grep", "-n", "fn main src/a.rs"]
        );
        assert_eq!(
            lex(r"cat a.txt \").commands[0].words,
            ["cat", "a.txt", r"\"]
        );
    }
}
