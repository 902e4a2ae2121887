//! A token estimate without a tokenizer.

/// Roughly how many tokens `text` costs a model: a quarter token per ASCII
/// character (English and code run near four characters a token with the
/// BPE tokenizers of GPT and Claude models) and half a token per other
/// character (accented letters, CJK and emoji cost more). Rounded up. It is
/// an estimate for budgeting, not a count: it can be off by a fifth either
/// way, which is why the default budget leaves room below real windows.
pub fn estimate_tokens(text: &str) -> u64 {
    let ascii = text.bytes().filter(u8::is_ascii).count() as u64;
    let other = text.chars().count() as u64 - ascii;
    (ascii + 2 * other).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_quarter_token_per_ascii_character() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens(&"x".repeat(4000)), 1000);
    }

    #[test]
    fn other_characters_cost_more() {
        assert_eq!(estimate_tokens("日本語の"), 2);
        assert!(estimate_tokens("é") >= 1);
    }
}
