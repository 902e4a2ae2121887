//! What a shared, synced or cloned sessions directory can hold: links where
//! cru keeps its own files, links out of the tree, FIFOs, devices, huge and
//! unreadable files, names that are not UTF-8, an index edited by hand, and
//! sessions changed behind cru's back. Every command must stay inside the
//! directory, never block, and answer as a full parse would.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use crate::kiln::{Output, TestKiln};

/// Every read command, each of which once hung on a FIFO.
const READERS: &[&[&str]] = &[
    &["session", "list"],
    &["session", "list", "--format", "json"],
    &["session", "stats"],
    &["session", "index"],
    &["session", "index", "--check"],
    &["session", "validate"],
    &["session", "learn", "--export", "jsonl"],
];

/// Runs `cru` with a deadline: a command that blocks fails the test
/// instead of hanging it.
fn run(kiln: &TestKiln, args: &[&str]) -> Output {
    kiln.run_cmd(kiln.command().args(args).timeout(Duration::from_secs(20)))
}

/// What `index --check` says, on either stream.
fn checked(kiln: &TestKiln) -> String {
    let out = run(kiln, &["session", "index", "--check"]);
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn a_journal_that_is_a_link_is_refused_and_its_target_untouched() {
    let kiln = TestKiln::with_fixtures();
    let target = kiln.root.path().join("precious.txt");
    std::fs::write(&target, "do not touch\n").unwrap();
    symlink(
        &target,
        kiln.sessions()
            .join(".2025-12-10-fix-flaky-test.md.journal"),
    )
    .unwrap();
    let out = run(
        &kiln,
        &[
            "session",
            "log",
            "--session",
            "2025-12-10-fix-flaky-test",
            "decision",
            "Keep it",
        ],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(".2025-12-10-fix-flaky-test.md.journal")
            && out.stderr.contains("symbolic link"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "do not touch\n");
}

#[test]
fn index_files_that_are_links_are_never_written_through() {
    let kiln = TestKiln::with_fixtures();
    let targets: Vec<_> = [
        ".index.toon",
        ".index-phases.toon",
        ".index-delta.toon",
        ".index-usage.toon",
        ".index-rollup.toon",
    ]
    .iter()
    .map(|name| {
        let target = kiln.root.path().join(format!("target-of{name}"));
        std::fs::write(&target, "precious\n").unwrap();
        symlink(&target, kiln.sessions().join(name)).unwrap();
        target
    })
    .collect();
    for args in [
        &["session", "list"][..],
        &["session", "stats"],
        &["session", "index"],
        &["usage", "daily"],
        &["usage", "monthly"],
    ] {
        let out = run(&kiln, args);
        assert!(
            out.stderr.contains("symbolic link"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // A save through cru (which updates the index) too.
    run(&kiln, &["session", "pause", "2025-12-11-write-tests"]);
    for t in &targets {
        assert_eq!(
            std::fs::read_to_string(t).unwrap(),
            "precious\n",
            "{}",
            t.display()
        );
    }
    // Sessions are still listed, from memory.
    assert!(
        run(&kiln, &["session", "list"])
            .stdout
            .contains("2025-12-10-fix")
    );
}

#[test]
fn a_lock_file_that_is_a_link_is_refused() {
    let kiln = TestKiln::with_fixtures();
    let target = kiln.root.path().join("lock-target");
    std::fs::write(&target, "x").unwrap();
    symlink(&target, kiln.sessions().join(".cru.lock")).unwrap();
    let out = run(&kiln, &["session", "start", "--title", "t"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains(".cru.lock"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x");
}

#[test]
fn an_index_row_naming_a_path_outside_is_corrupt_and_rebuilt() {
    let kiln = TestKiln::with_fixtures();
    assert_eq!(run(&kiln, &["session", "index"]).code, 0);
    let index = kiln.sessions().join(".index.toon");
    let text = std::fs::read_to_string(&index).unwrap();
    // Point every row at /dev/zero, or above the directory.
    for evil in ["/dev/zero", "../../etc/passwd.md", "a/../../x.md"] {
        let edited = text.replace("2025-12-10-fix-flaky-test.md,", &format!("{evil},"));
        assert_ne!(edited, text);
        std::fs::write(&index, &edited).unwrap();
        let out = run(&kiln, &["session", "list"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stderr.contains("index rebuilt") && out.stderr.contains("not a relative path"),
            "{evil}: {}",
            out.stderr
        );
        assert!(
            out.stdout.contains("2025-12-10-fix-flaky-test"),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn fifos_and_devices_named_md_are_skipped_with_a_warning_by_every_command() {
    let kiln = TestKiln::with_fixtures();
    crucible_testkit::mkfifo(&kiln.sessions().join("x.md"));
    crucible_testkit::mkfifo(&kiln.sessions().join("2025-11/y.md"));
    symlink("/dev/zero", kiln.sessions().join("zero.md")).unwrap();
    symlink("/dev/urandom", kiln.sessions().join("2025-11/random.md")).unwrap();
    for args in READERS {
        let out = run(&kiln, args);
        assert!([0, 1, 3].contains(&out.code), "{args:?}: {}", out.stderr);
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(
            all.contains("could not be read")
                || all.contains("FIFO")
                || all.contains("outside the sessions directory"),
            "{args:?} says nothing of the skipped files: {all}"
        );
    }
    // The OTLP export goes on past them too, and says they were skipped.
    let rx = crate::otlp_receiver::Receiver::start();
    let out = crate::otlp::export(&kiln, &rx.url, &["--all"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("could not be read"), "{}", out.stderr);
    assert!(!rx.spans().is_empty(), "nothing sent past them");
    let check = checked(&kiln);
    assert!(
        check.contains("x.md") && check.contains("FIFO"),
        "{}",
        check
    );
    assert!(check.contains("zero.md"), "{}", check);
    // Named directly, they are refused at once.
    let out = run(&kiln, &["session", "show", ".crucible/sessions/x.md"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("FIFO"), "{}", out.stderr);
    let out = run(
        &kiln,
        &["session", "validate", ".crucible/sessions/zero.md"],
    );
    assert_ne!(out.code, 0);
}

#[test]
fn links_are_followed_only_inside_the_directory() {
    let kiln = TestKiln::with_fixtures();
    // A real session outside the directory, linked in: not read.
    let outside = kiln.root.path().join("outside.md");
    std::fs::copy(kiln.sessions().join("2025-12-11-write-tests.md"), &outside).unwrap();
    let text = std::fs::read_to_string(&outside)
        .unwrap()
        .replace("2025-12-11-write-tests", "2025-12-30-outside");
    std::fs::write(&outside, text).unwrap();
    symlink(&outside, kiln.sessions().join("linked-out.md")).unwrap();
    // A link to a session inside: read (it is the same session under two
    // names, so validate reports the duplicate id).
    symlink(
        kiln.sessions().join("2025-12-13-config-migration.md"),
        kiln.sessions().join("2025-11/alias.md"),
    )
    .unwrap();
    let list = run(&kiln, &["session", "list", "--format", "json"]);
    assert!(
        !list.stdout.contains("2025-12-30-outside"),
        "{}",
        list.stdout
    );
    let check = checked(&kiln);
    assert!(
        check.contains("linked-out.md") && check.contains("outside the sessions directory"),
        "{}",
        check
    );
    assert!(
        !run(&kiln, &["session", "show", "2025-12-30-outside"])
            .stdout
            .contains("outside")
    );
}

#[test]
fn an_embed_link_is_an_id_never_a_path_beside_the_working_directory() {
    let kiln = TestKiln::with_fixtures();
    // `secret.md` is a valid id; a file of that name in the working
    // directory must not be read as the embedded session.
    std::fs::write(
        kiln.root.path().join("secret.md"),
        "---\ntype: session\nsession_id: secret.md\nstatus: completed\nstarted: 2025-12-01T00:00:00Z\n---\n\nTOP SECRET CONTENT\n",
    )
    .unwrap();
    kiln.write(
        "parent.md",
        "---\ntype: session\nsession_id: parent\nstatus: completed\nstarted: 2025-12-01T00:00:00Z\nsubagents:\n  - id: secret.md\n    mode: embed\n---\n\n## Work @a\n\n> [!subagent] helper\n> ![[secret.md]]\n",
    );
    let out = run(&kiln, &["session", "show", "parent"]);
    assert!(!out.stdout.contains("TOP SECRET"), "{}", out.stdout);
}

#[test]
fn a_file_over_the_size_limit_is_skipped_with_a_warning() {
    let kiln = TestKiln::with_fixtures();
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[session]\nmax_file_size = \"4KiB\"\n",
    )
    .unwrap();
    let big = std::fs::read_to_string(kiln.sessions().join("2025-12-11-write-tests.md"))
        .unwrap()
        .replace(
            "session_id: 2025-12-11-write-tests",
            "session_id: 2025-12-31-big",
        )
        + &"padding line\n".repeat(1000);
    kiln.write("big.md", &big);
    let list = run(&kiln, &["session", "list", "--format", "json"]);
    assert!(!list.stdout.contains("2025-12-31-big"));
    assert!(list.stderr.contains("could not be read"), "{}", list.stderr);
    let check = checked(&kiln);
    assert!(
        check.contains("big.md") && check.contains("over the limit"),
        "{}",
        check
    );
    let show = run(&kiln, &["session", "show", ".crucible/sessions/big.md"]);
    assert_ne!(show.code, 0);
    assert!(show.stderr.contains("over the limit"), "{}", show.stderr);
    // A bad value is an error naming the key.
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[session]\nmax_file_size = \"lots\"\n",
    )
    .unwrap();
    let out = run(&kiln, &["session", "list"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("max_file_size"), "{}", out.stderr);
}

#[test]
fn a_name_that_is_not_utf8_is_reported_not_dropped() {
    use std::os::unix::ffi::OsStrExt;
    let kiln = TestKiln::with_fixtures();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    std::fs::copy(
        kiln.sessions().join("2025-12-11-write-tests.md"),
        kiln.sessions().join(name),
    )
    .unwrap();
    let check = checked(&kiln);
    assert!(check.contains("UTF-8"), "{}", check);
    let list = run(&kiln, &["session", "list"]);
    assert!(list.stderr.contains("could not be read"), "{}", list.stderr);
}

/// The fixtures, and a subfolder `locked` holding a copy of `fixture` as
/// `name`, everything open to every user (for [`OtherUser`]) until a test
/// locks the folder.
fn kiln_with_a_folder_for_others(fixture: &str, name: &str) -> (TestKiln, std::path::PathBuf) {
    let kiln = TestKiln::with_fixtures();
    let locked = kiln.sessions().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::copy(kiln.sessions().join(fixture), locked.join(name)).unwrap();
    open_to_everyone(&kiln);
    (kiln, locked)
}

/// A folder nobody but its owner may read, and `cru` run as another user
/// (root reads every folder whatever its mode, and tests run as root here).
#[test]
fn an_unreadable_folder_is_skipped_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let Some(other) = OtherUser::here() else {
        return;
    };
    let (kiln, locked) = kiln_with_a_folder_for_others("2025-12-11-write-tests.md", "a.md");
    // Everything readable and writable by all, but the locked folder.
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = other.run(&kiln, &["session", "list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Done, but part of the input skipped: exit 3 (docs/cli.md).
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stdout.contains("2025-12-10-fix-flaky-test"), "{stdout}");
    assert!(stderr.contains("could not be read"), "{stderr}");
}

/// `cru` run as another user (`nobody`): root reads every folder whatever
/// its mode, and tests run as root here, so an unreadable folder needs
/// another user. Run as that user when the tests run as root, else as the
/// tests' own user.
pub(crate) struct OtherUser {
    setpriv: Option<&'static Path>,
}

impl OtherUser {
    /// `None` (with a warning) when tests run as root and `nobody` cannot
    /// run the test binary (no `setpriv`, or a folder on the way to the
    /// binary closed to others).
    pub(crate) fn here() -> Option<Self> {
        let setpriv = Path::new("/usr/bin/setpriv");
        let is_root = std::fs::metadata("/proc/self")
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        if !is_root {
            return Some(Self { setpriv: None });
        }
        let other = Self {
            setpriv: Some(setpriv),
        };
        let runs = setpriv.exists()
            && other
                .command()
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
        if !runs {
            eprintln!("warning: cannot run cru as another user here; test skipped");
            return None;
        }
        Some(other)
    }

    fn command(&self) -> std::process::Command {
        let cru = assert_cmd::cargo::cargo_bin("cru");
        match self.setpriv {
            Some(setpriv) => {
                let mut c = std::process::Command::new(setpriv);
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                    .arg(cru);
                c
            }
            None => std::process::Command::new(cru),
        }
    }

    /// `cru --dir <the kiln's sessions> <args>`, as that user.
    pub(crate) fn run(&self, kiln: &TestKiln, args: &[&str]) -> std::process::Output {
        self.command()
            .arg("--dir")
            .arg(kiln.sessions())
            .args(args)
            .env("HOME", kiln.root.path())
            .output()
            .unwrap()
    }
}

/// Every file and folder of the kiln readable and writable by all.
pub(crate) fn open_to_everyone(kiln: &TestKiln) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walk_all(kiln.root.path()) {
        let mode = if entry.is_dir() { 0o777 } else { 0o666 };
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

fn walk_all(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.to_owned()];
    let mut i = 0;
    while i < out.len() {
        if out[i].is_dir() {
            for e in std::fs::read_dir(&out[i]).unwrap().flatten() {
                out.push(e.path());
            }
        }
        i += 1;
    }
    out
}

/// After any change by anyone, the next `list` answers as a full parse.
#[test]
fn list_is_never_stale_after_changes_made_behind_its_back() {
    let kiln = TestKiln::with_fixtures();
    // What a full parse says of each session: its id, status and path.
    let list = |kiln: &TestKiln| {
        let out = run(kiln, &["session", "list", "--format", "json"]).stdout;
        let rows = crate::kiln::listed_sessions(&out);
        let mut seen: Vec<String> = rows
            .iter()
            .map(|r| format!("{} {} {}", r["id"], r["status"], r["path"]))
            .collect();
        seen.sort();
        seen.join("\n")
    };
    let first = list(&kiln);
    assert!(first.contains("\"2025-12-11-write-tests\""), "{first}");
    let p = kiln.sessions().join("2025-12-11-write-tests.md");
    // 1. Edited in place (same inode), as `sed -i`-less editors and `>` do.
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&p)
        .map(|mut f| {
            std::io::Write::write_all(
                &mut f,
                text.replace("status: completed", "status: failed")
                    .as_bytes(),
            )
        })
        .unwrap()
        .unwrap();
    let out = run(
        &kiln,
        &["session", "list", "--status", "failed", "--format", "json"],
    );
    assert!(
        out.stdout.contains("2025-12-11-write-tests"),
        "in-place edit missed: {}",
        out.stdout
    );
    // 2. A copy made by hand, then a save through cru in the same folder.
    std::fs::write(
        kiln.sessions().join("copy.md"),
        text.replace("2025-12-11-write-tests", "2025-12-29-copied"),
    )
    .unwrap();
    assert_eq!(run(&kiln, &["session", "pause", "2025-12-10-fix"]).code, 0);
    assert!(
        list(&kiln).contains("2025-12-29-copied"),
        "hidden by the save"
    );
    // 3. Renamed, as editors save (write a temp file, rename over).
    std::fs::write(
        kiln.sessions().join(".tmp-save"),
        text.replace("status: completed", "status: paused"),
    )
    .unwrap();
    std::fs::rename(kiln.sessions().join(".tmp-save"), &p).unwrap();
    let paused = run(
        &kiln,
        &["session", "list", "--status", "paused", "--format", "json"],
    )
    .stdout;
    assert!(paused.contains("2025-12-11-write-tests"), "{paused}");
    // 4. Moved into a subfolder, then removed.
    std::fs::create_dir_all(kiln.sessions().join("archive")).unwrap();
    std::fs::rename(
        kiln.sessions().join("copy.md"),
        kiln.sessions().join("archive/copy.md"),
    )
    .unwrap();
    assert!(list(&kiln).contains("archive/copy.md"));
    std::fs::remove_file(kiln.sessions().join("archive/copy.md")).unwrap();
    assert!(!list(&kiln).contains("2025-12-29-copied"));
    // The same answers as a full rebuild.
    let fast = list(&kiln);
    run(&kiln, &["session", "index", "--rebuild"]);
    assert_eq!(fast, list(&kiln));
}

/// What `list --format json` answers, as (id, status, path) lines.
fn listed(kiln: &TestKiln) -> String {
    let out = run(kiln, &["session", "list", "--format", "json"]).stdout;
    let rows = crate::kiln::listed_sessions(&out);
    let mut seen: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {} {}", r["id"], r["status"], r["path"]))
        .collect();
    seen.sort();
    seen.join("\n")
}

/// What a full parse says: `list` after a rebuild.
fn listed_after_rebuild(kiln: &TestKiln) -> String {
    run(kiln, &["session", "index", "--rebuild"]);
    listed(kiln)
}

#[test]
fn a_folder_swapped_for_a_link_out_of_the_tree_is_not_read_through() {
    let kiln = TestKiln::with_fixtures();
    let outside = kiln.root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let text = std::fs::read_to_string(kiln.sessions().join("2025-11/2025-11-28-ci-failure.md"))
        .unwrap()
        .replace("channel: ops", "channel: OUTSIDE");
    std::fs::write(outside.join("2025-11-28-ci-failure.md"), text).unwrap();
    listed(&kiln);
    std::fs::remove_dir_all(kiln.sessions().join("2025-11")).unwrap();
    symlink(&outside, kiln.sessions().join("2025-11")).unwrap();
    let stats = run(&kiln, &["session", "stats", "--group-by", "channel"]).stdout;
    assert!(!stats.contains("OUTSIDE"), "{stats}");
    let fast = listed(&kiln);
    assert!(!fast.contains("ci-failure"), "{fast}");
    assert_eq!(fast, listed_after_rebuild(&kiln));
}

#[test]
fn a_live_session_is_counted_once() {
    let kiln = TestKiln::with_fixtures();
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    let out = run(
        &kiln,
        &[
            "session",
            "log",
            "--session",
            "2025-12-12-start-docs",
            "tool",
            "ls",
            "--result",
            "ok",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Right after the log (the folder changed within a clock tick), and
    // right after a rebuild.
    let once = |s: &str| s.matches("\"2025-12-12-start-docs\"").count() == 1;
    assert!(once(&listed(&kiln)), "{}", listed(&kiln));
    run(&kiln, &["session", "index", "--rebuild"]);
    let after = listed(&kiln);
    assert!(once(&after), "{after}");
    let stats = run(&kiln, &["session", "stats", "--format", "json"]).stdout;
    let v: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(v["total"]["sessions"], 9, "{stats}");
}

#[test]
fn a_new_file_is_seen_even_when_its_folder_mtime_is_put_back() {
    let kiln = TestKiln::with_fixtures();
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    listed(&kiln);
    let dir = kiln.sessions().join("2025-11");
    let mtime = std::fs::metadata(&dir).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(dir.join("2025-11-28-ci-failure.md"))
        .unwrap()
        .replace("session_id: 2025-11-28-ci-failure", "session_id: newcomer");
    std::fs::write(dir.join("newcomer.md"), text).unwrap();
    std::fs::File::open(&dir)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&dir).unwrap().modified().unwrap(), mtime);
    assert!(listed(&kiln).contains("newcomer"));
}

#[test]
fn a_hard_linked_snapshot_of_the_directory_is_never_written() {
    let kiln = TestKiln::with_fixtures();
    listed(&kiln);
    let id = run(&kiln, &["session", "start", "--title", "first"]).stdout;
    let id = id.trim();
    run(
        &kiln,
        &[
            "session",
            "log",
            "--session",
            id,
            "tool",
            "ls",
            "--result",
            "ok",
        ],
    );
    // `cp -al`: every file of the snapshot shares its inode with the original.
    let snapshot = kiln.root.path().join("snapshot");
    let status = std::process::Command::new("cp")
        .arg("-al")
        .arg(kiln.sessions())
        .arg(&snapshot)
        .status()
        .unwrap();
    assert!(status.success());
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = walk_all(&snapshot)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    run(
        &kiln,
        &[
            "session",
            "log",
            "--session",
            id,
            "tool",
            "cat",
            "--result",
            "more",
        ],
    );
    run(&kiln, &["session", "start", "--title", "another"]);
    run(&kiln, &["session", "index", "--rebuild"]);
    listed(&kiln);
    for (p, bytes) in before {
        assert_eq!(
            std::fs::read(&p).unwrap(),
            bytes,
            "{} was written",
            p.display()
        );
    }
}

#[test]
fn a_row_twice_in_an_edited_index_is_corrupt_not_counted_twice() {
    let kiln = TestKiln::with_fixtures();
    // Stamps old enough to be trusted, and every row in the base.
    std::thread::sleep(Duration::from_millis(150));
    run(&kiln, &["session", "index", "--rebuild"]);
    let index = kiln.sessions().join(".index.toon");
    let text = std::fs::read_to_string(&index).unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("2025-12-10-fix-flaky-test.md,"))
        .unwrap()
        .to_owned();
    let n = text.matches("\n  ").count();
    let header = text
        .lines()
        .find(|l| l.starts_with("sessions["))
        .unwrap()
        .to_owned();
    let count: usize = header["sessions[".len()..header.find(']').unwrap()]
        .parse()
        .unwrap();
    let doubled = text.replacen(&row, &format!("{row}\n{row}"), 1).replacen(
        &format!("sessions[{count}]"),
        &format!("sessions[{}]", count + 1),
        1,
    );
    assert!(n > 0);
    std::fs::write(&index, doubled).unwrap();
    let out = run(&kiln, &["session", "list", "--format", "json"]);
    let rows = crate::kiln::listed_sessions(&out.stdout);
    let twice = rows
        .iter()
        .filter(|r| r["id"] == "2025-12-10-fix-flaky-test")
        .count();
    assert_eq!(twice, 1, "{}", out.stdout);
    assert!(out.stderr.contains("index rebuilt"), "{}", out.stderr);
}

#[test]
fn events_logged_to_an_indexed_session_stay_counted() {
    let kiln = TestKiln::with_fixtures();
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    listed(&kiln);
    let id = "2025-12-12-start-docs";
    for args in [
        &["session", "log", "--session", id, "tokens", "7"][..],
        &[
            "session",
            "log",
            "--session",
            id,
            "tool",
            "bash",
            "ls",
            "--result",
            "ok",
        ],
    ] {
        assert_eq!(run(&kiln, args).code, 0);
    }
    let truth = run(&kiln, &["session", "show", id, "--format", "json"]).stdout;
    assert!(truth.contains("\"ls\"") || truth.contains("ls"), "{truth}");
    // Several queries, some after the folder's change is no longer recent.
    for _ in 0..3 {
        let out = run(&kiln, &["session", "list", "--format", "json"]).stdout;
        let rows = crate::kiln::listed_sessions(&out);
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(row["tool_calls"], 2, "{row}");
        assert_eq!(row["tokens"], 7, "{row}");
        std::thread::sleep(Duration::from_millis(150));
    }
}

#[test]
fn a_link_to_a_session_in_a_parent_folder_is_read_at_once() {
    let kiln = TestKiln::with_fixtures();
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    symlink(
        "../2025-12-12-start-docs.md",
        kiln.sessions().join("2025-11/alias.md"),
    )
    .unwrap();
    let fast = listed(&kiln);
    assert!(fast.contains("2025-11/alias.md"), "{fast}");
    assert_eq!(fast, listed_after_rebuild(&kiln));
}

#[test]
fn a_row_twice_in_an_edited_delta_is_corrupt_not_counted_twice() {
    let kiln = TestKiln::with_fixtures();
    // The first query rebuilds; its stamps are too recent to trust, so the
    // second reads the files again and saves them in the delta.
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    listed(&kiln);
    let delta = kiln.sessions().join(".index-delta.toon");
    let text = std::fs::read_to_string(&delta).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("sessions["))
        .unwrap();
    let n: usize = lines[at]["sessions[".len()..lines[at].find(']').unwrap()]
        .parse()
        .unwrap();
    assert!(n > 0, "{text}");
    lines[at] = lines[at].replacen(&format!("[{n}]"), &format!("[{}]", n + 1), 1);
    let row = lines[at + 1].clone();
    lines.insert(at + 1, row);
    std::fs::write(&delta, lines.join("\n") + "\n").unwrap();
    let out = run(&kiln, &["session", "stats", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["total"]["sessions"], 9, "{}", out.stdout);
    assert!(out.stderr.contains("index rebuilt"), "{}", out.stderr);
}

#[test]
fn a_folder_that_becomes_unreadable_is_reported_not_dropped_silently() {
    use std::os::unix::fs::PermissionsExt;
    let Some(other) = OtherUser::here() else {
        return;
    };
    let (kiln, locked) = kiln_with_a_folder_for_others("2025-12-12-start-docs.md", "x.md");
    let as_other = |args: &[&str]| {
        let out = other.run(&kiln, args);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    as_other(&["session", "list"]);
    std::thread::sleep(Duration::from_millis(150));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::thread::sleep(Duration::from_millis(150));
    let (_, stderr) = as_other(&["session", "list"]);
    assert!(stderr.contains("could not be read"), "{stderr}");
    let (out, err) = as_other(&["session", "index", "--check"]);
    assert!(format!("{out}{err}").contains("locked"), "{out}{err}");
}

#[test]
fn a_note_rewritten_in_place_into_a_session_is_listed() {
    let kiln = TestKiln::with_fixtures();
    let session = std::fs::read_to_string(kiln.sessions().join("2025-12-12-start-docs.md"))
        .unwrap()
        .replace("2025-12-12-start-docs", "2025-12-30-was-a-note");
    // An empty file (an editor just made it) and a note of the vault.
    kiln.write("new-one.md", "");
    kiln.write("notes/readme.md", "# Notes\n\nnot a session\n");
    listed(&kiln);
    std::thread::sleep(Duration::from_millis(150));
    listed(&kiln);
    // Written in place: same inode, folder untouched.
    for rel in ["new-one.md", "notes/readme.md"] {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(kiln.sessions().join(rel))
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            session
                .replace("was-a-note", rel.replace(['/', '.'], "-").as_str())
                .as_bytes(),
        )
        .unwrap();
    }
    let fast = listed(&kiln);
    assert!(
        fast.contains("new-one.md") && fast.contains("notes/readme.md"),
        "{fast}"
    );
    assert_eq!(fast, listed_after_rebuild(&kiln));
}

/// `cru workflow validate DIR` walks with the one walker: a link back up
/// the tree used to be followed for ever; a FIFO named `*.md` used to be
/// taken for a workflow. Both are named, skipped (exit 3), and never opened.
#[test]
fn workflow_validate_of_a_folder_with_a_loop_and_a_fifo_ends_and_names_them() {
    let kiln = TestKiln::empty();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("workflows");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::copy(
        crate::kiln::fixtures().join("workflows/linear.md"),
        root.join("sub/linear.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&root, root.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("sub/up.md")).unwrap();
    crucible_testkit::mkfifo(&root.join("pipe.md"));
    let out = kiln.run(&["workflow", "validate", root.to_str().unwrap()]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    super::assert_skipped(
        &out.stderr,
        &[
            ("pipe.md", "FIFO"),
            ("up.md", "symbolic link to a folder (not followed)"),
        ],
    );
    assert!(out.stderr.contains("1 workflow"), "{}", out.stderr);
}
