//! Tokens by kind and by model, as every importer reports them: the
//! frontmatter's `usage` mapping and `tokens_used`, the same keys for every
//! agent so that `stats` and the peer check read one shape.

use std::collections::BTreeMap;

use crucible_core::Frontmatter;

/// Token counts of one model (or a whole session).
///
/// `input` is the input not read from a cache; `cache_read` and
/// `cache_creation` are the cached parts (an agent that reports cached
/// input inside its input count, as Codex does, is split when read).
/// `output` includes `reasoning`, which is kept apart for those who want it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub reasoning: u64,
}

impl Usage {
    /// Every token counted once: input, output and both cache parts.
    pub fn total(self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    pub fn is_zero(self) -> bool {
        self == Self::default()
    }

    pub fn add(&mut self, o: Self) {
        self.input += o.input;
        self.output += o.output;
        self.cache_creation += o.cache_creation;
        self.cache_read += o.cache_read;
        self.reasoning += o.reasoning;
    }

    fn mapping(self) -> crucible_core::yaml::Mapping {
        let mut m = crucible_core::yaml::Mapping::new();
        m.insert("input", self.input);
        m.insert("output", self.output);
        m.insert("cache_creation", self.cache_creation);
        m.insert("cache_read", self.cache_read);
        if self.reasoning > 0 {
            m.insert("reasoning", self.reasoning);
        }
        m
    }

    fn from_mapping(m: &crucible_core::yaml::Mapping) -> Self {
        let n = |k: &str| {
            m.get(k)
                .and_then(crucible_core::yaml::Value::as_u64)
                .unwrap_or(0)
        };
        Self {
            input: n("input"),
            output: n("output"),
            cache_creation: n("cache_creation"),
            cache_read: n("cache_read"),
            reasoning: n("reasoning"),
        }
    }
}

/// A session's tokens, by the model that spent them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct UsageByModel {
    pub models: BTreeMap<String, Usage>,
}

impl UsageByModel {
    /// Adds `usage` spent by `model` (`None`: a model the source did not name).
    pub fn add(&mut self, model: Option<&str>, usage: Usage) {
        self.models
            .entry(model.unwrap_or("unknown").to_owned())
            .or_default()
            .add(usage);
    }

    /// All models together.
    pub fn total(&self) -> Usage {
        let mut t = Usage::default();
        for u in self.models.values() {
            t.add(*u);
        }
        t
    }

    /// Writes `usage` (the kinds, and `models` when more than one model
    /// spent tokens) and `tokens_used` into the frontmatter; nothing when
    /// no token was counted.
    pub fn store(&self, fm: &mut Frontmatter) {
        let total = self.total();
        if total.is_zero() {
            return;
        }
        fm.tokens_used = Some(total.total());
        let mut m = total.mapping();
        if self.models.len() > 1 {
            let by: crucible_core::yaml::Mapping = self
                .models
                .iter()
                .map(|(k, u)| (k.clone(), u.mapping()))
                .collect();
            m.insert("models", by);
        }
        fm.extra.insert("usage", m);
    }

    /// Reads back what [`UsageByModel::store`] wrote (one model's usage is
    /// filed under the session's `model`).
    pub fn of(fm: &Frontmatter) -> Option<Self> {
        let m = fm.extra.get("usage")?.as_mapping()?;
        let mut out = Self::default();
        match m
            .get("models")
            .and_then(crucible_core::yaml::Value::as_mapping)
        {
            Some(by) => {
                for (k, v) in by {
                    if let (Some(k), Some(v)) = (k.as_str(), v.as_mapping()) {
                        out.add(Some(k), Usage::from_mapping(v));
                    }
                }
            }
            None => out.add(fm.model.as_deref(), Usage::from_mapping(m)),
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crucible_core::{SessionId, Timestamp};

    #[test]
    fn usage_round_trips_through_the_frontmatter() {
        let mut fm = Frontmatter::new(SessionId::new("s").unwrap(), Timestamp::from_unix_ms(0));
        let mut by = UsageByModel::default();
        by.add(
            Some("a"),
            Usage {
                input: 1,
                output: 2,
                cache_creation: 3,
                cache_read: 4,
                reasoning: 1,
            },
        );
        by.add(
            Some("b"),
            Usage {
                input: 10,
                ..Usage::default()
            },
        );
        by.store(&mut fm);
        assert_eq!(fm.tokens_used, Some(20));
        assert_eq!(UsageByModel::of(&fm), Some(by));
    }
}
