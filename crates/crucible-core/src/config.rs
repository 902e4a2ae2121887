//! Configuration: `[session]`, `[agent]` and `[pricing]` settings from TOML
//! files, layered.
//!
//! The CLI finds the files (`~/.config/crucible/config.toml` or
//! `$CRUCIBLE_CONFIG`, then `<kiln>/.crucible/config.toml`) and hands them
//! here in order; a later layer wins key by key. Unknown keys are errors that
//! name the key, because a misspelt setting that is silently ignored is worse
//! than no setting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::{SubagentMode, TIER_THRESHOLDS};

/// The settings every command reads, with defaults filled in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    pub session: SessionConfig,
    pub agent: AgentConfig,
    pub pricing: PricingConfig,
    pub capture: CaptureConfig,
    /// The files that were read, lowest precedence first.
    pub sources: Vec<PathBuf>,
}

/// The `[session]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    /// Sessions directory, already resolved against the file that set it.
    pub dir: Option<PathBuf>,
    pub subagent_mode: SubagentMode,
    pub save: SaveMode,
    /// An active session idle this long is paused.
    pub idle_timeout: Duration,
    /// Token budget of the context `cru session resume` builds.
    pub resume_token_budget: u64,
    /// Session files larger than this are skipped with a warning
    /// (`max_file_size`, e.g. `"64MiB"` or a number of bytes).
    pub max_file_bytes: u64,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            dir: None,
            subagent_mode: SubagentMode::Link,
            save: SaveMode::Phase,
            idle_timeout: Duration::from_secs(2 * 3600),
            resume_token_budget: 32_000,
            max_file_bytes: crate::store::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// The `[capture]` table: whether the sessions of the agents run in a
/// project are recorded (hooks, `cru watch`, `cru session import` with no
/// path), and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureConfig {
    /// `enabled = false`: this project's sessions are not captured.
    pub enabled: bool,
    /// `project = true`: captured sessions go to the project's own
    /// sessions directory (`<project>/.crucible/sessions`, or its
    /// `[session] dir`), not the user's.
    pub project: bool,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            project: false,
        }
    }
}

/// The `[agent]` table: the backend `cru session resume` (and later codify
/// and eval) hand work to.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// `command` or `openai`; when not set, `command` if a command is
    /// given, `openai` if a base URL is.
    pub backend: Option<AgentBackendKind>,
    /// The program, run with `sh -c`: `claude -p`, `ollama run llama3.2`, ...
    pub command: Option<String>,
    /// An OpenAI-compatible API root, e.g. `http://localhost:11434/v1`.
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The name of the environment variable that holds the API key (the
    /// key itself never goes in a config file).
    pub api_key_env: Option<String>,
    /// How long one reply may take.
    pub timeout: Duration,
    /// The agent replies are recorded as (`name@version`).
    pub name: Option<String>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            backend: None,
            command: None,
            base_url: None,
            model: None,
            api_key_env: None,
            timeout: Duration::from_secs(300),
            name: None,
        }
    }
}

/// The kinds of agent backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentBackendKind {
    Command,
    OpenAi,
}

impl AgentConfig {
    /// The backend the settings ask for: the explicit one, else the one
    /// whose setting is present; `None` when nothing is configured.
    pub fn kind(&self) -> Option<AgentBackendKind> {
        self.backend.or(if self.command.is_some() {
            Some(AgentBackendKind::Command)
        } else if self.base_url.is_some() {
            Some(AgentBackendKind::OpenAi)
        } else {
            None
        })
    }
}

/// The `[pricing]` table: prices that replace the price table's or add
/// models to it, in US dollars per million tokens (the unit providers'
/// price pages use).
///
/// ```toml
/// [pricing.models."claude-sonnet-4-5"]
/// input = 3.0
/// output = 15.0
/// cache_write = 3.75
/// cache_read = 0.3
/// tiers = [{ above = 200000, input = 6.0, output = 22.5 }]
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PricingConfig {
    /// By model name, as sessions name the model.
    pub models: BTreeMap<String, ModelPriceConfig>,
}

/// One model's prices, per million tokens; a price not given is the price
/// table's. A later file overrides an earlier one price by price.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelPriceConfig {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_write: Option<f64>,
    pub cache_read: Option<f64>,
    /// Prices of the tokens above a context size; when given, they replace
    /// the table's tiers for the model.
    pub tiers: Option<Vec<PriceTierConfig>>,
}

