//! The session picker driven as a person drives it: the real binary in a
//! tmux pane (`send-keys`, `capture-pane`), typing a filter, moving,
//! choosing with Enter, leaving with Esc. Skipped with a warning when tmux
//! is not installed (CI installs it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::kiln::TestKiln;

/// A tmux server of its own (its own socket), killed when dropped.
struct Pane {
    socket: String,
}

impl Pane {
    /// Runs `command` in a new 100×20 pane, or `None` without tmux.
    fn start(command: &str) -> Option<Self> {
        let socket = format!("cru-test-{}-{}", std::process::id(), rand_suffix());
        let ok = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "100",
                "-y",
                "20",
            ])
            .arg(command)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Self { socket })
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once it holds `text` (waiting up to 10 s).
    fn wait_for(&self, text: &str) -> String {
        self.wait_until(text, |screen| screen.contains(text))
    }

    /// The screen once `ready` holds for it and two captures 50 ms apart
    /// agree (waiting up to 10 s): tmux can capture a frame that is still
    /// being written, so the text asked for may be on screen before the
    /// rest of its frame is.
    fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let screen = self.screen();
            if ready(&screen) && screen == last {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no {what} in:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
            last = screen;
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn has_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `cru --dir DIR ARGS`, then its exit status, in a shell that stays.
fn command(dir: &Path, args: &str) -> String {
    let cru = assert_cmd::cargo::cargo_bin("cru");
    format!(
        "env -u CRU_SESSIONS_DIR HOME={home} TERM=xterm-256color {cru} --dir {dir} {args}; echo \"exit=$?\"; sleep 60",
        home = dir.join("../home").display(),
        cru = cru.display(),
        dir = dir.display(),
    )
}

/// The screen without the lines that hold only blanks and borders.
fn visible(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pick_filters_as_you_type_moves_and_prints_the_chosen_id() {
    if !has_tmux() {
        eprintln!("warning: tmux is not installed; the picker test is skipped");
        return;
    }
    let kiln = TestKiln::with_fixtures();
    let pane = Pane::start(&command(&kiln.sessions(), "session pick")).unwrap();
    pane.wait_for("9/9");
    pane.keys(&["-l", "store"]);
    let screen = pane.wait_for("4/9");
    insta::assert_snapshot!(visible(&screen), @r"
    ┌ Pick a session ──────────────────────────────────────────────────────────────────────────────────┐
    │> store                                                                                           │
    └───────────────────────────────────────────────────────────────────────────────────────────── 4/9 ┘
    ┌ Sessions ──────────────────────────────────────┐┌ Preview ───────────────────────────────────────┐
    │▶ completed 2025-12-11-refactor-store  Split the││Split the store into small modules              │
    │  paused    2025-12-10-fix-flaky-test  Fix the f││                                                │
    │  completed 2025-12-05-feature-impl  Feature Imp││completed  2025-12-11T13:00:00Z                 │
    │  active    2025-12-12-start-docs               ││orchestrator@1.0, tester@1.1                    │
    │                                                ││1. Plan @orchestrator@1.0                       │
    │                                                ││2. Move code @orchestrator@1.0                  │
    │                                                ││3. Test @orchestrator@1.0                       │
    Enter choose  ↑↓ move  Esc quit
    ");
    pane.keys(&["Down"]);
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("exit=");
    assert!(screen.contains("exit=0"), "{screen}");
    assert!(
        !screen.contains("Pick a session"),
        "the terminal restored:\n{screen}"
    );
    let chosen: Vec<&str> = screen.lines().filter(|l| l.starts_with("2025-")).collect();
    assert_eq!(chosen.len(), 1, "{screen}");
}

#[test]
fn esc_leaves_with_the_terminal_restored_and_resume_offers_paused_first() {
    if !has_tmux() {
        eprintln!("warning: tmux is not installed; the picker test is skipped");
        return;
    }
    let kiln = TestKiln::with_fixtures();
    let pane = Pane::start(&command(&kiln.sessions(), "session resume")).unwrap();
    // The rows and the preview, not only the title: the list is read
    // while the frame already shows ("loading…"), and tmux can capture a
    // frame that is still being written.
    let screen = pane.wait_until("a row and its preview", |screen| {
        screen.contains('▶') && (screen.contains("Where it stops") || screen.contains("phase"))
    });
    assert!(
        screen.contains("Resume a session (paused first)"),
        "{screen}"
    );
    let first = screen
        .lines()
        .find(|l| l.contains('▶'))
        .unwrap_or_default()
        .to_owned();
    assert!(
        first.contains("paused") && first.contains("2025-12-10-fix-flaky-test"),
        "{screen}"
    );
    assert!(
        screen.contains("Where it stops") || screen.contains("phase"),
        "the preview: {screen}"
    );
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("exit=");
    assert!(screen.contains("exit=2"), "{screen}");
    assert!(!screen.contains("Resume a session"), "restored:\n{screen}");
}

/// Not on a terminal, `pick` prints the sessions `list` shows for the same
/// filters, one a line, with nothing a terminal would obey.
#[test]
fn the_plain_list_takes_every_filter_and_neutralises_escapes() {
    let kiln = TestKiln::with_fixtures();
    for filter in [
        &["--agent", "tester"][..],
        &["--agent", "nobody"],
        &["--channel", "ops"],
        &["--since", "2025-12-12"],
        &["--until", "2025-12-01"],
        &["--status", "paused"],
    ] {
        let mut pick = vec!["session", "pick"];
        pick.extend(filter);
        let mut list = vec!["session", "list", "--format", "json"];
        list.extend(filter);
        let picked = kiln.run(&pick);
        assert_eq!(picked.code, 0, "{}", picked.stderr);
        let listed: serde_json::Value = serde_json::from_str(&kiln.run(&list).stdout).unwrap();
        let ids: Vec<&str> = picked
            .stdout
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let expected: Vec<&str> = listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["id"].as_str())
            .collect();
        assert_eq!(ids, expected, "{filter:?}");
    }
    let session = kiln.sessions().join("2025-12-10-fix-flaky-test.md");
    let text = std::fs::read_to_string(&session).unwrap();
    let hostile = text.replacen(
        "title: Fix the flaky store test",
        "title: \"\\e]0;PWNED\\a\\e[2JFix it\"",
        1,
    );
    assert_ne!(text, hostile, "the fixture has a title");
    std::fs::write(&session, hostile).unwrap();
    for args in [&["session", "pick"][..], &["session", "resume"]] {
        let out = kiln.run(args);
        assert!(!out.stdout.contains('\u{1b}'), "{args:?}: {:?}", out.stdout);
        assert!(!out.stderr.contains('\u{1b}'), "{args:?}: {:?}", out.stderr);
    }
}
