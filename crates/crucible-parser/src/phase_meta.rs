//! A phase's quiet metadata: `<!-- phase: started=… tokens=… -->` on the line
//! under its heading. An HTML comment, so Obsidian, GitHub and editors'
//! previews hide it, and one line, so it stays out of a reader's way.

use crucible_core::PhaseMeta;

const OPEN: &str = "<!-- phase:";
const CLOSE: &str = "-->";

/// `None` when `html` is not a phase comment; `Some(Err)` when it is one but a
/// value cannot be read.
pub(crate) fn parse(html: &str) -> Option<Result<PhaseMeta, String>> {
    let inner = html.trim().strip_prefix(OPEN)?.strip_suffix(CLOSE)?;
    if inner.contains('\n') {
        return None;
    }
    Some(parse_pairs(inner.trim()))
}

fn parse_pairs(s: &str) -> Result<PhaseMeta, String> {
    let mut meta = PhaseMeta::default();
    for_each_pair(s, |key, value| {
        let bad = |what: &str| format!("`{key}={value}` is not {what}");
        match key {
            "started" => meta.started = Some(value.parse().map_err(|_| bad("a timestamp"))?),
            "duration_ms" => {
                meta.duration_ms = Some(value.parse().map_err(|_| bad("a whole number"))?);
            }
            "tokens" => {
                meta.tokens = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|&n| n <= crucible_core::MAX_SUM_TOKENS)
                        .ok_or_else(|| bad("a whole number of tokens up to 10^15"))?,
                );
            }
            "model" => meta.model = Some(value.to_owned()),
            // A cost that is none is kept as written, among the keys cru does
            // not know, and the rest of the line stands (see `not_a_cost`).
            "cost_usd" => match cost(value) {
                Some(c) => meta.cost_usd = Some(c),
                None => meta.extra.push((key.to_owned(), value.to_owned())),
            },
            _ => meta.extra.push((key.to_owned(), value.to_owned())),
        }
        Ok(())
    })?;
    Ok(meta)
}

/// A cost in dollars as `cost_usd` writes it ([`crucible_core::is_cost`]).
pub(crate) fn cost(value: &str) -> Option<f64> {
    value
        .parse::<f64>()
        .ok()
        .filter(|&c| crucible_core::is_cost(c))
}

/// What a reader says of a `cost_usd` that is no cost: the line's other
/// figures (its tokens) still count, and the value is kept as written.
pub(crate) fn not_a_cost(extra: &[(String, String)]) -> Option<String> {
    extra.iter().find(|(k, _)| k == "cost_usd").map(|(_, v)| {
        format!(
            "`cost_usd={v}` is not a cost (a number from 0 to {}): \
             the tokens count, priced from the price table",
            crucible_core::MAX_COST_USD
        )
    })
}

/// Calls `each` with every `key=value` pair of a comment's inside (values
/// bare, or quoted in JSON string syntax); stops at the first error.
pub(crate) fn for_each_pair(
    mut s: &str,
    mut each: impl FnMut(&str, &str) -> Result<(), String>,
) -> Result<(), String> {
    while !s.is_empty() {
        // One pass over the key's bytes: up to `=`, each a letter, digit or `_`.
        let key_len = s
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(s.len());
        let (key, rest) = match s[key_len..].strip_prefix('=') {
            Some(rest) if key_len > 0 => (&s[..key_len], rest),
            _ => {
                let Some((key, _)) = s.split_once('=') else {
                    return Err(format!("`{s}` is not key=value"));
                };
                return Err(format!("`{key}` is not a metadata key"));
            }
        };
        let (value, rest): (std::borrow::Cow<'_, str>, &str) = if rest.starts_with('"') {
            let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            let v = de
                .next()
                .ok_or("missing value")?
                .map_err(|e| format!("bad quoted value for `{key}`: {e}"))?;
            (v.into(), &rest[de.byte_offset()..])
        } else {
            let end = memchr::memchr(b' ', rest.as_bytes()).unwrap_or(rest.len());
            (rest[..end].into(), &rest[end..])
        };
        s = rest.trim_start();
        each(key, &value)?;
    }
    Ok(())
}

pub(crate) fn push_pair(out: &mut String, key: &str, value: &str) {
    out.push(' ');
    out.push_str(key);
    out.push('=');
    let bare = !value.is_empty()
        && !value.starts_with('"')
        && !value.contains([' ', '\t', '\n', '\r', '>'])
        && !value.contains("--");
    if bare {
        out.push_str(value);
    } else {
        // JSON string syntax, with `>` escaped so no value can close the comment.
        let quoted = serde_json::to_string(value).unwrap_or_default();
        out.push_str(&quoted.replace('>', "\\u003e"));
    }
}

/// The comment line, or nothing for empty metadata.
pub(crate) fn write(meta: &PhaseMeta) -> Option<String> {
    if meta.is_empty() {
        return None;
    }
    let mut out = String::from(OPEN);
    if let Some(s) = &meta.started {
        push_pair(&mut out, "started", s.as_str());
    }
    if let Some(d) = meta.duration_ms {
        push_pair(&mut out, "duration_ms", &d.to_string());
    }
    if let Some(t) = meta.tokens {
        push_pair(&mut out, "tokens", &t.to_string());
    }
    if let Some(m) = &meta.model {
        push_pair(&mut out, "model", m);
    }
    if let Some(c) = meta.cost_usd {
        push_pair(&mut out, "cost_usd", &c.to_string());
    }
    for (k, v) in &meta.extra {
        push_pair(&mut out, k, v);
    }
    out.push(' ');
    out.push_str(CLOSE);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_awkward_values() {
        let meta = PhaseMeta {
            started: Some("2025-12-05T14:32:15Z".parse().unwrap()),
            duration_ms: Some(1200),
            tokens: Some(450),
            model: Some("gpt 4 --> \"x\"".into()),
            cost_usd: Some(0.0123),
            extra: vec![("retries".into(), String::new())],
        };
        let line = write(&meta).unwrap();
        assert!(!line[4..line.len() - 3].contains("-->"), "{line}");
        assert_eq!(parse(&line).unwrap().unwrap(), meta);
    }

    #[test]
    fn other_comments_are_not_metadata() {
        assert!(parse("<!-- a note -->").is_none());
        assert!(parse("<!-- phase: tokens=many -->").unwrap().is_err());
        // A sum no phase reaches: refused, so no sum nears the largest u64.
        let most = crucible_core::MAX_SUM_TOKENS;
        assert!(
            parse(&format!("<!-- phase: tokens={most} -->"))
                .unwrap()
                .is_ok()
        );
        let err = parse(&format!("<!-- phase: tokens={} -->", most + 1))
            .unwrap()
            .unwrap_err();
        assert!(err.contains("up to 10^15"), "{err}");
    }
}