/// The prices of a kind's tokens above `above` tokens in one request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PriceTierConfig {
    /// One of [`TIER_THRESHOLDS`]: the sizes usage lines keep the excess of.
    pub above: u64,
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_write: Option<f64>,
    pub cache_read: Option<f64>,
}

/// When a live session is written to disk (seed 004, open question 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// At every phase boundary, and on pause and end.
    Phase,
    /// After every event, durably.
    Tool,
    /// At most this long after an event.
    Interval(Duration),
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read configuration: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// One configuration file as written; every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    session: SessionTable,
    #[serde(default)]
    agent: AgentTable,
    #[serde(default)]
    pricing: PricingTable,
    #[serde(default)]
    capture: CaptureTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaptureTable {
    enabled: Option<bool>,
    project: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PricingTable {
    #[serde(default)]
    models: BTreeMap<String, ModelPriceTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelPriceTable {
    input: Option<Spanned<f64>>,
    output: Option<Spanned<f64>>,
    cache_write: Option<Spanned<f64>>,
    cache_read: Option<Spanned<f64>>,
    tiers: Option<Vec<PriceTierTable>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceTierTable {
    above: Spanned<u64>,
    input: Option<Spanned<f64>>,
    output: Option<Spanned<f64>>,
    cache_write: Option<Spanned<f64>>,
    cache_read: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentTable {
    backend: Option<String>,
    command: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    timeout: Option<String>,
    name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionTable {
    dir: Option<String>,
    subagent_mode: Option<String>,
    save_policy: Option<String>,
    save_interval: Option<String>,
    idle_timeout: Option<String>,
    resume_token_budget: Option<u64>,
    max_file_size: Option<toml::Value>,
}

/// A configuration file to read, and the directory its relative paths are
/// relative to (the kiln for `<kiln>/.crucible/config.toml`).
#[derive(Debug, Clone)]
pub struct ConfigLayer {
    pub path: PathBuf,
    pub base_dir: PathBuf,
}

impl Config {
    /// Reads each layer that exists, later layers overriding earlier ones.
    /// `home` expands a leading `~/` in paths.
    pub fn load(layers: &[ConfigLayer], home: Option<&Path>) -> Result<Self, ConfigError> {
        let mut config = Self::default();
        let mut interval = None;
        let mut policy = None;
        for layer in layers {
            let text = match std::fs::read_to_string(&layer.path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(ConfigError::Read {
                        path: layer.path.clone(),
                        source,
                    });
                }
            };
            let file_text = FileText {
                path: &layer.path,
                text: &text,
            };
            let file: ConfigFile = toml::from_str(&text).map_err(|e| {
                let line = e
                    .span()
                    .map_or(1, |s| text[..s.start].matches('\n').count() + 1);
                file_text.invalid(line, e.message().to_owned())
            })?;
            file_text.read_session(
                file.session,
                &mut config.session,
                home,
                &layer.base_dir,
                &mut policy,
                &mut interval,
            )?;
            file_text.read_agent(file.agent, &mut config.agent)?;
            file_text.read_pricing(file.pricing, &mut config.pricing)?;
            if let Some(enabled) = file.capture.enabled {
                config.capture.enabled = enabled;
            }
            if let Some(project) = file.capture.project {
                config.capture.project = project;
            }
            config.sources.push(layer.path.clone());
        }
        config.session.save = match policy.as_deref() {
            Some("tool") => SaveMode::Tool,
            Some("interval") => SaveMode::Interval(interval.unwrap_or(Duration::from_secs(30))),
            _ => SaveMode::Phase,
        };
        Ok(config)
    }
}

/// One configuration file's text: its errors name the file and the line.
struct FileText<'a> {
    path: &'a Path,
    text: &'a str,
}

impl FileText<'_> {
    fn invalid(&self, line: usize, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            line,
            message,
        }
    }

    fn line_of(&self, key: &str) -> usize {
        line_of_key(self.text, key)
    }

    /// The `[session]` table over what the earlier files said; the save
    /// policy and interval are decided once every file is read.
    fn read_session(
        &self,
        s: SessionTable,
        session: &mut SessionConfig,
        home: Option<&Path>,
        base_dir: &Path,
        policy: &mut Option<String>,
        interval: &mut Option<Duration>,
    ) -> Result<(), ConfigError> {
        if let Some(dir) = s.dir {
            session.dir = Some(resolve_path(&dir, base_dir, home));
        }
        if let Some(mode) = s.subagent_mode {
            session.subagent_mode = SubagentMode::parse(&mode).ok_or_else(|| {
                self.invalid(
                    self.line_of("subagent_mode"),
                    format!("session.subagent_mode `{mode}` is not one of inline, link, embed"),
                )
            })?;
        }
        if let Some(p) = s.save_policy {
            if !matches!(p.as_str(), "phase" | "tool" | "interval") {
                return Err(self.invalid(
                    self.line_of("save_policy"),
                    format!("session.save_policy `{p}` is not one of phase, tool, interval"),
                ));
            }
            *policy = Some(p);
        }
        if let Some(i) = s.save_interval {
            *interval = Some(parse_duration(&i).ok_or_else(|| {
                self.invalid(
                    self.line_of("save_interval"),
                    duration_error("save_interval", &i),
                )
            })?);
        }
        if let Some(t) = s.idle_timeout {
            session.idle_timeout = parse_duration(&t).ok_or_else(|| {
                self.invalid(
                    self.line_of("idle_timeout"),
                    duration_error("idle_timeout", &t),
                )
            })?;
        }
        if let Some(b) = s.resume_token_budget {
            session.resume_token_budget = b;
        }
        if let Some(v) = s.max_file_size {
            session.max_file_bytes = parse_size(&v).ok_or_else(|| {
                self.invalid(
                    self.line_of("max_file_size"),
                    format!(
                        "`max_file_size = {v}` is not a size (expected a number of bytes or a string such as \"64MiB\", \"500KB\", \"1GiB\")"
                    ),
                )
            })?;
        }
        Ok(())
    }

    /// The `[agent]` table over what the earlier files said.
    fn read_agent(&self, a: AgentTable, agent: &mut AgentConfig) -> Result<(), ConfigError> {
        if let Some(b) = a.backend {
            agent.backend = Some(match b.to_ascii_lowercase().as_str() {
                "command" => AgentBackendKind::Command,
                "openai" => AgentBackendKind::OpenAi,
                _ => {
                    return Err(self.invalid(
                        self.line_of("backend"),
                        format!("agent.backend `{b}` is not one of command, openai"),
                    ));
                }
            });
        }
        if let Some(t) = a.timeout {
            agent.timeout = parse_duration(&t).filter(|d| !d.is_zero()).ok_or_else(|| {
                self.invalid(
                    self.line_of("timeout"),
                    format!("agent.timeout `{t}` is not a duration (expected e.g. 30s, 5m)"),
                )
            })?;
        }
        for (value, slot) in [
            (a.command, &mut agent.command),
            (a.base_url, &mut agent.base_url),
            (a.model, &mut agent.model),
            (a.api_key_env, &mut agent.api_key_env),
            (a.name, &mut agent.name),
        ] {
            if value.is_some() {
                *slot = value;
            }
        }
        Ok(())
    }
}

impl FileText<'_> {
    /// The `[pricing]` table over what the earlier files said, price by
    /// price; a model's `tiers`, when given, replace the earlier ones.
    fn read_pricing(
        &self,
        p: PricingTable,
        pricing: &mut PricingConfig,
    ) -> Result<(), ConfigError> {
        for (model, m) in p.models {
            let price = |v: Option<Spanned<f64>>, key: &str| self.price(&model, key, v);
            let input = price(m.input, "input")?;
            let output = price(m.output, "output")?;
            let cache_write = price(m.cache_write, "cache_write")?;
            let cache_read = price(m.cache_read, "cache_read")?;
            let tiers = match m.tiers {
                Some(ts) => Some(
                    ts.into_iter()
                        .map(|t| self.tier(&model, t))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                None => None,
            };
            let slot = pricing.models.entry(model).or_default();
            for (value, field) in [
                (input, &mut slot.input),
                (output, &mut slot.output),
                (cache_write, &mut slot.cache_write),
                (cache_read, &mut slot.cache_read),
            ] {
                if value.is_some() {
                    *field = value;
                }
            }
            if tiers.is_some() {
                slot.tiers = tiers;
            }
        }
        Ok(())
    }

    fn tier(&self, model: &str, t: PriceTierTable) -> Result<PriceTierConfig, ConfigError> {
        let above = *t.above.get_ref();
        if !TIER_THRESHOLDS.contains(&above) {
            let known: Vec<String> = TIER_THRESHOLDS.iter().map(u64::to_string).collect();
            return Err(self.invalid(
                self.line_at(t.above.span().start),
                format!(
                    "pricing.models.\"{model}\": tier `above = {above}` is not one of {}",
                    known.join(", ")
                ),
            ));
        }
        Ok(PriceTierConfig {
            above,
            input: self.price(model, "input", t.input)?,
            output: self.price(model, "output", t.output)?,
            cache_write: self.price(model, "cache_write", t.cache_write)?,
            cache_read: self.price(model, "cache_read", t.cache_read)?,
        })
    }

    /// A price as written, checked: a finite number, not negative.
    fn price(
        &self,
        model: &str,
        key: &str,
        v: Option<Spanned<f64>>,
    ) -> Result<Option<f64>, ConfigError> {
        let Some(v) = v else { return Ok(None) };
        let n = *v.get_ref();
        if n.is_finite() && n >= 0.0 {
            return Ok(Some(n));
        }
        Err(self.invalid(
            self.line_at(v.span().start),
            format!(
                "pricing.models.\"{model}\".{key} `{n}` is not a price (expected US dollars per million tokens, 0 or more)"
            ),
        ))
    }

    fn line_at(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }
}

fn duration_error(key: &str, value: &str) -> String {
    format!("session.{key} `{value}` is not a duration (expected e.g. 30s, 15m, 2h, 1d)")
}

fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

/// `30s`, `15m`, `2h`, `1d`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u64 = s[..split].parse().ok()?;
    let unit = match s[split..].trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n.checked_mul(unit)?))
}

