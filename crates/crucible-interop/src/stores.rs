//! Where the agents keep their sessions on this machine: the stores
//! `cru session import` with no path reads.
//!
//! The caller reads the environment and hands the values in a
//! [`StoreEnv`]; this module only decides, and looks at the disk to say
//! whether each store is there. Each agent's default and variables are the
//! agent's own, as ccusage reads them too (docs/interop.md, "Default
//! discovery", names the source of each).

use std::path::{Path, PathBuf};

use crate::Format;

/// What the stores' places depend on, read from the environment by the
/// caller. Empty values are the caller's to leave out (`None`).
#[derive(Debug, Clone, Default)]
pub struct StoreEnv {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`: one or more Claude Code config folders,
    /// separated by commas.
    pub claude_config_dir: Option<String>,
    /// `$CODEX_HOME`: Codex's folder (commas separate several, as ccusage
    /// reads it).
    pub codex_home: Option<String>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$XDG_DATA_HOME`.
    pub xdg_data_home: Option<PathBuf>,
}

/// Where a store's place came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The environment variable of that name.
    Variable(&'static str),
    /// The agent's default place.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Variable(v) => write!(f, "${v}"),
            Self::Default => f.write_str("default"),
        }
    }
}

/// Whether a store is there to be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    /// A folder, readable.
    Found,
    /// Nothing at that path: the agent is not used here (or not yet).
    Missing,
    /// Something else is there, left alone, with why: a link (never
    /// followed out of a store: a store is read by the rules of a folder
    /// named to import), a file, a FIFO, a folder that cannot be read.
    Refused(String),
}

/// One place an agent keeps its sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentStore {
    pub format: Format,
    /// The folder the sessions are under.
    pub root: PathBuf,
    pub origin: Origin,
    pub presence: Presence,
}

impl AgentStore {
    fn at(format: Format, root: PathBuf, origin: Origin) -> Self {
        // The store's own folder is taken by its real path: a `~/.claude`
        // linked from a dotfiles folder is the user's own store, and a
        // session found through the link is the one an import of the real
        // path finds. Below it, links are judged as in any folder walked.
        let root = std::fs::canonicalize(&root)
            .ok()
            .filter(|real| real.is_dir())
            .unwrap_or(root);
        let presence = presence(&root);
        Self {
            format,
            root,
            origin,
            presence,
        }
    }
}

/// The agent's name as a person reads it.
pub fn agent_name(format: Format) -> &'static str {
    match format {
        Format::ClaudeCode => "Claude Code",
        Format::Codex => "Codex",
        Format::Gemini => "Gemini CLI",
        Format::Copilot => "GitHub Copilot CLI",
        Format::OpenCode => "OpenCode",
        Format::OpenAiMessages => "OpenAI messages",
        Format::AgentDir => ".agent/sessions",
        Format::Codeloops => "codeloops",
        Format::ConnectOnion => "ConnectOnion",
    }
}

/// Every store cru knows of, found or not, in a fixed order (Claude Code,
/// Codex, Gemini CLI, GitHub Copilot CLI, OpenCode), each place once.
pub fn agent_stores(env: &StoreEnv) -> Vec<AgentStore> {
    let mut places: Vec<(Format, PathBuf, Origin)> = Vec::new();
    places.extend(claude_code(env));
    places.extend(codex(env));
    if let Some(home) = &env.home {
        places.push((Format::Gemini, home.join(".gemini/tmp"), Origin::Default));
        places.push((
            Format::Copilot,
            home.join(".copilot/session-state"),
            Origin::Default,
        ));
    }
    match (&env.xdg_data_home, &env.home) {
        (Some(x), _) => places.push((
            Format::OpenCode,
            x.join("opencode"),
            Origin::Variable("XDG_DATA_HOME"),
        )),
        (None, Some(h)) => places.push((
            Format::OpenCode,
            h.join(".local/share/opencode"),
            Origin::Default,
        )),
        (None, None) => {}
    }
    let mut seen = std::collections::HashSet::new();
    places
        .into_iter()
        .filter(|(_, root, _)| seen.insert(root.clone()))
        .map(|(f, root, origin)| AgentStore::at(f, root, origin))
        .collect()
}

/// The folders a list of several (`a,b`) names, `~/` read as the home
/// folder; blanks between commas are nothing.
fn listed(value: &str, home: Option<&Path>) -> Vec<PathBuf> {
    value
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match (p.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ if p == "~" && home.is_some() => home.map(Path::to_owned).unwrap_or_default(),
            _ => PathBuf::from(p),
        })
        .collect()
}

/// How deep below a `$CLAUDE_CONFIG_DIR` folder its `projects/` folders
/// are looked for (the folder itself is depth 0).
const PROJECTS_DEPTH: usize = 4;

/// At most this many folders are listed looking for them (a variable
/// naming `/` must not walk the disk).
const PROJECTS_SEARCH_LIMIT: usize = 10_000;

