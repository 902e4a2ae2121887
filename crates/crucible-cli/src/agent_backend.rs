//! The agent backend a command hands work to: `--agent-cmd`, else the
//! `[agent]` table of the configuration. The API key is read here, from the
//! variable the configuration names, and goes nowhere but the request.

use crucible_agent::{AgentBackend, CommandBackend, OpenAiBackend};
use crucible_core::{AgentBackendKind, AgentRef};

use crate::context::Context;
use crate::error::CliError;

/// Where to read how to set a backend up.
pub const SETUP_HINT: &str = "pass --agent-cmd 'claude -p' (any program that reads a prompt on stdin \
     and prints a reply), or set [agent] in ~/.config/crucible/config.toml or \
     <kiln>/.crucible/config.toml (see docs/configuration.md)";

/// The configured backend; `None` when there is none.
pub fn configured(
    ctx: &Context,
    agent_cmd: Option<&str>,
) -> Result<Option<Box<dyn AgentBackend>>, CliError> {
    configured_with_model(ctx, agent_cmd, None)
}

/// The configured backend with the model `model` instead of the
/// configured one: an endpoint is asked for it, a command is told it in
/// `$CRU_MODEL`.
pub fn configured_with_model(
    ctx: &Context,
    agent_cmd: Option<&str>,
    model: Option<&str>,
) -> Result<Option<Box<dyn AgentBackend>>, CliError> {
    configured_with_env(ctx, agent_cmd, model, &[])
}

/// The environment a command backend working in a session gets, so that
/// the agent's own hooks (`cru session log ...`) land in that session's
/// file: `CRU_SESSION` (the id), `CRU_SESSION_FILE` (its absolute path),
/// `CRU_DIR` (the sessions directory), and `CRU_SESSIONS_DIR` (the same
/// directory, which is where `cru` looks when no `--dir` is given).
pub fn session_env(ctx: &Context, id: &str, file: &std::path::Path) -> Vec<(String, String)> {
    let absolute = |p: &std::path::Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_owned())
            .display()
            .to_string()
    };
    let dir = absolute(ctx.store.dir());
    vec![
        ("CRU_SESSION".to_owned(), id.to_owned()),
        ("CRU_SESSION_FILE".to_owned(), absolute(file)),
        ("CRU_DIR".to_owned(), dir.clone()),
        ("CRU_SESSIONS_DIR".to_owned(), dir),
    ]
}

/// [`configured_with_model`], with more environment for a command backend
/// (an endpoint has no environment to give).
pub fn configured_with_env(
    ctx: &Context,
    agent_cmd: Option<&str>,
    model: Option<&str>,
    env: &[(String, String)],
) -> Result<Option<Box<dyn AgentBackend>>, CliError> {
    let a = &ctx.config.agent;
    let command_backend = |command: &str| -> Box<dyn AgentBackend> {
        let mut env = env.to_vec();
        env.extend(model.map(|m| ("CRU_MODEL".to_owned(), m.to_owned())));
        Box::new(CommandBackend {
            command: command.to_owned(),
            timeout: a.timeout,
            temp_dir: std::env::temp_dir(),
            env,
        })
    };
    if let Some(cmd) = agent_cmd {
        if cmd.trim().is_empty() {
            return Err(CliError::new("--agent-cmd is empty").with_hint(SETUP_HINT));
        }
        return Ok(Some(command_backend(cmd)));
    }
    let sources = || config_sources(ctx);
    match a.kind() {
        None => Ok(None),
        Some(AgentBackendKind::Command) => match &a.command {
            Some(c) if !c.trim().is_empty() => Ok(Some(command_backend(c))),
            _ => Err(CliError::new(format!(
                "[agent] backend = \"command\" needs `command = \"...\"` (read from {})",
                sources()
            ))),
        },
        Some(AgentBackendKind::OpenAi) => {
            let (Some(base_url), Some(model)) = (
                &a.base_url,
                model.map(str::to_owned).or_else(|| a.model.clone()),
            ) else {
                return Err(CliError::new(format!(
                    "[agent] backend = \"openai\" needs both base_url and model (read from {})",
                    sources()
                )));
            };
            let api_key = api_key(a.api_key_env.as_deref(), sources)?;
            Ok(Some(Box::new(OpenAiBackend {
                base_url: base_url.clone(),
                model,
                api_key,
                timeout: a.timeout,
            })))
        }
    }
}

