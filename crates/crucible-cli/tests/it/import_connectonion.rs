//! `cru session import` on the ConnectOnion files the real package wrote
//! (`fixtures/real/connectonion`): the report per file, `--strict`, a
//! valid kiln afterwards, and an export that gives a session file back.

use crate::kiln::{TestKiln, fixtures};

fn real(rel: &str) -> String {
    fixtures()
        .join("real/connectonion")
        .join(rel)
        .display()
        .to_string()
}

#[test]
fn real_connectonion_files_import_with_a_report_per_file() {
    let kiln = TestKiln::empty();
    let out = kiln.run(&["session", "import", "--strict", &real("")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let stderr = out.stderr;
    for line in [
        "[FIXTURES]/real/connectonion/co-eval/.co/evals/add_numbers.yaml: 2 records read (turn 2)",
        "[FIXTURES]/real/connectonion/failing-tool/.co/evals/what_is_1_0.yaml: 12 records read (message 9, run 1, turn 2)",
        "[FIXTURES]/real/connectonion/failing-tool-0.5/.co/sessions/divider.yaml: 8 records read (message 6, turn 2)",
        "[FIXTURES]/real/connectonion/generated/.co/evals/what_is_2_3.yaml: 12 records read (message 9, run 1, turn 2)",
        "[FIXTURES]/real/connectonion/generated-0.5/.co/sessions/calc.yaml: 8 records read (message 6, turn 2)",
        "5 created, 0 updated, 0 unchanged, 0 skipped",
    ] {
        assert!(stderr.lines().any(|l| l == line), "{line}\n{stderr}");
    }
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let said = format!("{}{}", check.stdout, check.stderr);
    assert!(said.contains("5 valid, 0 invalid"), "{said}");
}

#[test]
fn strict_refuses_a_file_with_an_unknown_key_and_names_it() {
    let kiln = TestKiln::empty();
    // A real file with one key the package might add one day.
    let src = std::fs::read_to_string(real("generated-0.5/.co/sessions/calc.yaml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let grown = dir.path().join("calc.yaml");
    std::fs::write(&grown, format!("{src}schema_version: 2\n")).unwrap();
    let path = grown.display().to_string();
    let out = kiln.run(&["session", "import", "--strict", &path]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 skipped (key schema_version 1: a record type cru does not know)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("not imported (--strict)"),
        "{}",
        out.stderr
    );
    // Without --strict it is imported, and the key is kept: an export
    // writes it back.
    let out = kiln.run(&["session", "import", &path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = out.stdout.trim().to_owned();
    let exported = kiln.run(&["session", "export", &id, "--to", "connectonion"]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    assert!(
        exported.stdout.lines().any(|l| l == "schema_version: 2"),
        "{}",
        exported.stdout
    );
    let check = kiln.run(&["session", "validate"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
}
