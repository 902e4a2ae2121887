//! Where `cru` finds the sessions directory and its configuration.

use crate::kiln::TestKiln;

const SESSION: &str = "---\ntype: session\nsession_id: 2025-12-01-x\nstarted: 2025-12-01T10:00:00Z\nstatus: active\n---\n";

#[test]
fn the_nearest_kiln_upward_is_used() {
    let kiln = TestKiln::empty();
    kiln.write("2025-12-01-x.md", SESSION);
    let deep = kiln.root.path().join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "show", "2025-12-01-x", "--format", "markdown"])
            .current_dir(&deep),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "---\ntype: session\nsession_id: 2025-12-01-x\nstarted: 2025-12-01T10:00:00Z\nstatus: active\nresume_point: null\n---\n"
    );
}

#[test]
fn env_and_flag_override_the_kiln() {
    let kiln = TestKiln::empty();
    let other = kiln.root.path().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("2025-12-01-x.md"), SESSION).unwrap();
    let by_env = kiln.run_cmd(
        kiln.command()
            .args(["session", "show", "2025-12-01-x"])
            .env("CRU_SESSIONS_DIR", &other),
    );
    assert_eq!(by_env.code, 0, "{}", by_env.stderr);
    let by_flag = kiln.run(&["session", "show", "2025-12-01-x", "--dir", "elsewhere"]);
    assert_eq!(by_flag.code, 0, "{}", by_flag.stderr);
    let kiln_only = kiln.run(&["session", "show", "2025-12-01-x"]);
    assert_eq!(kiln_only.code, 1);
}

#[test]
fn the_kiln_config_sets_the_directory_relative_to_the_kiln() {
    let kiln = TestKiln::empty();
    std::fs::write(
        kiln.root.path().join(".crucible/config.toml"),
        "[session]\ndir = \"logs\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(kiln.root.path().join("logs")).unwrap();
    std::fs::write(kiln.root.path().join("logs/2025-12-01-x.md"), SESSION).unwrap();
    let out = kiln.run(&["-v", "session", "show", "2025-12-01-x"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("sessions directory"), "{}", out.stderr);
}

#[test]
fn an_unknown_config_key_is_an_error_naming_it() {
    let kiln = TestKiln::empty();
    let config = kiln.root.path().join("user.toml");
    std::fs::write(&config, "[session]\nsubagent_mod = \"link\"\n").unwrap();
    let out = kiln.run_cmd(
        kiln.command()
            .args(["session", "validate"])
            .env("CRUCIBLE_CONFIG", &config),
    );
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr, @"error: [KILN]/user.toml:2: unknown field `subagent_mod`, expected one of `dir`, `subagent_mode`, `save_policy`, `save_interval`, `idle_timeout`, `resume_token_budget`, `max_file_size`");
}
