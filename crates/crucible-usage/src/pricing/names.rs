//! Which entry of the table prices a model name, ccusage's way.
//!
//! Sessions name models as their agent wrote them: dated
//! (`claude-sonnet-4-5-20250929`), undated (`claude-opus-4-6`), with a
//! provider in front (`anthropic/...`, `bedrock/...`,
//! `anthropic.claude-...-v1:0`), dotted or dashed (`gpt-5.1`, `gpt-5-1`).
//! The table names them as LiteLLM does. A name is looked up as written;
//! failing that, as one of ccusage's aliases; failing that, the table's
//! longest name that contains it or is contained in it wins, where
//! "contains" means at word boundaries: the characters on either side are
//! not letters or digits, and a name ending in a version number does not
//! match a longer version (`gpt-5` is not `gpt-5-1`, though
//! `claude-sonnet-4` is `claude-sonnet-4-20250514`: eight digits are a
//! date, not a version).

use std::collections::BTreeMap;

use super::ModelPrice;

/// Names ccusage maps to another before matching (its `pricing_alias`).
const ALIASES: [(&str, &str); 2] = [
    ("gpt-5.6", "gpt-5.6-sol"),
    ("gpt-5.3-spark", "gpt-5.3-codex-spark"),
];

/// A date suffix is `-YYYYMMDD`: this many digits.
const DATE_DIGITS: usize = 8;

/// The price `model` resolves to in `models`, if any.
pub(super) fn resolve(models: &BTreeMap<String, ModelPrice>, model: &str) -> Option<ModelPrice> {
    if let Some(p) = models.get(model) {
        return Some(p.clone());
    }
    if let Some(p) = fast_mode(models, model) {
        return Some(p);
    }
    if let Some((_, to)) = ALIASES.iter().find(|(from, _)| *from == model)
        && let Some(p) = models.get(*to)
    {
        return Some(p.clone());
    }
    let spelled = normalized(model);
    models
        .iter()
        .filter(|(key, _)| names_match(key, model, &spelled))
        // The longest name is the most specific; among equals, the first.
        .min_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)))
        .map(|(_, p)| p.clone())
}

/// `<m>-fast` for a model whose entry has a fast-mode multiplier: `<m>`'s
/// prices times it. Only then: `grok-4-fast` is a model of its own.
fn fast_mode(models: &BTreeMap<String, ModelPrice>, model: &str) -> Option<ModelPrice> {
    let base = model.strip_suffix("-fast")?;
    let p = resolve(models, base)?;
    p.fast.map(|f| p.scaled(f))
}

/// `.` and `@` spell the same separator as `-` (`gpt-5.1`, `claude-opus-5@eu`).
fn normalized(name: &str) -> String {
    name.replace(['.', '@'], "-")
}

fn names_match(key: &str, model: &str, model_spelled: &str) -> bool {
    if contains_name(model, key) || contains_name(key, model) {
        return true;
    }
    let key_spelled = normalized(key);
    contains_name(model_spelled, &key_spelled) || contains_name(&key_spelled, model_spelled)
}

/// True when `name` occurs in `text` at word boundaries.
fn contains_name(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].bytes().next_back();
        let after = &text[at + name.len()..];
        before.is_none_or(|b| !b.is_ascii_alphanumeric()) && ends_at_boundary(name, after)
    })
}

/// Whether the text after a match (`rest`) ends the name there: nothing, or
/// a separator that does not start a newer version of a versioned name.
fn ends_at_boundary(name: &str, rest: &str) -> bool {
    let Some(&sep) = rest.as_bytes().first() else {
        return true;
    };
    if sep.is_ascii_alphanumeric() {
        return false;
    }
    let versioned = name.as_bytes().last().is_some_and(u8::is_ascii_digit);
    if !versioned || !matches!(sep, b'-' | b'.') {
        return true;
    }
    let tail = &rest.as_bytes()[1..];
    let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return true;
    }
    // `-20250514` after `claude-sonnet-4` is a date: the same model.
    digits == DATE_DIGITS && tail.get(digits).is_none_or(|b| !b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str]) -> BTreeMap<String, ModelPrice> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_owned(), ModelPrice::new(i as f64, 0.0)))
            .collect()
    }

    fn which(models: &BTreeMap<String, ModelPrice>, model: &str) -> Option<String> {
        let p = resolve(models, model)?;
        models
            .iter()
            .find(|(_, v)| **v == p)
            .map(|(k, _)| k.clone())
    }

    #[test]
    fn dated_prefixed_and_dotted_names_find_their_model() {
        let t = table(&[
            "claude-sonnet-4-5",
            "claude-sonnet-4",
            "gpt-5",
            "gpt-5.1-codex",
        ]);
        let w = |m| which(&t, m);
        assert_eq!(
            w("claude-sonnet-4-5-20250929").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            w("claude-sonnet-4-20250514").as_deref(),
            Some("claude-sonnet-4")
        );
        assert_eq!(
            w("anthropic/claude-sonnet-4-5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            w("bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(w("gpt-5-1-codex").as_deref(), Some("gpt-5.1-codex"));
    }

    #[test]
    fn a_version_is_not_an_older_one() {
        let t = table(&["gpt-5", "claude-opus-4"]);
        assert_eq!(which(&t, "gpt-5.2"), None, "gpt-5.2 is not gpt-5");
        assert_eq!(which(&t, "claude-opus-4-6"), None);
        assert_eq!(which(&t, "gpt-50"), None);
        assert_eq!(which(&t, "gpt-5-mini").as_deref(), Some("gpt-5"));
    }

    #[test]
    fn the_longest_matching_name_wins() {
        let t = table(&[
            "claude-opus-4-1",
            "eu.anthropic.claude-opus-4-1-20250805-v1:0",
            "us.anthropic.claude-opus-4-1-20250805-v1:0",
        ]);
        assert_eq!(
            which(&t, "claude-opus-4-1-20250805").as_deref(),
            Some("eu.anthropic.claude-opus-4-1-20250805-v1:0")
        );
    }

    #[test]
    fn unknown_names_have_no_price() {
        let t = table(&["claude-sonnet-4-5", "gpt-5"]);
        assert_eq!(which(&t, "llama3.2"), None);
        assert_eq!(which(&t, ""), None);
        assert_eq!(which(&t, "sonnet-4-5x"), None);
    }

    #[test]
    fn fast_names_take_the_base_price_times_its_multiplier() {
        let mut t = table(&["claude-opus-4-8", "grok-4-fast-reasoning", "grok-4"]);
        t.get_mut("claude-opus-4-8").unwrap().fast = Some(2.0);
        let opus = resolve(&t, "claude-opus-4-8").unwrap();
        assert_eq!(resolve(&t, "claude-opus-4-8-fast"), Some(opus.scaled(2.0)));
        assert_eq!(
            which(&t, "grok-4-fast").as_deref(),
            Some("grok-4-fast-reasoning")
        );
    }
}
