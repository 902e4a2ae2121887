//! A YAML number, kept as the text a YAML writer gives it.

use std::fmt;

/// A number, held as its canonical text (`31`, `-2`, `1.0`, `1e20`, `.inf`,
/// `.nan`), the text cru writes back. Keeping text rather than a parsed
/// value means an integer stays an integer and a float keeps its digits,
/// so a file read and written again has the same bytes.
#[derive(Debug, Clone)]
pub struct Number {
    text: String,
}

impl Number {
    /// A number from its canonical text; `None` when `text` is no number
    /// (a YAML reader's `0x1F` is `31` by the time it gets here).
    pub fn from_text(text: impl Into<String>) -> Option<Self> {
        let text = text.into();
        let n = Self { text };
        (n.as_i64().is_some() || n.as_u64().is_some() || n.as_f64().is_some()).then_some(n)
    }

    /// The text as written.
    pub fn as_text(&self) -> &str {
        &self.text
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.text.parse().ok()
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.text.parse().ok()
    }

    /// The value as a float: whole numbers too, as YAML readers do.
    pub fn as_f64(&self) -> Option<f64> {
        match self.text.as_str() {
            ".inf" => Some(f64::INFINITY),
            "-.inf" => Some(f64::NEG_INFINITY),
            ".nan" => Some(f64::NAN),
            t => t.parse().ok().filter(|f: &f64| f.is_finite()),
        }
    }

    /// True for a float (`1.0`, `.inf`), false for a whole number (`1`).
    pub fn is_float(&self) -> bool {
        self.as_u64().is_none() && self.as_i64().is_none()
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        Self {
            text: n.to_string(),
        }
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Self {
            text: n.to_string(),
        }
    }
}

impl From<f64> for Number {
    /// The shortest text that reads back as `f` (`1.0`, not `1`: a float
    /// stays a float).
    fn from(f: f64) -> Self {
        let text = if f.is_nan() {
            ".nan".to_owned()
        } else if f.is_infinite() {
            if f > 0.0 { ".inf" } else { "-.inf" }.to_owned()
        } else {
            format!("{f:?}")
        };
        Self { text }
    }
}

/// Equal as numbers: `1e3` and `1000.0` are one float, `1` and `1.0` are
/// not equal (an integer and a float), and NaN equals NaN so that a value
/// equals its own copy.
impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (self.is_float(), other.is_float()) {
            (false, false) => self.as_u64() == other.as_u64() && self.as_i64() == other.as_i64(),
            (true, true) => match (self.as_f64(), other.as_f64()) {
                (Some(a), Some(b)) => a == b || (a.is_nan() && b.is_nan()),
                _ => self.text == other.text,
            },
            _ => false,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_keep_their_point_and_ints_stay_ints() {
        assert_eq!(Number::from(1.0).as_text(), "1.0");
        assert_eq!(Number::from(1e20).as_text(), "1e20");
        assert_eq!(Number::from(f64::INFINITY).as_text(), ".inf");
        assert_eq!(Number::from(f64::NEG_INFINITY).as_text(), "-.inf");
        assert_eq!(Number::from(-3_i64).as_text(), "-3");
        assert!(Number::from(1.0).is_float());
        assert!(!Number::from(1_u64).is_float());
        assert_ne!(Number::from(1.0), Number::from(1_u64));
        assert_eq!(Number::from(f64::NAN), Number::from(f64::NAN));
        assert_eq!(Number::from_text("1e3"), Some(Number::from(1000.0)));
    }

    #[test]
    fn reads_its_value_back() {
        let n = Number::from_text("18446744073709551615").unwrap();
        assert_eq!(n.as_u64(), Some(u64::MAX));
        assert_eq!(n.as_i64(), None);
        assert_eq!(Number::from(-7_i64).as_f64(), Some(-7.0));
        assert_eq!(
            Number::from_text(".inf").unwrap().as_f64(),
            Some(f64::INFINITY)
        );
        assert!(
            Number::from_text(".nan")
                .unwrap()
                .as_f64()
                .unwrap()
                .is_nan()
        );
        assert_eq!(Number::from_text("12 monkeys"), None);
        assert_eq!(Number::from_text("inf"), None);
    }
}