/// The `projects/` folders at or below `dir`, up to [`PROJECTS_DEPTH`]:
/// no link followed, a folder that cannot be listed passed over, nothing
/// looked for inside a `projects/` found. None found: `dir/projects` (a
/// store not there yet, said as such).
fn projects_below(dir: &Path) -> Vec<PathBuf> {
    let direct = dir.join("projects");
    if std::fs::symlink_metadata(&direct).is_ok() {
        return vec![direct];
    }
    let mut found = Vec::new();
    let mut level = vec![dir.to_owned()];
    let mut listed = 0;
    for _ in 0..PROJECTS_DEPTH {
        let mut next = Vec::new();
        for folder in level {
            listed += 1;
            if listed > PROJECTS_SEARCH_LIMIT {
                break;
            }
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            let mut subs: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect();
            subs.sort();
            for sub in subs {
                if sub.file_name().is_some_and(|n| n == "projects") {
                    found.push(sub);
                } else {
                    next.push(sub);
                }
            }
        }
        level = next;
    }
    if found.is_empty() {
        found.push(direct);
    }
    found
}

/// Claude Code: each folder of `$CLAUDE_CONFIG_DIR` contributes its
/// `projects/` (a folder named `projects` is taken as that folder itself,
/// as ccusage takes it), found at any depth below it up to
/// [`PROJECTS_DEPTH`] (see [`projects_below`]); else both
/// `~/.claude/projects` and `$XDG_CONFIG_HOME/claude/projects`
/// (`~/.config/claude/projects`).
fn claude_code(env: &StoreEnv) -> Vec<(Format, PathBuf, Origin)> {
    let home = env.home.as_deref();
    if let Some(value) = &env.claude_config_dir {
        let dirs = listed(value, home);
        if !dirs.is_empty() {
            let origin = Origin::Variable("CLAUDE_CONFIG_DIR");
            return dirs
                .into_iter()
                .flat_map(|d| {
                    let roots = if d.file_name().is_some_and(|n| n == "projects") {
                        vec![d]
                    } else {
                        projects_below(&d)
                    };
                    roots
                        .into_iter()
                        .map(move |root| (Format::ClaudeCode, root, origin))
                })
                .collect();
        }
    }
    let mut out = Vec::new();
    if let Some(h) = home {
        out.push((
            Format::ClaudeCode,
            h.join(".claude/projects"),
            Origin::Default,
        ));
    }
    match (&env.xdg_config_home, home) {
        (Some(x), _) => out.push((
            Format::ClaudeCode,
            x.join("claude/projects"),
            Origin::Variable("XDG_CONFIG_HOME"),
        )),
        (None, Some(h)) => out.push((
            Format::ClaudeCode,
            h.join(".config/claude/projects"),
            Origin::Default,
        )),
        (None, None) => {}
    }
    out
}

/// Codex: `sessions/` and `archived_sessions/` (where `codex` moves a
/// rollout it archives) of `$CODEX_HOME`, else of `~/.codex`.
fn codex(env: &StoreEnv) -> Vec<(Format, PathBuf, Origin)> {
    let (homes, origin) = match &env.codex_home {
        Some(v) if !listed(v, env.home.as_deref()).is_empty() => (
            listed(v, env.home.as_deref()),
            Origin::Variable("CODEX_HOME"),
        ),
        _ => match &env.home {
            Some(h) => (vec![h.join(".codex")], Origin::Default),
            None => (Vec::new(), Origin::Default),
        },
    };
    homes
        .into_iter()
        .flat_map(|h| {
            [
                (Format::Codex, h.join("sessions"), origin),
                (Format::Codex, h.join("archived_sessions"), origin),
            ]
        })
        .collect()
}

