//! Continuing a session with an agent: the resumed phase, the turns, and
//! what the file holds when the run stops or the agent fails.
//!
//! The resumed phase is written before the agent is asked, so that the
//! agent's own hooks (`cru session log ...`, given `$CRU_SESSION`) land in
//! it. An agent that fails before answering, and wrote nothing itself, gets
//! the file put back byte for byte ([`Snapshot`]); every other stop pauses
//! the session after the last phase that ended well, so the next resume's
//! context holds this run's turns.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crucible_agent::{AgentBackend, AgentError, AgentRequest};
use crucible_core::store::{atomic, journal};
use crucible_core::{AgentRef, PhaseId, RecordError, Recorder, ResumeContext, SessionStatus};
use serde_json::{Value, json};

use crate::agent_backend;
use crate::context::Context;
use crate::error::{CliError, Outcome};

/// How a run continues a session.
pub struct RunOptions<'a> {
    pub interactive: bool,
    /// The model to record when the backend does not say which answered
    /// (`--model`, else `[agent] model`).
    pub model: Option<&'a str>,
}

/// Records the resume, hands the context to the agent and records its
/// replies; on a terminal, turn by turn. Leaves the session paused.
pub fn continue_session(
    ctx: &Context,
    path: &Path,
    cx: &ResumeContext,
    backend: &dyn AgentBackend,
    opts: &RunOptions<'_>,
) -> anyhow::Result<Outcome> {
    let before = Snapshot::take(path)?;
    let mut turns = Turns::begin(ctx, path, cx, opts.model)?;
    let written = Snapshot::take(path)?;
    let id = turns.rec.id().clone();
    if opts.interactive {
        eprint!("{}", cx.summary_text());
        eprintln!(
            "\nResuming {id} with {}. Type to reply; /pause or EOF (Ctrl-D) pauses.",
            backend.describe()
        );
    }
    let stdin = std::io::stdin();
    loop {
        let request = AgentRequest {
            prompt: &turns.prompt,
            messages: &turns.messages,
        };
        match backend.complete(&request) {
            Ok(reply) => turns.answer(&reply.text, reply.model.as_deref(), reply.usage)?,
            Err(e)
                if !turns.recorded
                    && e.partial_reply().is_none()
                    && before.restore_if(ctx, path, &written)? =>
            {
                // Nothing came and the agent wrote nothing: the session is as it was.
                return Err(CliError::new(e.to_string())
                    .with_hint(format!("{id} is unchanged; run the command again to retry"))
                    .into());
            }
            Err(e) => {
                turns.failure(&e)?;
                if !opts.interactive {
                    let left = match turns.stop(ctx, path, cx.resume_at)? {
                        Stopped::Paused(point) => format!("paused at {point}"),
                        Stopped::Ended(status) => format!("which the agent ended ({status})"),
                    };
                    return Err(CliError::new(e.to_string())
                        .with_hint(format!(
                            "what came is recorded in {id}, {left}; \
                             `cru session resume {id}` tries again"
                        ))
                        .into());
                }
                eprintln!("error: {e}");
            }
        }
        if !opts.interactive || turns.ended {
            break;
        }
        match next_line(&stdin)? {
            None => break,
            Some(line) if line == "/pause" => break,
            Some(line) => turns.user(&line)?,
        }
    }
    match turns.stop(ctx, path, cx.resume_at)? {
        Stopped::Paused(point) => {
            eprintln!("Paused {id} at {point}: `cru session resume {id}` goes on from there.");
        }
        Stopped::Ended(status) => eprintln!("The agent ended {id} ({status})."),
    }
    Ok(Outcome::Success)
}

/// How a run left the session.
enum Stopped {
    /// Paused at this resume point (`phase-N`).
    Paused(String),
    /// The agent ended it itself, and it stays ended.
    Ended(SessionStatus),
}

/// The conversation of one run, and what it recorded.
struct Turns<'s, 'm> {
    rec: Recorder<'s, crucible_parser::MarkdownCodec>,
    agent: Option<AgentRef>,
    model: Option<&'m str>,
    messages: Vec<Value>,
    prompt: String,
    /// Some reply came whole.
    answered: bool,
    /// Something was recorded after the resumed phase itself.
    recorded: bool,
    /// The agent ended the session itself (`cru session end`): nothing more
    /// is recorded, and the run stops.
    ended: bool,
}

impl<'s, 'm> Turns<'s, 'm> {
    /// Opens the session and records the resumed phase, written to the
    /// markdown at once so the agent's own hooks land in it.
    fn begin(
        ctx: &'s Context,
        path: &Path,
        cx: &ResumeContext,
        model: Option<&'m str>,
    ) -> anyhow::Result<Self> {
        let mut rec = Recorder::open(
            &ctx.store,
            &path.to_string_lossy(),
            &ctx.config.session,
            false,
        )
        .map_err(CliError::from)?;
        let at = cx.resume_phase();
        let fallback = at
            .and_then(|p| p.agent.as_ref())
            .or_else(|| rec.log().frontmatter.participants.first());
        let agent: Option<AgentRef> = agent_backend::reply_agent(ctx, fallback)?;
        let name = match cx.resume_at {
            Some(p) => format!("Resumed from {p}"),
            None => "Resumed".to_owned(),
        };
        rec.phase(&name, agent.clone(), at.and_then(|p| p.channel.clone()))
            .map_err(CliError::from)?;
        rec.fold().map_err(CliError::from)?;
        Ok(Self {
            rec,
            agent,
            model,
            messages: cx.messages(),
            prompt: cx.prompt(),
            answered: false,
            recorded: false,
            ended: false,
        })
    }

