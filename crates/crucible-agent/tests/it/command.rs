use std::time::{Duration, Instant};

use crucible_agent::{AgentBackend, AgentError, AgentRequest, CommandBackend};
use serde_json::json;

fn backend(command: &str, timeout: Duration) -> (CommandBackend, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let b = CommandBackend {
        command: command.into(),
        timeout,
        temp_dir: dir.path().to_owned(),
        env: Vec::new(),
    };
    (b, dir)
}

fn ask(b: &CommandBackend) -> Result<crucible_agent::AgentReply, AgentError> {
    let messages = vec![json!({"role": "user", "content": "from the messages file"})];
    b.complete(&AgentRequest {
        prompt: "# Resuming\n\nContinue.\n",
        messages: &messages,
    })
}

#[test]
fn the_prompt_goes_in_on_stdin_and_stdout_is_the_reply() {
    let (b, _d) = backend("tr a-z A-Z", Duration::from_secs(10));
    let reply = ask(&b).unwrap();
    assert_eq!(reply.text, "# RESUMING\n\nCONTINUE.");
    assert!(reply.usage.is_none());
}

#[test]
fn the_messages_file_is_named_in_the_environment() {
    let (b, dir) = backend(
        r#"cat >/dev/null; cat "$CRU_MESSAGES_FILE""#,
        Duration::from_secs(10),
    );
    let reply = ask(&b).unwrap();
    let v: serde_json::Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(v[0]["content"], "from the messages file");
    // Removed afterwards.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_program_that_ignores_stdin_still_answers() {
    let (b, _d) = backend("echo done", Duration::from_secs(10));
    assert_eq!(ask(&b).unwrap().text, "done");
}

#[test]
fn a_failing_program_shows_its_stderr() {
    let (b, _d) = backend(
        "echo 'model not found: llama9' >&2; exit 3",
        Duration::from_secs(10),
    );
    let e = ask(&b).unwrap_err();
    let shown = e.to_string();
    assert!(matches!(e, AgentError::Exit { .. }), "{e:?}");
    assert!(shown.contains("exit code 3"), "{shown}");
    assert!(shown.contains("model not found: llama9"), "{shown}");
}

#[test]
fn an_empty_reply_is_an_error() {
    let (b, _d) = backend(
        "cat >/dev/null; echo '  ' ; echo warn >&2",
        Duration::from_secs(10),
    );
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::EmptyReply { .. }), "{e:?}");
    assert!(e.to_string().contains("warn"));
}

#[test]
fn a_slow_program_is_stopped_with_its_children() {
    let (b, _d) = backend("sleep 30 & sleep 30", Duration::from_millis(300));
    let started = Instant::now();
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::CommandTimeout { .. }), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Whether process `pid` is gone: no such process, or a zombie left for
/// init to reap (it runs no more).
#[cfg(target_os = "linux")]
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `PID (comm) STATE ...`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    // A child that holds no pipe of ours: only the group kill reaches it.
    let line = format!(
        "sleep 30 </dev/null >/dev/null 2>&1 & echo $! > '{}'; wait",
        pid_file.display()
    );
    let (b, _d) = backend(&line, Duration::from_millis(300));
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::CommandTimeout { .. }), "{e:?}");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(pid), "the background child {pid} outlived the timeout");
}

#[test]
fn a_missing_program_is_an_exit_error_from_the_shell() {
    let (b, _d) = backend("no-such-agent-program-xyz -p", Duration::from_secs(10));
    let e = ask(&b).unwrap_err();
    assert!(e.to_string().contains("exit code 127"), "{e}");
    assert!(e.to_string().contains("not found"), "{e}");
}

#[test]
fn what_a_failing_program_printed_first_is_kept_as_a_partial_reply() {
    let (b, _d) = backend(
        "cat >/dev/null; echo 'Half an answer'; echo 'connection reset' >&2; exit 1",
        Duration::from_secs(10),
    );
    let e = ask(&b).unwrap_err();
    assert_eq!(e.partial_reply(), Some("Half an answer"), "{e:?}");
    assert!(e.to_string().contains("connection reset"), "{e}");
    // A failure before any output has no partial reply.
    let (b, _d) = backend("exit 2", Duration::from_secs(10));
    assert_eq!(ask(&b).unwrap_err().partial_reply(), None);
}

#[test]
fn a_program_stopped_for_time_keeps_what_it_printed() {
    let (b, _d) = backend("echo 'Started on it'; sleep 30", Duration::from_millis(300));
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::CommandTimeout { .. }), "{e:?}");
    assert_eq!(e.partial_reply(), Some("Started on it"));
}
