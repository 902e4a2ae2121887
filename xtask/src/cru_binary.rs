//! The `cru` binary the benchmarks and checks run.
//!
//! `cargo xtask bench` measures what users get, so it builds the release
//! binary. The checks of what cru writes take the debug one. The smoke tests of the same harnesses only need *a*
//! `cru` that matches the source: they take the test profile's binary, which
//! `cargo test --workspace` has already built, instead of paying for a
//! release build (about two minutes of a CI run) inside `cargo test`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use anyhow::Context;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The `cru` release binary, built if needed: for the benchmarks.
pub fn release(root: &Path) -> anyhow::Result<PathBuf> {
    build(root, &["--release"], "release")
}

/// The `cru` debug binary, built if needed: for the checks of what cru
/// writes (learn-check, messages-check, peer-check), which do not measure
/// speed, and after `cargo test --workspace` (as in CI) cost no build.
pub fn debug(root: &Path) -> anyhow::Result<PathBuf> {
    build(root, &[], "debug")
}

fn build(root: &Path, profile: &[&str], dir: &str) -> anyhow::Result<PathBuf> {
    let status = Command::new(cargo())
        .args(["build", "--quiet", "-p", "crucible-cli", "--bin", "cru"])
        .args(profile)
        .current_dir(root)
        .status()
        .context("building cru")?;
    anyhow::ensure!(status.success(), "cargo build of cru failed");
    // Where cargo put it: CARGO_TARGET_DIR when the build was sent elsewhere.
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target
        .join(dir)
        .join(format!("cru{}", std::env::consts::EXE_SUFFIX)))
}

/// The `cru` of the profile the running test was built with
/// (`target/debug/cru` under `cargo test`), brought up to date once per
/// test process. Under `cargo test --workspace` the CLI's own tests have
/// built it already and the build is a no-op; under `cargo test -p xtask`
/// it compiles the binary's `main.rs` and links it, against the libraries
/// the test already built.
pub fn for_tests() -> anyhow::Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| build_for_tests().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

fn build_for_tests() -> anyhow::Result<PathBuf> {
    // The test runs as <target>/<profile dir>/deps/<test>-<hash>.
    let exe = std::env::current_exe().context("where the test binary is")?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .context("the test binary is not under <target>/<profile>/deps")?;
    let target = profile_dir
        .parent()
        .context("the profile directory has no parent")?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask lives in the workspace")?;
    let mut build = Command::new(cargo());
    build
        .args(["build", "--quiet", "-p", "crucible-cli", "--bin", "cru"])
        .arg("--target-dir")
        .arg(target)
        .current_dir(root);
    // The dev profile's directory is `debug`; every other profile's is its name.
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => {}
        Some(profile) => {
            build.args(["--profile", profile]);
        }
    }
    let status = build.status().context("building cru")?;
    anyhow::ensure!(status.success(), "cargo build of cru failed");
    let cru = profile_dir.join(format!("cru{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(cru.is_file(), "cargo built no {}", cru.display());
    Ok(cru)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_binary_is_the_test_profiles_and_answers() {
        let cru = for_tests().unwrap();
        let profile_dir = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .to_owned();
        assert_eq!(cru.parent(), Some(profile_dir.as_path()));
        let out = Command::new(&cru).arg("--version").output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("cru "));
    }
}