/// The files the configuration was read from, for messages.
fn config_sources(ctx: &Context) -> String {
    let files: Vec<String> = ctx
        .config
        .sources
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    if files.is_empty() {
        "no configuration file".to_owned()
    } else {
        files.join(", ")
    }
}

/// The API key from the variable `[agent] api_key_env` names, if it names
/// one; an error for a value that is not a variable's name (it may be the
/// key itself) or a variable that is not set.
fn api_key(
    api_key_env: Option<&str>,
    sources: impl Fn() -> String,
) -> Result<Option<String>, CliError> {
    Ok(match api_key_env {
        None => None,
        Some(var) if !is_variable_name(var) => {
            // Never echo it: a value that is not a name is most
            // likely the key itself.
            return Err(CliError::new(format!(
                "[agent] api_key_env must be the name of an environment variable \
                 (letters, digits and `_`), and the value set does not look like one \
                 (it may be the key itself, so it is not shown; read from {})",
                sources()
            ))
            .with_hint(
                "put the key in a variable (export OPENAI_API_KEY=...) and set \
                 api_key_env = \"OPENAI_API_KEY\"; if the key was in a shared file, \
                 revoke it",
            ));
        }
        Some(var) => match std::env::var(var) {
            Ok(k) if !k.is_empty() => Some(k),
            _ => {
                return Err(CliError::new(format!(
                    "the API key variable ${var} (named by [agent] api_key_env) is not set"
                ))
                .with_hint(format!("export {var}=... before running cru")));
            }
        },
    })
}

/// Whether `name` can be an environment variable's name rather than a key:
/// `[A-Za-z_][A-Za-z0-9_]*`, nothing the redactor takes for a secret, and
/// not long, lowercase and digits as generated keys are.
fn is_variable_name(name: &str) -> bool {
    let shaped = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let generated = name.len() >= 24
        && name.bytes().any(|b| b.is_ascii_lowercase())
        && name.bytes().any(|b| b.is_ascii_digit());
    shaped && !generated && !crucible_redact::Redactor::shared().finds_secret(name)
}

/// The agent replies are recorded as: `[agent] name`, else `fallback`.
pub fn reply_agent(
    ctx: &Context,
    fallback: Option<&AgentRef>,
) -> Result<Option<AgentRef>, CliError> {
    match &ctx.config.agent.name {
        Some(n) => n
            .parse::<AgentRef>()
            .map(Some)
            .map_err(|e| CliError::new(format!("[agent] name: {e}"))),
        None => Ok(fallback.cloned()),
    }
}

/// The text of a `--system-prompt FILE`, when one is given.
pub fn system_prompt_file(path: Option<&std::path::Path>) -> Result<Option<String>, CliError> {
    path.map(|p| {
        std::fs::read_to_string(p).map_err(|e| {
            CliError::new(format!(
                "{}: cannot read the system prompt: {e}",
                p.display()
            ))
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::is_variable_name;

    #[test]
    fn keys_are_not_variable_names() {
        for name in ["OPENAI_API_KEY", "MY_KEY_2", "_X", "anthropic_key"] {
            assert!(is_variable_name(name), "{name}");
        }
        let openai = format!("sk-proj-{}", "Zx81kQ2mLp94TrW0aB3c");
        let github = format!("ghp_{}", "Zx81kQ2mLp94TrW0aB3c");
        let generated = "a8f3c29d71e04b6f9e2d5c8a1b7f3e90";
        for value in [
            openai.as_str(),
            github.as_str(),
            generated,
            "",
            "1ABC",
            "A B",
        ] {
            assert!(!is_variable_name(value), "{value}");
        }
    }
}
