//! `cargo xtask screenshots`: the pictures in the README, made from the
//! shipped fixtures with the real binary, so that anyone can make them
//! again and see that they are what cru shows.
//!
//! - `docs/images/session-page.png`: `cru session show
//!   2025-12-10-fix-flaky-test --format html`, drawn by headless Chromium;
//! - `docs/images/site-index.png`: the index page of `cru site`;
//! - `docs/images/picker.txt`: the screen of `cru session pick` after
//!   typing `store`, captured from a tmux pane (the picker is text; the
//!   README shows it as text).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

pub fn run(root: &Path) -> anyhow::Result<()> {
    let cru = crate::cru_binary::debug(root)?;
    let work = tempfile::tempdir()?;
    let sessions = work.path().join("sessions");
    copy_dir(&root.join("fixtures/sessions"), &sessions)?;
    let images = root.join("docs/images");
    std::fs::create_dir_all(&images)?;
    let browser = which(&["chromium", "chromium-browser", "google-chrome"])
        .context("Chromium is needed for the pictures of pages (apt install chromium)")?;
    let page = work.path().join("session.html");
    cru_ok(
        &cru,
        &sessions,
        &[
            "session",
            "show",
            "2025-12-10-fix-flaky-test",
            "--format",
            "html",
            "-o",
        ],
        Some(&page),
    )?;
    shoot(
        &browser,
        &page,
        &images.join("session-page.png"),
        "1100,1400",
    )?;
    let site = work.path().join("site");
    cru_ok(&cru, &sessions, &["site", "-o"], Some(&site))?;
    shoot(
        &browser,
        &site.join("index.html"),
        &images.join("site-index.png"),
        "1280,560",
    )?;
    let picker = picker_screen(&cru, &sessions)?;
    std::fs::write(images.join("picker.txt"), picker)?;
    println!("wrote docs/images/session-page.png, site-index.png, picker.txt");
    Ok(())
}

fn cru_ok(cru: &Path, dir: &Path, args: &[&str], last: Option<&Path>) -> anyhow::Result<()> {
    let mut cmd = Command::new(cru);
    cmd.arg("--dir").arg(dir).args(args);
    if let Some(last) = last {
        cmd.arg(last);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        bail!("cru {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

fn shoot(browser: &Path, page: &Path, png: &Path, size: &str) -> anyhow::Result<()> {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()?;
    if !png.is_file() {
        bail!(
            "no screenshot of {}: {}",
            page.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// The picker's screen after typing `store`, as text.
fn picker_screen(cru: &Path, sessions: &Path) -> anyhow::Result<String> {
    let socket = format!("cru-screens-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-L")
            .arg(&socket)
            .args(args)
            .output()
    };
    let command = format!(
        "TERM=xterm-256color {} --dir {} session pick; sleep 30",
        cru.display(),
        sessions.display()
    );
    let started = tmux(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "16",
        &command,
    ])
    .context("tmux is needed for the picker's screen (apt install tmux)")?;
    if !started.status.success() {
        bail!("tmux: {}", String::from_utf8_lossy(&started.stderr));
    }
    let wait_for = |text: &str| -> anyhow::Result<String> {
        let start = Instant::now();
        loop {
            let out = tmux(&["capture-pane", "-p"])?;
            let screen = String::from_utf8_lossy(&out.stdout).into_owned();
            if screen.contains(text) {
                return Ok(screen);
            }
            if start.elapsed() > Duration::from_secs(10) {
                bail!("the picker never showed {text:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let result = wait_for("9/9").and_then(|_| {
        tmux(&["send-keys", "-l", "store"])?;
        wait_for("4/9")
    });
    let _ = tmux(&["kill-server"]);
    let screen = result?;
    Ok(screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n")
}

fn which(names: &[&str]) -> Option<PathBuf> {
    names.iter().find_map(|name| {
        let out = Command::new("which").arg(name).output().ok()?;
        out.status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    })
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    for file in crucible_core::store::session_files(from)? {
        let target = to.join(file.strip_prefix(from)?);
        std::fs::create_dir_all(target.parent().context("a file has a folder")?)?;
        std::fs::copy(&file, &target)?;
    }
    Ok(())
}
