//! The store with the markdown codec: lookups, atomic saves, concurrent creation.

use std::collections::HashSet;
use std::sync::Arc;

use crucible_core::{Frontmatter, SessionLog, SessionStore, StoreError, Timestamp};
use crucible_parser::MarkdownCodec;

fn store_with_fixtures() -> (tempfile::TempDir, SessionStore<MarkdownCodec>) {
    let dir = crucible_testkit::copy_session_fixtures();
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    (dir, store)
}

#[test]
fn resolves_ids_prefixes_file_names_and_paths() {
    let (dir, store) = store_with_fixtures();
    let name = |q: &str| {
        store
            .resolve(q)
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
    };
    assert_eq!(
        name("2025-12-11-write-tests").unwrap(),
        "2025-12-11-write-tests.md"
    );
    assert_eq!(name("2025-12-11-W").unwrap(), "2025-12-11-write-tests.md");
    // In a subfolder, found by id.
    assert_eq!(name("2025-11-28-ci").unwrap(), "2025-11-28-ci-failure.md");
    // The frontmatter id wins, but the file name still finds the file.
    assert_eq!(
        name("2025-12-05-FEATURE").unwrap(),
        "feature-implementation-session.md"
    );
    assert_eq!(
        name("feature-impl").unwrap(),
        "feature-implementation-session.md"
    );
    let path = dir.path().join("2025-12-11-write-tests.md");
    assert_eq!(store.resolve(path.to_str().unwrap()).unwrap(), path);

    match store.resolve("2025-12-1") {
        Err(StoreError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 7),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        store.resolve("nothing"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.resolve("../escape"),
        Err(StoreError::NoSuchFile { .. })
    ));
    assert!(matches!(
        store.resolve("a b"),
        Err(StoreError::InvalidId(_))
    ));
}

#[test]
fn two_files_with_one_id_are_reported_with_both_paths() {
    let (dir, store) = store_with_fixtures();
    std::fs::copy(
        dir.path().join("2025-12-11-write-tests.md"),
        dir.path().join("2025-11/copy.md"),
    )
    .unwrap();
    let scan: Vec<_> = store.scan().into_iter().map(Result::unwrap).collect();
    let report = crucible_parser::validate::validate_file(
        &store,
        &scan,
        &dir.path().join("2025-11/copy.md"),
    );
    assert_eq!(report.errors.len(), 1, "{report:?}");
    let message = report.errors[0].to_string();
    assert!(
        message.contains("also the id of") && message.contains("2025-12-11-write-tests.md"),
        "{message}"
    );
    // Neither the id nor a prefix that reaches both files picks one
    // silently: both name the two files.
    for query in ["2025-12-11-write-tests", "2025-12-11-wr"] {
        match store.resolve(query) {
            Err(StoreError::DuplicateId { paths, .. }) => assert_eq!(paths.len(), 2),
            other => panic!("{query}: {other:?}"),
        }
    }
}

#[test]
fn save_is_atomic_and_keeps_the_file_where_it_is() {
    let (dir, store) = store_with_fixtures();
    let (path, mut log) = store.load("2025-11-28").unwrap();
    log.frontmatter.tokens_used = Some(1);
    assert_eq!(store.save(&log).unwrap(), path);
    assert_eq!(store.load_path(&path).unwrap(), log);
    // Only the sessions, the lock file and nothing half-written.
    let hidden: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert_eq!(hidden, [".cru.lock"]);
}

#[test]
fn fifty_threads_create_fifty_ids() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SessionStore::new(dir.path(), MarkdownCodec));
    let started: Timestamp = "2025-12-20T10:00:00Z".parse().unwrap();
    let handles: Vec<_> = (0..50)
        .map(|_| {
            let store = Arc::clone(&store);
            let started = started.clone();
            std::thread::spawn(move || {
                store
                    .create_new(&started, Some("Same title"), |id| {
                        SessionLog::new(Frontmatter::new(id, started.clone()))
                    })
                    .unwrap()
            })
        })
        .collect();
    let ids: HashSet<String> = handles
        .into_iter()
        .map(|h| h.join().unwrap().1.id().to_string())
        .collect();
    assert_eq!(ids.len(), 50);
    assert!(ids.contains("2025-12-20-same-title"));
    assert!(ids.contains("2025-12-20-same-title-50"));
    assert_eq!(
        crucible_core::store::session_files(dir.path())
            .unwrap()
            .len(),
        50
    );
    for id in &ids {
        let (_, log) = store.load(id).unwrap();
        assert_eq!(log.id().as_str(), id);
    }
}

/// Set in the children of `fifty_processes_create_fifty_ids`: the directory
/// each child creates one session in.
const WORKER_DIR: &str = "CRU_TEST_CREATE_WORKER_DIR";

/// Fifty real processes (this test binary, re-run as workers) create sessions
/// with the same title in the same second: the lock and create-new semantics
/// must give each its own id and file.
#[test]
fn fifty_processes_create_fifty_ids() {
    let started: Timestamp = "2025-12-21T10:00:00Z".parse().unwrap();
    if let Some(dir) = std::env::var_os(WORKER_DIR) {
        let store = SessionStore::new(std::path::PathBuf::from(dir), MarkdownCodec);
        let (_, log) = store
            .create_new(&started, Some("Same title"), |id| {
                SessionLog::new(Frontmatter::new(id, started.clone()))
            })
            .unwrap();
        println!("created {}", log.id());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..50)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "store::fifty_processes_create_fifty_ids",
                    "--nocapture",
                ])
                .env(WORKER_DIR, dir.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let files = crucible_core::store::session_files(dir.path()).unwrap();
    assert_eq!(files.len(), 50);
    let store = SessionStore::new(dir.path(), MarkdownCodec);
    let ids: HashSet<String> = files
        .iter()
        .map(|f| store.load_path(f).unwrap().id().to_string())
        .collect();
    assert_eq!(ids.len(), 50);
}

#[test]
fn an_existing_id_is_never_reused_even_in_a_subfolder() {
    let (_dir, store) = store_with_fixtures();
    let started: Timestamp = "2025-11-28T09:00:00Z".parse().unwrap();
    let (_, log) = store
        .create_new(&started, Some("CI failure"), |id| {
            SessionLog::new(Frontmatter::new(id, started.clone()))
        })
        .unwrap();
    assert_eq!(log.id().as_str(), "2025-11-28-ci-failure-2");
}

#[test]
fn an_id_declared_by_a_file_of_another_name_is_never_given_again() {
    let (dir, store) = store_with_fixtures();
    // `feature-implementation-session.md` declares `2025-12-05-feature-impl`.
    let started: Timestamp = "2025-12-05T09:00:00Z".parse().unwrap();
    let (path, log) = store
        .create_new(&started, Some("Feature impl"), |id| {
            SessionLog::new(Frontmatter::new(id, started.clone()))
        })
        .unwrap();
    assert_eq!(log.id().as_str(), "2025-12-05-feature-impl-2");
    assert_eq!(path, dir.path().join("2025-12-05-feature-impl-2.md"));
}
