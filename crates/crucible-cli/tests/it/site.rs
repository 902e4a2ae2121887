//! `cru site`: the static site of the fixtures, its second run, and the
//! pages loaded by a real browser (Chromium headless, from `file://`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::kiln::TestKiln;

fn site(kiln: &TestKiln, out: &Path) -> String {
    let out = kiln.run(&["site", "-o", &out.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stderr
}

#[test]
fn a_site_has_an_index_a_page_per_session_and_rewrites_only_what_changed() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    assert!(site(&kiln, &out).contains("9 sessions, 9 pages written, 0 unchanged"));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<a href=\"s/2025-12-10-fix-flaky-test.html\">"));
    assert!(index.contains("9 sessions · page 1 of 1"));
    let js = std::fs::read_to_string(out.join("sessions.js")).unwrap();
    assert!(js.starts_with("window.cruSessions = ["));
    let page = std::fs::read_to_string(out.join("s/2025-12-10-fix-flaky-test.html")).unwrap();
    assert!(page.contains("<a href=\"../index.html\">← all sessions</a>"));
    assert!(page.contains("href=\"2025-12-10-investigate-ci.html\""));

    assert!(site(&kiln, &out).contains("9 pages written".replace('9', "0").as_str()));

    // The embedded child changes: its page and its parent's are made again.
    let child = kiln.sessions().join("2025-12-10-investigate-ci.md");
    let text = std::fs::read_to_string(&child).unwrap();
    std::fs::write(&child, text.replace("Collect logs", "Collect the logs")).unwrap();
    let said = site(&kiln, &out);
    assert!(said.contains("2 pages written, 7 unchanged"), "{said}");
    let page = std::fs::read_to_string(out.join("s/2025-12-10-fix-flaky-test.html")).unwrap();
    assert!(
        page.contains("Collect the logs"),
        "the parent shows the new text"
    );

    // A session removed: its page goes, and the page linking to it says so.
    std::fs::remove_file(&child).unwrap();
    let said = site(&kiln, &out);
    assert!(
        said.contains("1 page written, 7 unchanged, 1 removed"),
        "{said}"
    );
    assert!(!out.join("s/2025-12-10-investigate-ci.html").exists());
    let page = std::fs::read_to_string(out.join("s/2025-12-10-fix-flaky-test.html")).unwrap();
    assert!(page.contains("2025-12-10-investigate-ci <small>(not in this directory)</small>"));
}

#[test]
fn a_second_run_keeps_what_is_current_and_makes_again_what_changed_or_went() {
    use std::os::unix::fs::MetadataExt;
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    site(&kiln, &out);
    let stamp = |name: &str| {
        let m = std::fs::metadata(out.join(name)).unwrap();
        (m.ino(), m.mtime_nsec(), m.mtime())
    };
    let files = [".cru-site", ".cru-site-index", "index.html", "sessions.js"];
    let before: Vec<_> = files.iter().map(|f| stamp(f)).collect();

    // Nothing changed: not a file is written, the manifests included.
    assert!(site(&kiln, &out).contains("0 pages written, 9 unchanged"));
    let after: Vec<_> = files.iter().map(|f| stamp(f)).collect();
    assert_eq!(before, after, "{files:?}");

    // Files removed by hand come back: a session's page, the index, the data.
    for f in [
        "s/2025-12-10-fix-flaky-test.html",
        "index.html",
        "sessions.js",
    ] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    assert!(site(&kiln, &out).contains("1 page written, 8 unchanged"));
    for f in [
        "s/2025-12-10-fix-flaky-test.html",
        "index.html",
        "sessions.js",
    ] {
        assert!(out.join(f).is_file(), "{f} made again");
    }

    // A title changed: the index and the data show it.
    let session = kiln.sessions().join("2025-12-10-investigate-ci.md");
    let text = std::fs::read_to_string(&session).unwrap();
    let retitled = text.replacen("title: ", "title: Renamed ", 1);
    assert_ne!(text, retitled, "the fixture has a title");
    std::fs::write(&session, retitled).unwrap();
    assert!(site(&kiln, &out).contains("2 pages written, 7 unchanged"));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let js = std::fs::read_to_string(out.join("sessions.js")).unwrap();
    assert!(index.contains(">Renamed "), "{index}");
    assert!(js.contains("\"title\":\"Renamed "), "{js}");

    // Keys another version wrote are not trusted: everything is drawn again.
    std::fs::write(out.join(".cru-site-index"), "cru-site-index 0 old\n").unwrap();
    std::fs::write(out.join("index.html"), "stale").unwrap();
    site(&kiln, &out);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains(">Renamed "), "{index}");
}

