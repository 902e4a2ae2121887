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

/// A folder cru did not make is not written over without `--force`; a
/// second file declaring an id is left out with a warning, and the count
/// is of the pages there.
#[test]
fn a_site_claims_only_its_own_folder_and_one_page_per_id() {
    let kiln = TestKiln::with_fixtures();
    let theirs = kiln.sessions().join("../../theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("index.html"), "mine").unwrap();
    let out = kiln.run(&["site", "-o", &theirs.display().to_string()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("holds files cru did not write"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("index.html")).unwrap(),
        "mine"
    );
    let out = kiln.run(&["site", "-o", &theirs.display().to_string(), "--force"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        site(&kiln, &theirs).contains("0 pages written"),
        "a site of cru's now"
    );

    let copy = kiln.sessions().join("zz-copy.md");
    std::fs::copy(kiln.sessions().join("2025-12-11-refactor-store.md"), &copy).unwrap();
    let site_dir = kiln.sessions().join("../../site");
    let out = kiln.run(&["site", "-o", &site_dir.display().to_string()]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("9 sessions, 9 pages written"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("zz-copy.md: declares the id 2025-12-11-refactor-store"),
        "{}",
        out.stderr
    );
    let js = std::fs::read_to_string(site_dir.join("sessions.js")).unwrap();
    assert_eq!(
        js.matches("\"id\":\"2025-12-11-refactor-store\"").count(),
        1
    );
}

/// `--workflows` naming no folder is an error; two files whose page names
/// meet get a page each.
#[test]
fn workflow_pages_never_share_a_name_and_a_missing_folder_is_an_error() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    let missing = kiln.root.path().join("no-such-folder");
    let run = kiln.run(&[
        "site",
        "-o",
        &out.display().to_string(),
        "--workflows",
        &missing.display().to_string(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("no-such-folder"), "{}", run.stderr);

    let flows = kiln.root.path().join("flows");
    std::fs::create_dir_all(flows.join("a")).unwrap();
    let linear = crate::kiln::fixtures().join("workflows/linear.md");
    std::fs::copy(&linear, flows.join("a/x.md")).unwrap();
    let text = std::fs::read_to_string(&linear).unwrap();
    std::fs::write(flows.join("a-x.md"), text.replacen("# ", "# Other ", 1)).unwrap();
    // A link out of the folder is not followed, and said so in its words.
    std::os::unix::fs::symlink(&linear, flows.join("out.md")).unwrap();
    let run = kiln.run(&[
        "site",
        "-o",
        &out.display().to_string(),
        "--workflows",
        &flows.display().to_string(),
    ]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("outside the workflows folder; not followed"),
        "{}",
        run.stderr
    );
    let list = std::fs::read_to_string(out.join("workflows.html")).unwrap();
    assert!(list.contains("href=\"w/a-x.html\""), "{list}");
    assert!(list.contains("href=\"w/a-x-2.html\""), "{list}");
    assert!(out.join("w/a-x-2.html").is_file());
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

/// `workflow show` of an invalid workflow, or of a file that is none:
/// shown all the same, with its errors, and exit 1 as its help says.
#[test]
fn workflow_show_of_an_invalid_workflow_exits_1() {
    let kiln = TestKiln::empty();
    let not_one = kiln.root.path().join("readme.md");
    std::fs::write(&not_one, "not a workflow at all\n").unwrap();
    let cycle = crate::kiln::fixtures().join("workflows/cycle.md");
    let linear = crate::kiln::fixtures().join("workflows/linear.md");
    for (file, code) in [(&not_one, 1), (&linear, 0)] {
        for format in ["text", "html"] {
            let out = kiln.run(&[
                "workflow",
                "show",
                &file.display().to_string(),
                "--format",
                format,
            ]);
            assert_eq!(
                out.code,
                code,
                "{} {format}: {}",
                file.display(),
                out.stderr
            );
            assert!(!out.stdout.is_empty(), "shown all the same");
        }
    }
    let out = kiln.run(&["workflow", "validate", &cycle.display().to_string()]);
    let show = kiln.run(&["workflow", "show", &cycle.display().to_string()]);
    assert_eq!(
        out.code == 0,
        show.code == 0,
        "show and validate agree on {}",
        cycle.display()
    );
}

/// Outputs that cannot be what the command writes are named as such: a
/// file for the site's folder, a folder for a page; `workflow show -o`
/// writes its page to the file named.
#[test]
fn outputs_of_the_wrong_kind_are_refused_and_workflow_show_writes_a_file() {
    let kiln = TestKiln::with_fixtures();
    let file = kiln.root.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    let out = kiln.run(&["site", "-o", &file.display().to_string()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("is a file; cru site writes a folder"),
        "{}",
        out.stderr
    );
    let dir = kiln.root.path().to_path_buf();
    let out = crate::show_html::page_to(&kiln, "2025-12-10-fix-flaky-test", &dir);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("is a folder; name a file"),
        "{}",
        out.stderr
    );

    let linear = crate::kiln::fixtures().join("workflows/linear.md");
    let page = kiln.root.path().join("flow.html");
    let out = kiln.run(&[
        "workflow",
        "show",
        &linear.display().to_string(),
        "--format",
        "html",
        "-o",
        &page.display().to_string(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<div class=\"graph\">\n<svg class=\"graph\""),
        "scrolls, not scaled"
    );
}

/// A session the filters leave out of the site is linked to its file, not
/// called missing; one not in the directory still is.
#[test]
fn a_session_left_out_by_the_filters_is_linked_to_its_file() {
    let kiln = TestKiln::with_fixtures();
    let out = kiln.sessions().join("../../site");
    let run = kiln.run(&[
        "site",
        "-o",
        &out.display().to_string(),
        "--status",
        "paused",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page_path = out.join("s/2025-12-10-fix-flaky-test.html");
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(
        !out.join("s/2025-12-10-investigate-ci.html").exists(),
        "filtered out"
    );
    let href = page
        .split("class=\"session-link\" href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .find(|h| h.ends_with("2025-12-10-investigate-ci.md"))
        .unwrap_or_else(|| panic!("a link to the file: {page}"));
    assert!(!href.starts_with('/'), "{href}");
    assert!(out.join("s").join(href).is_file(), "{href}");
    assert!(!page.contains("2025-12-10-investigate-ci <small>(not in this directory)"));
}