/// Whether `root` is a folder cru may read, without following a link.
fn presence(root: &Path) -> Presence {
    use crucible_core::store::safe_file::kind_name;
    let meta = match std::fs::symlink_metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Presence::Missing,
        Err(e) => return Presence::Refused(format!("cannot be read ({e})")),
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return Presence::Refused("a link (not followed: give its target as a path)".into());
    }
    if ft.is_file() {
        return Presence::Refused("a file, not a folder".into());
    }
    if !ft.is_dir() {
        return Presence::Refused(format!("{}, not a folder", kind_name(ft)));
    }
    match std::fs::read_dir(root) {
        Ok(_) => Presence::Found,
        Err(e) => Presence::Refused(format!("folder cannot be read ({e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(stores: &[AgentStore]) -> Vec<(Format, String, String)> {
        stores
            .iter()
            .map(|s| (s.format, s.root.display().to_string(), s.origin.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_under_home() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        std::fs::create_dir_all(h.join(".claude/projects")).unwrap();
        std::fs::create_dir_all(h.join(".codex/sessions")).unwrap();
        let env = StoreEnv {
            home: Some(h.to_owned()),
            ..StoreEnv::default()
        };
        let stores = agent_stores(&env);
        let d = |p: &str| h.join(p).display().to_string();
        let want = [
            (Format::ClaudeCode, d(".claude/projects")),
            (Format::ClaudeCode, d(".config/claude/projects")),
            (Format::Codex, d(".codex/sessions")),
            (Format::Codex, d(".codex/archived_sessions")),
            (Format::Gemini, d(".gemini/tmp")),
            (Format::Copilot, d(".copilot/session-state")),
            (Format::OpenCode, d(".local/share/opencode")),
        ];
        let got: Vec<_> = roots(&stores).into_iter().map(|(f, r, _)| (f, r)).collect();
        assert_eq!(got, want);
        assert!(stores.iter().all(|s| s.origin == Origin::Default));
        let found: Vec<_> = stores
            .iter()
            .filter(|s| s.presence == Presence::Found)
            .map(|s| s.format)
            .collect();
        assert_eq!(found, [Format::ClaudeCode, Format::Codex]);
    }

    #[test]
    fn claude_config_dir_finds_projects_at_any_depth_without_following_links() {
        let t = tempfile::tempdir().unwrap();
        let deep = t.path().join("deep");
        std::fs::create_dir_all(deep.join("a/b/projects/-z")).unwrap();
        std::fs::create_dir_all(deep.join("c/projects")).unwrap();
        std::fs::create_dir_all(deep.join("1/2/3/4/projects")).unwrap();
        std::fs::create_dir_all(t.path().join("elsewhere/projects")).unwrap();
        std::os::unix::fs::symlink(t.path().join("elsewhere"), deep.join("link")).unwrap();
        let env = StoreEnv {
            claude_config_dir: Some(format!(
                "{},{}",
                deep.display(),
                t.path().join("none").display()
            )),
            ..StoreEnv::default()
        };
        let got: Vec<PathBuf> = agent_stores(&env)
            .into_iter()
            .filter(|s| s.format == Format::ClaudeCode)
            .map(|s| s.root)
            .collect();
        assert_eq!(
            got,
            [
                deep.join("c/projects"),
                deep.join("a/b/projects"),
                t.path().join("none/projects"),
            ]
        );
    }

    #[test]
    fn variables_replace_the_defaults() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let env = StoreEnv {
            home: Some(h.to_owned()),
            claude_config_dir: Some(format!(" ~/work-claude , ,{}/other/projects", h.display())),
            codex_home: Some("/opt/codex".into()),
            xdg_config_home: Some("/x/config".into()),
            xdg_data_home: Some("/x/data".into()),
        };
        let got = roots(&agent_stores(&env));
        let d = |p: &str| h.join(p).display().to_string();
        let v = |n: &str| format!("${n}");
        assert_eq!(
            got[..4],
            [
                (
                    Format::ClaudeCode,
                    d("work-claude/projects"),
                    v("CLAUDE_CONFIG_DIR")
                ),
                (
                    Format::ClaudeCode,
                    d("other/projects"),
                    v("CLAUDE_CONFIG_DIR")
                ),
                (Format::Codex, "/opt/codex/sessions".into(), v("CODEX_HOME")),
                (
                    Format::Codex,
                    "/opt/codex/archived_sessions".into(),
                    v("CODEX_HOME")
                ),
            ]
        );
        assert_eq!(
            got.last().unwrap(),
            &(
                Format::OpenCode,
                "/x/data/opencode".into(),
                v("XDG_DATA_HOME")
            )
        );
        // Without $CLAUDE_CONFIG_DIR, $XDG_CONFIG_HOME moves the second default.
        let env = StoreEnv {
            claude_config_dir: Some(" , ".into()),
            ..env
        };
        let got = roots(&agent_stores(&env));
        assert_eq!(got[0].1, d(".claude/projects"));
        assert_eq!(
            got[1],
            (
                Format::ClaudeCode,
                "/x/config/claude/projects".into(),
                v("XDG_CONFIG_HOME")
            )
        );
    }

    #[test]
    fn files_and_fifos_are_refused_and_a_linked_store_is_followed() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        std::fs::create_dir_all(h.join("real/projects")).unwrap();
        std::fs::create_dir_all(h.join(".claude")).unwrap();
        std::os::unix::fs::symlink(h.join("real/projects"), h.join(".claude/projects")).unwrap();
        std::fs::create_dir_all(h.join(".codex")).unwrap();
        std::fs::write(h.join(".codex/sessions"), "").unwrap();
        std::fs::create_dir_all(h.join(".gemini")).unwrap();
        crucible_testkit::mkfifo(&h.join(".gemini/tmp"));
        let env = StoreEnv {
            home: Some(h.to_owned()),
            ..StoreEnv::default()
        };
        let stores = agent_stores(&env);
        let refused = |f: Format| {
            stores
                .iter()
                .find(|s| s.format == f)
                .map(|s| s.presence.clone())
                .unwrap()
        };
        // A store's folder linked from elsewhere (dotfiles) is followed,
        // taken by its real path.
        let claude = stores
            .iter()
            .find(|s| s.format == Format::ClaudeCode)
            .unwrap();
        assert_eq!(claude.presence, Presence::Found);
        assert_eq!(
            claude.root,
            std::fs::canonicalize(h.join("real/projects")).unwrap()
        );
        assert!(
            matches!(refused(Format::Codex), Presence::Refused(r) if r.contains("not a folder"))
        );
        assert!(
            matches!(refused(Format::Gemini), Presence::Refused(r) if r.contains("FIFO") || r.contains("fifo"))
        );
    }
}
