//! Words as code and logs write them.
//!
//! A *word* is a run of letters and digits (any script) joined by the
//! connectors `_ . / - : \`, with connectors at its ends left out:
//! `src/auth/mod.rs`, `foo.bar` (of `foo.bar()`), `no-verify` (of
//! `--no-verify`). Its *parts* are split at the connectors and where a
//! lower-case letter meets an upper-case one (`registerUser` → `register`,
//! `user`); a letter next to a digit does not split (`E0432` stays whole).
//!
//! Every token is lower-cased, char by char. A word of several parts gives
//! the whole word, at the position of its first part, then each part at its
//! own position: a search for the whole finds it, so does one for a part,
//! and a phrase of the parts (`register user`) finds the compound too. A
//! piece between connectors that has parts of its own is a token too
//! (`AppSidebar` of `AppSidebar.tsx`, at its first part's position), so a
//! word is found wherever `rg -w` would find it. Positions never go down.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name the tokenizer is registered under in the index.
pub const NAME: &str = "cru_code";

/// The tokenizer (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeTokenizer;

/// The tokens of one text: their places found up front (no text copied),
/// each token's text written into one reused buffer as the indexer asks
/// for it.
#[derive(Debug)]
pub struct CodeTokenStream<'a> {
    text: &'a str,
    /// `(from, to, position)` of each token, in order.
    spans: Vec<(usize, usize, usize)>,
    next: usize,
    token: Token,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream {
            text,
            spans: spans(text),
            next: 0,
            token: Token::default(),
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(&(from, to, position)) = self.spans.get(self.next) else {
            return false;
        };
        self.next += 1;
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = position;
        self.token.position_length = 1;
        self.token.text.clear();
        push_lower(&mut self.token.text, &self.text[from..to]);
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

fn is_connector(c: char) -> bool {
    matches!(c, '_' | '.' | '/' | '-' | ':' | '\\')
}

/// Appends `s` lower-cased, char by char (ASCII without decoding).
fn push_lower(out: &mut String, s: &str) {
    if s.is_ascii() {
        out.push_str(s);
        out.make_ascii_lowercase();
    } else {
        out.extend(s.chars().flat_map(char::to_lowercase));
    }
}

fn lower(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_lower(&mut out, s);
    out
}

/// The words of `text` as byte ranges, connectors at the ends left out.
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut last_alnum_end = 0;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
            last_alnum_end = i + c.len_utf8();
        } else if is_connector(c) && start.is_some() {
            // Still inside the word, unless no letter follows.
        } else if let Some(s) = start.take() {
            out.push((s, last_alnum_end));
        }
    }
    if let Some(s) = start {
        out.push((s, last_alnum_end));
    }
    out
}

/// The parts of the word `word` as byte ranges within it.
pub fn parts(word: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, c) in word.char_indices() {
        if is_connector(c) || !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase()
            && prev_lower
            && let Some(s) = start.take()
        {
            out.push((s, i));
        }
        if start.is_none() {
            start = Some(i);
        }
        prev_lower = c.is_lowercase();
    }
    if let Some(s) = start {
        out.push((s, word.len()));
    }
    out
}

/// Where each token of `text` is, `(from, to, position)`, in order (see
/// the module documentation).
fn spans(text: &str) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut position = 0;
    for (from, to) in words(text) {
        let word = &text[from..to];
        let chunks = chunks(word);
        let several = chunks.len() > 1;
        let mut first = true;
        for (c_from, c_to) in chunks {
            let chunk_parts = parts(&word[c_from..c_to]);
            if first && (several || chunk_parts.len() > 1) {
                out.push((from, to, position));
            }
            first = false;
            if several && chunk_parts.len() > 1 {
                out.push((from + c_from, from + c_to, position));
            }
            for (a, b) in chunk_parts {
                out.push((from + c_from + a, from + c_from + b, position));
                position += 1;
            }
        }
    }
    out
}

/// The pieces of `word` between connectors, as byte ranges within it
/// (`AppSidebar.tsx` → `AppSidebar`, `tsx`).
fn chunks(word: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in word.char_indices() {
        if is_connector(c) {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, word.len()));
    }
    out
}

/// Every token of `text`, in order (see the module documentation).
pub fn tokens(text: &str) -> Vec<Token> {
    spans(text)
        .into_iter()
        .map(|(from, to, position)| Token {
            offset_from: from,
            offset_to: to,
            position,
            text: lower(&text[from..to]),
            position_length: 1,
        })
        .collect()
}

/// What a query word searches for: its whole (when it is one word) and
/// its parts in order, lower-cased; `None` when it holds no word.
pub fn query_terms(word: &str) -> Option<(String, Vec<String>)> {
    let ws = words(word);
    let mut all = Vec::new();
    for &(from, to) in &ws {
        let w = &word[from..to];
        all.extend(parts(w).into_iter().map(|(a, b)| lower(&w[a..b])));
    }
    let whole = match ws.as_slice() {
        [(from, to)] => lower(&word[*from..*to]),
        _ => String::new(),
    };
    (!all.is_empty()).then_some((whole, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn code_words_give_their_whole_and_their_parts() {
        assert_eq!(
            texts("register_user"),
            ["register_user", "register", "user"]
        );
        assert_eq!(texts("registerUser"), ["registeruser", "register", "user"]);
        assert_eq!(
            texts("src/auth/mod.rs"),
            ["src/auth/mod.rs", "src", "auth", "mod", "rs"]
        );
        assert_eq!(texts("foo.bar()"), ["foo.bar", "foo", "bar"]);
        assert_eq!(texts("--no-verify"), ["no-verify", "no", "verify"]);
        assert_eq!(texts("E0432"), ["e0432"]);
        assert_eq!(
            texts("AppSidebar.tsx:46"),
            [
                "appsidebar.tsx:46",
                "appsidebar",
                "app",
                "sidebar",
                "tsx",
                "46"
            ]
        );
        assert_eq!(
            texts("foo.barBaz()"),
            ["foo.barbaz", "foo", "barbaz", "bar", "baz"]
        );
    }

    proptest::proptest! {
        /// The stream the indexer reads gives the tokens `tokens` makes.
        #[test]
        fn the_stream_gives_the_tokens(text in "\\PC*|[a-zA-Z_./:\\\\ -]*|[É東aZ09_ ]*") {
            let mut tokenizer = CodeTokenizer;
            let mut stream = tokenizer.token_stream(&text);
            let mut streamed = Vec::new();
            while stream.advance() {
                streamed.push(stream.token().clone());
            }
            proptest::prop_assert_eq!(streamed, tokens(&text));
        }
    }

    #[test]
    fn unicode_words_are_words() {
        assert_eq!(texts("Grüße, мир! 東京"), ["grüße", "мир", "東京"]);
    }

    #[test]
    fn query_words_split_like_the_text() {
        assert_eq!(
            query_terms("registerUser"),
            Some((
                "registeruser".into(),
                vec!["register".into(), "user".into()]
            ))
        );
        assert_eq!(
            query_terms("E0432"),
            Some(("e0432".into(), vec!["e0432".into()]))
        );
        assert_eq!(query_terms("()"), None);
    }
}
