//! Which entry of the table prices a model name, ccusage's way.
//!
//! Sessions name models as their agent wrote them: dated
//! (`claude-sonnet-4-5-20250929`), undated (`claude-opus-4-6`), with a
//! provider in front (`anthropic/...`, `bedrock/...`,
//! `anthropic.claude-...-v1:0`), dotted or dashed (`gpt-5.1`, `gpt-5-1`).
//! The table names them as LiteLLM does. A name is looked up as written;
//! then as one of ccusage's aliases; then spelled with dashes for dots;
//! then without its provider path; and last, as ccusage matches: the
//! table's longest name that contains it or is contained in it, where
//! "contains" means at word boundaries: the characters on either side are
//! not letters or digits, and a name ending in a version number does not
//! match a longer version (`gpt-5` is not `gpt-5-1`, though
//! `claude-sonnet-4` is `claude-sonnet-4-20250514`: eight digits are a
//! date, not a version).
//!
//! ccusage embeds a part of LiteLLM's list (Anthropic, OpenAI, Azure,
//! Bedrock, OpenRouter's OpenAI models); cru ships all of it, where
//! resellers' entries (`vercel_ai_gateway/anthropic/claude-sonnet-4.5`,
//! `bedrock/us-gov-east-1/...` at a premium) would often be the longest
//! match. The steps before the longest match, and plain names matched
//! before names with a provider path, keep a name on the provider's own
//! price, which is the one ccusage finds in its smaller list.

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
/// The table's name and price `model` resolves to in `models`, if any
/// (a `-fast` name's price is its base's, scaled; the name is the base's).
pub(super) fn resolve(
    models: &BTreeMap<String, ModelPrice>,
    model: &str,
) -> Option<(String, ModelPrice)> {
    if let Some(p) = models.get(model) {
        return Some((model.to_owned(), p.clone()));
    }
    if let Some(found) = fast_mode(models, model) {
        return Some(found);
    }
    if let Some((_, to)) = ALIASES.iter().find(|(from, _)| *from == model)
        && let Some(p) = models.get(*to)
    {
        return Some(((*to).to_owned(), p.clone()));
    }
    let spelled = normalized(model);
    let first = |keys: &mut dyn Iterator<Item = (&String, &ModelPrice)>, longest: bool| {
        keys.min_by(|(a, _), (b, _)| {
            let by_length = if longest {
                b.len().cmp(&a.len())
            } else {
                a.len().cmp(&b.len())
            };
            by_length.then_with(|| a.cmp(b))
        })
        .map(|(k, p)| (k.clone(), p.clone()))
    };
    if let Some(found) = first(
        &mut models.iter().filter(|(k, _)| normalized(k) == spelled),
        false,
    ) {
        return Some(found);
    }
    if let Some((_, bare)) = model.rsplit_once('/')
        && let Some(found) = resolve(models, bare)
    {
        return Some(found);
    }
    let matching = |(key, _): &(&String, &ModelPrice)| names_match(key, model, &spelled);
    // The longest name is the most specific; among equals, the first.
    first(
        &mut models
            .iter()
            .filter(|e| !e.0.contains('/'))
            .filter(matching),
        true,
    )
    .or_else(|| first(&mut models.iter().filter(matching), true))
}

/// `<m>-fast` for a model whose entry has a fast-mode multiplier (or is
/// in [`FAST_MODE_NOT_IN_LITELLM`]): `<m>`'s prices times it. Only then:
/// `grok-4-fast` is a model of its own.
fn fast_mode(models: &BTreeMap<String, ModelPrice>, model: &str) -> Option<(String, ModelPrice)> {
    let (name, p) = resolve(models, model.strip_suffix("-fast")?)?;
    let factor = p.fast.or_else(|| fast_mode_not_in_litellm(&name))?;
    Some((name, p.scaled(factor)))
}

/// Fast-mode multipliers LiteLLM's list does not carry (it has them for
/// later models only): Anthropic bills Claude Code's fast mode on Opus 4.6
/// and 4.7 at six times the standard rates ($30/$150 per million input and
/// output tokens against $5/$25), and ccusage prices them so. A dated name
/// (`claude-opus-4-6-20260205`) is its model's.
const FAST_MODE_NOT_IN_LITELLM: [(&str, f64); 2] =
    [("claude-opus-4-6", 6.0), ("claude-opus-4-7", 6.0)];

fn fast_mode_not_in_litellm(name: &str) -> Option<f64> {
    FAST_MODE_NOT_IN_LITELLM
        .iter()
        .find(|(base, _)| {
            name.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || is_date_suffix(rest))
        })
        .map(|&(_, factor)| factor)
}

/// `-YYYYMMDD`.
fn is_date_suffix(rest: &str) -> bool {
    rest.len() == 9 && rest.starts_with('-') && rest[1..].bytes().all(|b| b.is_ascii_digit())
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
        resolve(models, model).map(|(name, _)| name)
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
    fn provider_paths_and_dots_find_the_providers_own_price() {
        let t = table(&[
            "claude-sonnet-4-6",
            "databricks/databricks-claude-sonnet-4-6",
            "claude-sonnet-4-5",
            "vercel_ai_gateway/anthropic/claude-sonnet-4.5",
            "openrouter/openai/gpt-5",
            "gpt-5",
        ]);
        let w = |m| which(&t, m);
        assert_eq!(w("claude-sonnet-4.6").as_deref(), Some("claude-sonnet-4-6"));
        assert_eq!(
            w("anthropic/claude-sonnet-4-5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            w("openrouter/openai/gpt-5").as_deref(),
            Some("openrouter/openai/gpt-5")
        );
        assert_eq!(
            w("my-gateway/claude-sonnet-4-6-20260101").as_deref(),
            Some("claude-sonnet-4-6")
        );
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
    fn opus_4_6_and_4_7_fast_mode_is_six_times_though_litellm_omits_it() {
        let t = table(&[
            "claude-opus-4-6",
            "claude-opus-4-6-20260205",
            "claude-opus-4-7",
            "claude-opus-4-5",
        ]);
        for base in [
            "claude-opus-4-6",
            "claude-opus-4-6-20260205",
            "claude-opus-4-7",
        ] {
            let (_, standard) = resolve(&t, base).unwrap();
            let fast = resolve(&t, &format!("{base}-fast"));
            assert_eq!(
                fast,
                Some((base.to_owned(), standard.scaled(6.0))),
                "{base}"
            );
        }
        // Opus 4.5 has no fast mode: its `-fast` name is priced as itself.
        let (name, p) = resolve(&t, "claude-opus-4-5-fast").unwrap();
        assert_eq!(
            (name.as_str(), p),
            ("claude-opus-4-5", resolve(&t, "claude-opus-4-5").unwrap().1)
        );
        assert_eq!(fast_mode_not_in_litellm("claude-opus-4-60"), None);
        assert_eq!(fast_mode_not_in_litellm("claude-opus-4-6-thinking"), None);
    }

    #[test]
    fn fast_names_take_the_base_price_times_its_multiplier() {
        let mut t = table(&["claude-opus-4-8", "grok-4-fast-reasoning", "grok-4"]);
        t.get_mut("claude-opus-4-8").unwrap().fast = Some(2.0);
        let (_, opus) = resolve(&t, "claude-opus-4-8").unwrap();
        let fast = resolve(&t, "claude-opus-4-8-fast");
        assert_eq!(fast, Some(("claude-opus-4-8".to_owned(), opus.scaled(2.0))));
        assert_eq!(
            which(&t, "grok-4-fast").as_deref(),
            Some("grok-4-fast-reasoning")
        );
    }
}