    fn answer(
        &mut self,
        text: &str,
        model: Option<&str>,
        usage: Option<crucible_agent::TokenUsage>,
    ) -> anyhow::Result<()> {
        let model = model.or(self.model);
        let recorded = self
            .rec
            .reply_by_model(self.agent.clone(), model, text)
            .and_then(|()| match usage {
                // A usage record, not a bare count: the turn is priced by
                // the model that answered and split by kind like any other.
                Some(u) => self.rec.usage(model.map(str::to_owned), u.by_kind()),
                None => Ok(()),
            })
            // The reply in the markdown at once, not only in the journal.
            .and_then(|()| self.rec.fold());
        match recorded {
            Err(RecordError::Ended { .. }) => self.ended = true,
            other => other.map_err(CliError::from)?,
        }
        (self.answered, self.recorded) = (true, true);
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")?;
        out.flush()?;
        self.messages
            .push(json!({"role": "assistant", "content": text}));
        self.prompt.push_str(&format!("\n## Agent\n\n{text}\n"));
        Ok(())
    }

    /// Records what a failing agent gave, if anything, and why it failed.
    fn failure(&mut self, e: &AgentError) -> anyhow::Result<()> {
        if let Some(partial) = e.partial_reply() {
            self.rec
                .reply_by_model(self.agent.clone(), self.model, partial)
                .map_err(CliError::from)?;
        }
        let reason = e.to_string();
        let first_line = reason.lines().next().unwrap_or("");
        self.rec
            .error(&format!("agent backend failed: {first_line}"), None)
            .map_err(CliError::from)?;
        self.rec.fold().map_err(CliError::from)?;
        self.recorded = true;
        Ok(())
    }

    fn user(&mut self, line: &str) -> anyhow::Result<()> {
        self.rec.user(line, None).map_err(CliError::from)?;
        self.recorded = true;
        self.messages.push(json!({"role": "user", "content": line}));
        self.prompt.push_str(&format!("\n## User\n\n{line}\n"));
        Ok(())
    }

    /// Pauses the session after the last phase that ended well: the last
    /// phase in the file (the agent may have added its own) once a reply
    /// came whole, else the point this run resumed from. A session the
    /// agent ended itself stays ended.
    fn stop(
        self,
        ctx: &Context,
        path: &Path,
        resumed_from: Option<PhaseId>,
    ) -> anyhow::Result<Stopped> {
        let at = if self.answered { None } else { resumed_from };
        let mut rec = self.rec;
        rec.flush().map_err(CliError::from)?;
        let now = ctx.store.load_path(path).map_err(CliError::from)?;
        if matches!(
            now.frontmatter.status,
            SessionStatus::Completed | SessionStatus::Failed
        ) {
            rec.close().map_err(CliError::from)?;
            return Ok(Stopped::Ended(now.frontmatter.status));
        }
        rec.pause(at).map_err(CliError::from)?;
        rec.close().map_err(CliError::from)?;
        let paused = ctx.store.load_path(path).map_err(CliError::from)?;
        Ok(Stopped::Paused(
            paused
                .frontmatter
                .resume_point
                .map_or_else(|| "its start".to_owned(), |p| p.to_string()),
        ))
    }
}

/// A session file and its journal as they are on disk, to put back.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    markdown: Vec<u8>,
    journal: Option<Vec<u8>>,
    modified: Option<std::time::SystemTime>,
}

impl Snapshot {
    fn take(path: &Path) -> anyhow::Result<Self> {
        let read =
            |p: &Path| std::fs::read(p).map_err(|e| CliError::new(format!("{}: {e}", p.display())));
        let journal_path: PathBuf = journal::journal_path(path);
        Ok(Self {
            markdown: read(path)?,
            journal: journal_path
                .exists()
                .then(|| read(&journal_path))
                .transpose()?,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        })
    }

    /// Puts this snapshot back if the file is still as `written` left it
    /// (no one else, such as the agent's own hooks, wrote since), under the
    /// writers' lock. Returns whether it did.
    fn restore_if(&self, ctx: &Context, path: &Path, written: &Snapshot) -> anyhow::Result<bool> {
        let _lock = ctx.store.lock().map_err(CliError::from)?;
        let now = Self::take(path)?;
        if (&now.markdown, &now.journal) != (&written.markdown, &written.journal) {
            return Ok(false);
        }
        fn io(p: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
            move |e| CliError::new(format!("{}: {e}", p.display()))
        }
        atomic::write_atomic(path, &self.markdown).map_err(io(path))?;
        let journal_path = journal::journal_path(path);
        match &self.journal {
            Some(bytes) => atomic::write_atomic(&journal_path, bytes).map_err(io(&journal_path))?,
            None => journal::remove(&journal_path).map_err(io(&journal_path))?,
        }
        if let Some(t) = self.modified {
            // The modification time too, for tools that go by it (make, rsync).
            std::fs::File::options()
                .write(true)
                .open(path)
                .and_then(|f| f.set_modified(t))
                .map_err(io(path))?;
        }
        Ok(true)
    }
}

/// The next non-empty line typed, or `None` at EOF.
fn next_line(stdin: &std::io::Stdin) -> std::io::Result<Option<String>> {
    loop {
        eprint!("you> ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            eprintln!();
            return Ok(None);
        }
        let line = line.trim();
        if !line.is_empty() {
            return Ok(Some(line.to_owned()));
        }
    }
}
