//! Numbers as people read them, the same in the terminal and in a page:
//! `18,420` tokens, `2h 13m 7s`.

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `7987000` ms → `2h 13m 7s`.
pub fn duration(ms: i64) -> String {
    let s = ms / 1000;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m {s}s"),
        _ => format!("{h}h {m}m {s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_read_easily() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(18420), "18,420");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(duration(7_987_000), "2h 13m 7s");
        assert_eq!(duration(59_000), "59s");
        assert_eq!(duration(540_000), "9m 0s");
    }
}
