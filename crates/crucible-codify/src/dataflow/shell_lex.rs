//! A small shell lexer: a command line into simple commands, each with its
//! words (quotes removed) and its redirections, and the bodies of its
//! here-documents. Quotes are honoured, so `grep '->' f` has no
//! redirection and `sed 's/a|b//'` no pipe.

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

/// What the word being read will be once it ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    Word,
    Target(Direction),
    /// `2>&1`, `>&2`: a file descriptor, not a file.
    Descriptor,
    HeredocDelimiter {
        strip_tabs: bool,
    },
}

struct Lexer {
    out: Lexed,
    current: Simple,
    word: String,
    /// The word has a quoted part (so `''` is an empty word, not none).
    quoted: bool,
    pending: Pending,
    /// Here-documents whose bodies start at the next newline.
    heredocs: Vec<(String, bool)>,
}

impl Lexer {
    fn end_word(&mut self) {
        if self.word.is_empty() && !self.quoted {
            return;
        }
        let w = std::mem::take(&mut self.word);
        match self.pending {
            Pending::Word => self.current.words.push(w),
            Pending::Target(d) => self.current.redirects.push((d, w)),
            Pending::Descriptor => {}
            Pending::HeredocDelimiter { strip_tabs } => self.heredocs.push((w, strip_tabs)),
        }
        self.pending = Pending::Word;
        self.quoted = false;
    }

    fn end_command(&mut self) {
        self.end_word();
        let c = std::mem::take(&mut self.current);
        if !c.words.is_empty() || !c.redirects.is_empty() {
            self.out.commands.push(c);
        }
    }
}

/// Lexes `line` (`⏎` counts as a newline: how cru's markdown writes one).
pub(super) fn lex(line: &str) -> Lexed {
    let chars: Vec<char> = line
        .chars()
        .map(|c| if c == '⏎' { '\n' } else { c })
        .collect();
    let mut lx = Lexer {
        out: Lexed::default(),
        current: Simple::default(),
        word: String::new(),
        quoted: false,
        pending: Pending::Word,
        heredocs: Vec::new(),
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\'' => {
                lx.quoted = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    lx.word.push(chars[i]);
                    i += 1;
                }
            }
            '"' => {
                lx.quoted = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`'))
                    {
                        i += 1;
                    }
                    lx.word.push(chars[i]);
                    i += 1;
                }
            }
            '\\' => {
                if let Some(n) = next
                    && n != '\n'
                {
                    lx.word.push(n);
                }
                i += 1;
            }
            '#' if lx.word.is_empty() && !lx.quoted => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            ' ' | '\t' | '\r' => lx.end_word(),
            '\n' => {
                lx.end_command();
                i = heredoc_bodies(&chars, i + 1, &mut lx);
                continue;
            }
            ';' | '(' | ')' => lx.end_command(),
            '|' => {
                lx.end_command();
                if matches!(next, Some('|' | '&')) {
                    i += 1;
                }
            }
            '&' if next == Some('>') => {
                lx.end_word();
                i += 2;
                if chars.get(i) == Some(&'>') {
                    i += 1;
                }
                lx.pending = Pending::Target(Direction::Out);
                continue;
            }
            '&' => {
                lx.end_command();
                if next == Some('&') {
                    i += 1;
                }
            }
            '>' | '<' => {
                // A word of digits before it is the descriptor (`2>`).
                if lx.word.chars().all(|d| d.is_ascii_digit()) && !lx.quoted {
                    lx.word.clear();
                } else {
                    lx.end_word();
                }
                i = redirection(&chars, i, &mut lx);
                continue;
            }
            _ => lx.word.push(c),
        }
        i += 1;
    }
    lx.end_command();
    lx.out
}

/// Reads the operator at `chars[i]` (`>`, `>>`, `>|`, `>&`, `<`, `<<`,
/// `<<-`, `<<<`, `<(`), sets what the next word is, returns where to go on.
fn redirection(chars: &[char], mut i: usize, lx: &mut Lexer) -> usize {
    let c = chars[i];
    let at = |k: usize| chars.get(k).copied();
    i += 1;
    if c == '>' {
        match at(i) {
            Some('>' | '|') => i += 1,
            Some('&') => {
                lx.pending = Pending::Descriptor;
                return i + 1;
            }
            _ => {}
        }
        lx.pending = Pending::Target(Direction::Out);
        return i;
    }
    match at(i) {
        Some('<') if at(i + 1) == Some('<') => {
            // A here-string: its word is text, not a file.
            lx.pending = Pending::Descriptor;
            i + 2
        }
        Some('<') => {
            let strip_tabs = at(i + 1) == Some('-');
            lx.pending = Pending::HeredocDelimiter { strip_tabs };
            i + 1 + usize::from(strip_tabs)
        }
        Some('&') => {
            lx.pending = Pending::Descriptor;
            i + 1
        }
        Some('(') => {
            // Process substitution: the command inside is its own.
            lx.end_command();
            i + 1
        }
        _ => {
            lx.pending = Pending::Target(Direction::In);
            i
        }
    }
}

/// After a newline: the bodies of the here-documents opened on the line
/// before, each up to its delimiter line. Returns where the commands go on.
fn heredoc_bodies(chars: &[char], mut i: usize, lx: &mut Lexer) -> usize {
    for (delimiter, strip_tabs) in std::mem::take(&mut lx.heredocs) {
        let mut body = String::new();
        while i < chars.len() {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |k| i + k);
            let line: String = chars[i..end].iter().collect();
            i = (end + 1).min(chars.len());
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
        lx.out.heredocs.push(body);
    }
    i
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
}
