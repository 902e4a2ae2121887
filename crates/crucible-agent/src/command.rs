//! An agent that is a program: prompt on stdin, reply on stdout.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{AgentBackend, AgentError, AgentReply, AgentRequest, tail};

/// The environment variable that holds the path of the messages file.
pub const MESSAGES_FILE_VAR: &str = "CRU_MESSAGES_FILE";

/// How much of a failing program's stderr an error shows.
const STDERR_SHOWN: usize = 2_000;

/// Runs `sh -c COMMAND` (so quoting and pipes work as in a shell) with the
/// prompt on stdin and [`MESSAGES_FILE_VAR`] naming a JSON file with the
/// message array; stdout is the reply.
#[derive(Debug, Clone)]
pub struct CommandBackend {
    pub command: String,
    pub timeout: Duration,
    /// Where the messages file is made (the caller's temporary directory).
    pub temp_dir: PathBuf,
    /// More environment for the program (`CRU_MODEL` when a model is asked
    /// for).
    pub env: Vec<(String, String)>,
}

impl CommandBackend {
    /// The command line with every secret the redactor knows taken out.
    fn shown(&self) -> String {
        crate::scrub(&self.command, None)
    }
}

impl AgentBackend for CommandBackend {
    fn describe(&self) -> String {
        format!("command `{}`", self.shown())
    }

    fn complete(&self, request: &AgentRequest<'_>) -> Result<AgentReply, AgentError> {
        // The command as messages show it: a command line may carry a key
        // (`OPENAI_API_KEY=sk-... claude -p`), and messages reach terminals,
        // logs and `[!error]` callouts.
        let command = self.shown();
        let messages_error = |source| AgentError::MessagesFile {
            command: command.clone(),
            source,
        };
        let mut messages = tempfile::Builder::new()
            .prefix("cru-messages-")
            .suffix(".json")
            .tempfile_in(&self.temp_dir)
            .map_err(messages_error)?;
        let json = serde_json::to_vec_pretty(request.messages).unwrap_or_default();
        messages.write_all(&json).map_err(messages_error)?;
        messages.flush().map_err(messages_error)?;

        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&self.command)
            .env(MESSAGES_FILE_VAR, messages.path())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so a timeout stops the program's children too.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|source| AgentError::Spawn {
            command: command.clone(),
            source,
        })?;
        let output = collect(&mut child, request.prompt, self.timeout);
        let partial = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let Some(status) = output.status else {
            return Err(AgentError::CommandTimeout {
                command,
                timeout: self.timeout,
                partial,
            });
        };
        let stderr = crate::scrub(
            &tail(&String::from_utf8_lossy(&output.stderr), STDERR_SHOWN),
            None,
        );
        if !status.success() {
            let status = match status.code() {
                Some(code) => format!("exit code {code}"),
                None => "killed by a signal".to_owned(),
            };
            return Err(AgentError::Exit {
                command,
                status,
                stderr,
                partial,
            });
        }
        let stdout = output.stdout;
        let text = String::from_utf8_lossy(&stdout).trim_end().to_owned();
        if text.trim().is_empty() {
            return Err(AgentError::EmptyReply { command, stderr });
        }
        Ok(AgentReply {
            text,
            usage: None,
            model: None,
        })
    }
}

/// What a program gave: its exit status (`None` when it ran out of time
/// and was stopped) and what it printed until then.
struct Output {
    status: Option<std::process::ExitStatus>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// How long the output of a stopped program is waited for: its pipes close
/// as soon as the kill lands.
const AFTER_STOP: Duration = Duration::from_secs(2);

/// Feeds stdin, gathers stdout and stderr, and waits for the exit, all
/// within `timeout`; a program still running then (or whose children still
/// hold its pipes) is stopped, and what it printed so far is kept.
fn collect(child: &mut Child, prompt: &str, timeout: Duration) -> Output {
    let deadline = Instant::now() + timeout;
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = prompt.to_owned();
        // A program that does not read its stdin closes the pipe: not an error.
        std::thread::spawn(move || {
            let _ = stdin.write_all(prompt.as_bytes());
        });
    }
    let out_rx = read_all(child.stdout.take());
    let err_rx = read_all(child.stderr.take());
    let exited = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) | Err(_) => break None,
        }
    };
    // The pipes close when the program and anything it left running exit.
    let left = deadline.saturating_duration_since(Instant::now());
    let in_time = exited.and_then(|status| Some((status, out_rx.recv_timeout(left).ok()?)));
    let (status, stdout) = if let Some((status, stdout)) = in_time {
        (Some(status), stdout)
    } else {
        stop(child);
        (None, out_rx.recv_timeout(AFTER_STOP).unwrap_or_default())
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let stderr = err_rx
        .recv_timeout(left.max(Duration::from_millis(100)))
        .unwrap_or_default();
    Output {
        status,
        stdout,
        stderr,
    }
}

/// Reads a pipe to its end on a thread of its own; the bytes come on the
/// channel when the pipe closes.
fn read_all(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
    }
    rx
}

/// Kills the program's process group (it leads one, so the group's id is
/// its pid), then the program. A group already gone is no error: the
/// program may have exited on its own meanwhile.
fn stop(child: &mut Child) {
    let group = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}