fn resolve_path(raw: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (raw.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    let p = Path::new(raw);
    if p.is_absolute() {
        p.to_owned()
    } else {
        base.join(p)
    }
}

/// A size in bytes: an integer, or a string with a unit (`B`, `KB`, `KiB`,
/// `MB`, `MiB`, `GB`, `GiB`, case-insensitive).
fn parse_size(v: &toml::Value) -> Option<u64> {
    match v {
        toml::Value::Integer(n) => u64::try_from(*n).ok().filter(|n| *n > 0),
        toml::Value::String(s) => {
            let s = s.trim();
            let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let (num, unit) = s.split_at(split);
            let n: u64 = num.parse().ok()?;
            let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
                "" | "b" => 1,
                "kb" => 1_000,
                "kib" | "k" => 1 << 10,
                "mb" => 1_000_000,
                "mib" | "m" => 1 << 20,
                "gb" => 1_000_000_000,
                "gib" | "g" => 1 << 30,
                _ => return None,
            };
            n.checked_mul(mult).filter(|n| *n > 0)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(dir: &Path, name: &str, text: &str) -> ConfigLayer {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        ConfigLayer {
            path,
            base_dir: dir.to_owned(),
        }
    }

    #[test]
    fn capture_is_on_by_default_and_a_project_turns_it_off_or_keeps_its_own() {
        let t = tempfile::tempdir().unwrap();
        let c = Config::load(&[], None).unwrap();
        assert_eq!(c.capture, CaptureConfig::default());
        assert!(c.capture.enabled && !c.capture.project);
        let user = layer(t.path(), "user.toml", "[capture]\nproject = true\n");
        let kiln = layer(t.path(), "kiln.toml", "[capture]\nenabled = false\n");
        let c = Config::load(&[user, kiln], None).unwrap();
        assert_eq!(
            c.capture,
            CaptureConfig {
                enabled: false,
                project: true
            }
        );
        let typo = layer(t.path(), "typo.toml", "[capture]\nenable = false\n");
        let e = Config::load(&[typo], None).unwrap_err().to_string();
        assert!(e.contains("typo.toml:2") && e.contains("enable"), "{e}");
    }

    #[test]
    fn later_layers_win_and_paths_resolve_against_their_base() {
        let t = tempfile::tempdir().unwrap();
        let user = layer(
            t.path(),
            "user.toml",
            "[session]\ndir = \"~/s\"\nsubagent_mode = \"embed\"\nidle_timeout = \"15m\"\n",
        );
        let kiln = layer(t.path(), "kiln.toml", "[session]\ndir = \"sessions\"\n");
        let c = Config::load(&[user, kiln], Some(Path::new("/home/u"))).unwrap();
        assert_eq!(c.session.dir, Some(t.path().join("sessions")));
        assert_eq!(c.session.subagent_mode, SubagentMode::Embed);
        assert_eq!(c.session.idle_timeout, Duration::from_secs(900));
        assert_eq!(c.sources.len(), 2);
    }

    #[test]
    fn the_agent_table_layers_and_infers_its_backend() {
        let t = tempfile::tempdir().unwrap();
        let user = layer(
            t.path(),
            "user.toml",
            "[agent]\nbase_url = \"http://localhost:11434/v1\"\nmodel = \"llama3.2\"\ntimeout = \"2m\"\n",
        );
        let c = Config::load(std::slice::from_ref(&user), None).unwrap();
        assert_eq!(c.agent.kind(), Some(AgentBackendKind::OpenAi));
        assert_eq!(c.agent.timeout, Duration::from_secs(120));
        let kiln = layer(
            t.path(),
            "kiln.toml",
            "[agent]\nbackend = \"command\"\ncommand = \"claude -p\"\n",
        );
        let c = Config::load(&[user, kiln], None).unwrap();
        assert_eq!(c.agent.kind(), Some(AgentBackendKind::Command));
        assert_eq!(c.agent.command.as_deref(), Some("claude -p"));
        assert_eq!(c.agent.model.as_deref(), Some("llama3.2"));
        assert_eq!(Config::default().agent.kind(), None);

        let bad = layer(t.path(), "bad.toml", "[agent]\n\nbackend = \"grpc\"\n");
        let e = Config::load(&[bad], None).unwrap_err().to_string();
        assert!(
            e.contains("bad.toml:3:") && e.contains("command, openai"),
            "{e}"
        );
    }

    #[test]
    fn unknown_keys_are_errors_that_name_the_key_and_line() {
        let t = tempfile::tempdir().unwrap();
        let l = layer(t.path(), "c.toml", "[session]\n\nsave_polcy = \"tool\"\n");
        let e = Config::load(&[l], None).unwrap_err().to_string();
        assert!(e.contains("c.toml:3:"), "{e}");
        assert!(e.contains("save_polcy"), "{e}");
    }

    #[test]
    fn bad_values_name_the_line() {
        let t = tempfile::tempdir().unwrap();
        let l = layer(t.path(), "c.toml", "[session]\nidle_timeout = \"soon\"\n");
        let e = Config::load(&[l], None).unwrap_err().to_string();
        assert!(e.contains("c.toml:2:") && e.contains("soon"), "{e}");
    }

    #[test]
    fn pricing_layers_price_by_price_and_tiers_replace() {
        let t = tempfile::tempdir().unwrap();
        let user = layer(
            t.path(),
            "user.toml",
            "[pricing.models.\"gpt-5.1\"]\ninput = 1\noutput = 10.5\ntiers = [{ above = 272000, input = 2.5 }]\n",
        );
        let kiln = layer(
            t.path(),
            "kiln.toml",
            "[pricing.models.\"gpt-5.1\"]\ninput = 1.25\ntiers = []\n\n[pricing.models.local]\ninput = 0\noutput = 0\n",
        );
        let c = Config::load(&[user, kiln], None).unwrap();
        let gpt = &c.pricing.models["gpt-5.1"];
        assert_eq!((gpt.input, gpt.output), (Some(1.25), Some(10.5)));
        assert_eq!(gpt.tiers, Some(vec![]));
        assert_eq!(c.pricing.models["local"].output, Some(0.0));
    }

    #[test]
    fn bad_prices_and_tiers_name_the_line() {
        let t = tempfile::tempdir().unwrap();
        let neg = layer(
            t.path(),
            "neg.toml",
            "[pricing.models.m]\ninput = 1\noutput = -2\n",
        );
        let e = Config::load(&[neg], None).unwrap_err().to_string();
        assert!(
            e.contains("neg.toml:3:") && e.contains("output `-2`"),
            "{e}"
        );
        let tier = layer(
            t.path(),
            "tier.toml",
            "[pricing.models.m]\ninput = 1\ntiers = [\n  { above = 150000, input = 2 },\n]\n",
        );
        let e = Config::load(&[tier], None).unwrap_err().to_string();
        assert!(e.contains("tier.toml:4:") && e.contains("200000"), "{e}");
        let text = layer(
            t.path(),
            "text.toml",
            "[pricing.models.m]\ninput = \"cheap\"\n",
        );
        let e = Config::load(&[text], None).unwrap_err().to_string();
        assert!(e.contains("text.toml:2:"), "{e}");
        let key = layer(
            t.path(),
            "key.toml",
            "[pricing.models.m]\ncache_write_5m = 1\n",
        );
        let e = Config::load(&[key], None).unwrap_err().to_string();
        assert!(e.contains("cache_write_5m"), "{e}");
    }

    #[test]
    fn missing_files_are_skipped() {
        let c = Config::load(
            &[ConfigLayer {
                path: "/nonexistent/c.toml".into(),
                base_dir: "/".into(),
            }],
            None,
        )
        .unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("5w"), None);
    }
}