#[test]
fn workflows_get_a_page_each_with_their_step_graph() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    let flows = crate::kiln::fixtures().join("workflows");
    let run = kiln.run(&[
        "site",
        "-o",
        &out.display().to_string(),
        "--workflows",
        &flows.display().to_string(),
    ]);
    // malformed-toon.md and the samples that are not workflows are named
    // and left out (exit 3), the rest written.
    assert!(run.code == 0 || run.code == 3, "{}", run.stderr);
    let list = std::fs::read_to_string(out.join("workflows.html")).unwrap();
    assert!(
        list.contains("<a href=\"w/parallel-merge.html\">Review a pull request</a>"),
        "{list}"
    );
    let page = std::fs::read_to_string(out.join("w/parallel-merge.html")).unwrap();
    assert!(page.contains("<svg class=\"graph\""));
    assert_eq!(page.matches("<rect ").count(), 4, "one box per step");
    assert!(page.contains("<a href=\"../workflows.html\">← all workflows</a>"));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<a href=\"workflows.html\">workflows</a>"));
}

#[test]
fn workflow_show_html_draws_the_steps_and_escapes_their_names() {
    let kiln = TestKiln::empty();
    let file = kiln.sessions().join("../flow.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "# Flow <script>alert(1)</script>\n\n## Fetch <b>it</b> @fetcher\nurl → diff\n\n## Use @user\ndiff → done\n",
    )
    .unwrap();
    let out = kiln.run(&[
        "workflow",
        "show",
        &file.display().to_string(),
        "--format",
        "html",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("<script"), "{}", out.stdout);
    assert!(!out.stdout.contains("<b>"), "{}", out.stdout);
    assert!(out.stdout.contains("Fetch &lt;b&gt;it&lt;/b&gt;"));
    assert_eq!(out.stdout.matches("<rect ").count(), 2);
    assert!(
        out.stdout.contains(">diff</text>"),
        "the edge is named: {}",
        out.stdout
    );
}

/// Chromium, if it is installed (CI installs it).
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            out.status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        })
}

fn headless(browser: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_browser_filters_the_table_by_the_address_and_shows_no_console_error() {
    let Some(browser) = chromium() else {
        eprintln!("warning: Chromium is not installed; the browser test of the site is skipped");
        return;
    };
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    site(&kiln, &out);
    let out = out.canonicalize().unwrap();
    let url = format!("file://{}/index.html#q=flaky%20paused", out.display());
    let (dom, log) = headless(
        &browser,
        &["--virtual-time-budget=3000", "--dump-dom", &url],
    );
    assert!(dom.contains("1 of 9 sessions match"), "{dom}");
    assert!(dom.contains("s/2025-12-10-fix-flaky-test.html"), "{dom}");
    assert!(
        !dom.contains("s/2025-12-13-config-loader.html"),
        "filtered out"
    );
    for bad in ["Uncaught", "Refused to", "Content Security Policy"] {
        assert!(!log.contains(bad), "{bad}:\n{log}");
    }
    // Screenshots a reviewer can look at.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, page) in [
        ("index.png", out.join("index.html")),
        ("session.png", out.join("s/2025-12-10-fix-flaky-test.html")),
    ] {
        let shot = shots.join(name);
        let (_, log) = headless(
            &browser,
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1280,1600",
                &format!("file://{}", page.display()),
            ],
        );
        assert!(shot.is_file(), "{log}");
        assert!(!log.contains("Refused to"), "{log}");
    }
}
