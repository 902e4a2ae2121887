//! Reading a usage cell back, in one pass over its bytes.
//!
//! `usage monthly` and `stats` over 100,000 sessions decode over a million
//! lines. Splitting them with `str::split` by a `char` (a `memchr` and a
//! `memcmp` per field) and a `parse` per number was most of those
//! commands' user time (perf), so fields are cut at bytes here and numbers
//! read digit by digit.

use crucible_core::{Tokens, UsageLine};

/// Reads what [`super::encode`] wrote.
pub fn decode(cell: &str) -> Result<Vec<UsageLine>, String> {
    if cell.is_empty() {
        return Ok(Vec::new());
    }
    // Sized once: a row of a busy session holds a dozen lines or more.
    let mut lines = Vec::with_capacity(1 + cell.bytes().filter(|&b| b == b';').count());
    for l in Fields::new(cell, b';') {
        lines.push(line(l)?);
    }
    Ok(lines)
}

/// The parts of `text` between `sep` bytes (ASCII, so every cut is at a
/// character boundary), as `str::split` would give them.
struct Fields<'a> {
    text: &'a str,
    at: usize,
    sep: u8,
    done: bool,
}

impl<'a> Fields<'a> {
    fn new(text: &'a str, sep: u8) -> Self {
        Self {
            text,
            at: 0,
            sep,
            done: false,
        }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        let rest = &self.text.as_bytes()[self.at..];
        let start = self.at;
        if let Some(n) = rest.iter().position(|&b| b == self.sep) {
            self.at += n + 1;
            Some(&self.text[start..start + n])
        } else {
            self.done = true;
            Some(&self.text[start..])
        }
    }
}

/// A whole number as the encoder writes it: digits only.
fn uint(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.bytes().try_fold(0u64, |n, b| {
        let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
        n.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// A signed whole number: digits, perhaps after a `-`.
fn int(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(digits) => i64::try_from(-i128::from(uint(digits)?)).ok(),
        None => i64::try_from(uint(s)?).ok(),
    }
}

fn line(s: &str) -> Result<UsageLine, String> {
    let bad = || format!("usage `{s}` is not agent|channel|model|hour|... (16 fields)");
    let mut f = Fields::new(s, b'|');
    let mut next = || f.next().ok_or_else(bad);
    let (agent, channel, model) = (next()?, next()?, next()?);
    let hour = int(next()?).ok_or_else(bad)?;
    let (first, last) = (next()?, next()?);
    let mut nums = [0u64; 8];
    for n in &mut nums {
        *n = uint(next()?).ok_or_else(bad)?;
    }
    let [
        requests,
        input,
        output,
        cache_creation,
        cache_read,
        reasoning,
        cache_creation_1h,
        untyped,
    ] = nums;
    let cost = next()?;
    let above = next()?;
    if f.next().is_some() {
        return Err(bad());
    }
    let base_ms = hour.checked_mul(3_600_000).ok_or_else(bad)?;
    let at = |v: &str| {
        int(v)
            .and_then(|ms| base_ms.checked_add(ms))
            .ok_or_else(bad)
    };
    let (recorded, recorded_cost_usd) = match cost {
        "-" => (false, 0.0),
        c => (true, c.parse::<f64>().map_err(|_| bad())?),
    };
    Ok(UsageLine {
        phase: None,
        agent: untext(agent)?,
        channel: untext(channel)?,
        model: untext(model)?,
        hour: hour * 3_600,
        first_ms: at(first)?,
        last_ms: at(last)?,
        requests,
        tokens: Tokens {
            input,
            output,
            cache_creation,
            cache_read,
            reasoning,
            cache_creation_1h,
        },
        untyped,
        recorded,
        recorded_cost_usd,
        above: above_items(above).ok_or_else(bad)?,
    })
}

/// `threshold:in:out:cc:cr:cc1h` items joined by `+`.
fn above_items(s: &str) -> Option<Vec<(u64, Tokens)>> {
    if s.is_empty() {
        return Some(Vec::new());
    }
    Fields::new(s, b'+')
        .map(|item| {
            let mut it = Fields::new(item, b':');
            let mut next = || uint(it.next()?);
            let t = next()?;
            let tokens = Tokens {
                input: next()?,
                output: next()?,
                cache_creation: next()?,
                cache_read: next()?,
                reasoning: 0,
                cache_creation_1h: next()?,
            };
            it.next().is_none().then_some((t, tokens))
        })
        .collect()
}

pub(crate) fn untext(s: &str) -> Result<Option<String>, String> {
    match s {
        "" => Ok(None),
        "%" => Ok(Some(String::new())),
        _ if !s.contains('%') => Ok(Some(s.to_owned())),
        _ => {
            let mut bytes = Vec::with_capacity(s.len());
            let mut it = s.bytes();
            while let Some(b) = it.next() {
                if b == b'%' {
                    let hex = [it.next().unwrap_or(0), it.next().unwrap_or(0)];
                    let v = std::str::from_utf8(&hex)
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or_else(|| format!("bad escape in usage text `{s}`"))?;
                    bytes.push(v);
                } else {
                    bytes.push(b);
                }
            }
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| format!("usage text `{s}` is not UTF-8"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_as_str_split_does() {
        for text in ["", "a", "a|", "|a", "a||b", "||", "é|ü|日本"] {
            let ours: Vec<&str> = Fields::new(text, b'|').collect();
            let std: Vec<&str> = text.split('|').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn numbers_are_digits_within_range() {
        assert_eq!(uint("0"), Some(0));
        assert_eq!(uint("18446744073709551615"), Some(u64::MAX));
        assert_eq!(int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(int("-12"), Some(-12));
        for bad in ["", "+1", "1a", "18446744073709551616", " 1", "-"] {
            assert_eq!(uint(bad), None, "{bad:?}");
        }
        assert_eq!(int("9223372036854775808"), None);
        assert_eq!(int("--1"), None);
    }
}
