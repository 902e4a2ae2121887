//! Every command's `--format json` against its schema in docs/json.md.
//!
//! The test reads the doc: each ```` ```schema <command> ```` block lists the
//! fields of that command's object (see "How to read a schema" there). The
//! command is run on the fixtures and its output checked both ways: every
//! key printed is documented, every documented field not marked `?` is
//! there, and each value has the documented type. The doc's own ```` ```json ````
//! examples are checked against the block before them the same way.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::kiln::{TestKiln, fixtures};

/// How to run each command that has JSON output, on the fixtures. A
/// section folded into docs/json.md later is checked as soon as it is there.
/// The fixtures, the eval fixture, a file that cannot be read and an id
/// two files share (so that `skipped` and `duplicates` are not empty).
fn json_kiln(eval_fixture: &str) -> TestKiln {
    let kiln = TestKiln::with_fixtures();
    kiln.write(
        &format!("{eval_fixture}.md"),
        &std::fs::read_to_string(fixtures().join(format!("eval/{eval_fixture}.md"))).unwrap(),
    );
    kiln.write("broken.md", "---\ntype: session\nsession_id: [\n");
    let copy = std::fs::read_to_string(kiln.sessions().join("2025-12-11-write-tests.md")).unwrap();
    kiln.write("old/2025-12-11-write-tests.md", &copy);
    kiln
}

fn run_command(command: &str) -> Value {
    let eval_fixture = "2025-12-14-triage-flaky-test";
    let kiln = json_kiln(eval_fixture);
    let sample = fixtures()
        .join("workflows/samples/simple-pipeline.md")
        .display()
        .to_string();
    let args: &[&str] = match command {
        "session list" => &["session", "list", "--format", "json"],
        "session stats" => &["session", "stats", "--format", "json"],
        "session show" => &[
            "session",
            "show",
            "2025-12-13-config-loader",
            "--full",
            "--format",
            "json",
        ],
        "session show phase" => &[
            "session",
            "show",
            "2025-12-13-config-loader#phase-1",
            "--full",
            "--format",
            "json",
        ],
        "session validate" => &["session", "validate", "--format", "json"],
        "session index" => &["session", "index", "--check", "--format", "json"],
        "session search" => &["session", "search", "id collision", "--format", "json"],
        "doctor" => &["doctor", "--format", "json"],
        "session start" => &["session", "start", "--title", "A title", "--format", "json"],
        "session import --list-sources" => {
            &["session", "import", "--list-sources", "--format", "json"]
        }
        "session codify" => &[
            "session",
            "codify",
            "2025-12-13-config-loader",
            "--format",
            "json",
        ],
        "session eval" => &["session", "eval", eval_fixture, "--format", "json"],
        "session resume" => &[
            "session",
            "resume",
            "2025-12-10-fix-flaky-test",
            "--format",
            "json",
        ],
        "workflow show" => &["workflow", "show", &sample, "--format", "json"],
        "workflow validate" => &["workflow", "validate", &sample, "--format", "json"],
        "session replay" => &[
            "session",
            "replay",
            eval_fixture,
            "--phase",
            "1",
            "--agent-cmd",
            "cat >/dev/null; echo The timeout in the upload client.",
            "--eval",
            "--format",
            "json",
        ],
        other => panic!("docs/json.md documents `{other}`: add how to run it to tests/it/json.rs"),
    };
    let out = kiln.run(args);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "`cru {}` printed no JSON ({e}), exit {}:\n{}\n{}",
            args.join(" "),
            out.code,
            out.stdout,
            out.stderr
        )
    })
}

/// One documented field.
#[derive(Debug)]
struct Field {
    types: Vec<String>,
    optional: bool,
    /// `object*` / `array*`: nothing below it is checked.
    free_form: bool,
}

/// A schema block: field paths (`a[].b`) to their fields.
type Schema = BTreeMap<String, Field>;

fn parse_schema(block: &str) -> Schema {
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (path, ty) = line
                .split_once(": ")
                .unwrap_or_else(|| panic!("schema line `{line}`: expected `path: type`"));
            let optional = ty.ends_with('?');
            let ty = ty.trim_end_matches('?');
            let free_form = ty.ends_with('*');
            let types = ty
                .trim_end_matches('*')
                .split('|')
                .map(str::to_owned)
                .collect();
            (
                path.to_owned(),
                Field {
                    types,
                    optional,
                    free_form,
                },
            )
        })
        .collect()
}

/// The doc's schema blocks by command, its examples (each after the block
/// it illustrates), and the commands marked as pending.
struct Doc {
    schemas: BTreeMap<String, Schema>,
    examples: Vec<(String, Value)>,
    pending: Vec<String>,
}

fn read_doc() -> Doc {
    let text = std::fs::read_to_string(fixtures().join("../docs/json.md")).unwrap();
    let mut doc = Doc {
        schemas: BTreeMap::new(),
        examples: Vec::new(),
        pending: Vec::new(),
    };
    let mut current: Option<String> = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.trim().strip_prefix("<!-- schema pending: ") {
            let command = rest.split(" (").next().unwrap().trim_end_matches(" -->");
            doc.pending.push(command.to_owned());
            continue;
        }
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let body = body.join("\n");
        if let Some(command) = info.strip_prefix("schema ") {
            doc.schemas.insert(command.to_owned(), parse_schema(&body));
            current = Some(command.to_owned());
        } else if info == "json" {
            let command = current.clone().expect("a json example before any schema");
            let value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("an example of `{command}` is not JSON: {e}"));
            doc.examples.push((command, value));
        }
    }
    doc
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What is wrong with `value` (at `path`) by `schema`, one line each.
fn check(schema: &Schema, path: &str, value: &Value, problems: &mut Vec<String>) {
    let Some(field) = schema.get(path) else {
        problems.push(format!("`{path}` is printed but not documented"));
        return;
    };
    let ty = type_of(value);
    // An integer is a number too.
    let fits = field
        .types
        .iter()
        .any(|t| t == ty || (t == "number" && ty == "integer"));
    if !fits {
        problems.push(format!(
            "`{path}` is {ty}, documented as {}",
            field.types.join("|")
        ));
    }
    if !field.free_form {
        descend(schema, path, value, problems);
    }
}

/// Checks what is inside `value`: an object's keys (and that none of its
/// required fields is missing), an array's elements. The elements of an
/// array of objects need no line of their own (`a[]: object`).
fn descend(schema: &Schema, path: &str, value: &Value, problems: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let prefix = if path.is_empty() {
                String::new()
            } else {
                format!("{path}.")
            };
            for (key, v) in map {
                check(schema, &format!("{prefix}{key}"), v, problems);
            }
            for (p, field) in schema {
                let Some(key) = p.strip_prefix(&prefix) else {
                    continue;
                };
                if !field.optional && !key.contains(['.', '[']) && !map.contains_key(key) {
                    problems.push(format!("`{p}` is documented but not printed"));
                }
            }
        }
        Value::Array(items) => {
            let element = format!("{path}[]");
            for item in items {
                if item.is_object() && !schema.contains_key(&element) {
                    descend(schema, &element, item, problems);
                } else {
                    check(schema, &element, item, problems);
                }
            }
        }
        _ => {}
    }
}

fn assert_fits(what: &str, schema: &Schema, value: &Value) {
    let mut problems = Vec::new();
    descend(schema, "", value, &mut problems);
    assert!(
        problems.is_empty(),
        "{what}, against docs/json.md:\n{}\n{value:#}",
        problems.join("\n")
    );
    assert_eq!(value["version"], 1, "{what}: `version` must be 1");
}

#[test]
fn every_command_prints_the_json_its_doc_section_describes() {
    let doc = read_doc();
    for command in [
        "session list",
        "session stats",
        "session show",
        "session validate",
        "session index",
        "session start",
        "session codify",
        "session eval",
        "session replay",
        "session resume",
        "workflow show",
        "workflow validate",
        "doctor",
    ] {
        assert!(
            doc.schemas.contains_key(command) || doc.pending.iter().any(|p| p == command),
            "docs/json.md has no schema block for `{command}`"
        );
    }
    for (command, schema) in &doc.schemas {
        assert_fits(
            &format!("`cru {command} --format json`"),
            schema,
            &run_command(command),
        );
    }
}

#[test]
fn the_docs_examples_fit_their_schemas() {
    let doc = read_doc();
    assert!(!doc.examples.is_empty());
    for (command, example) in &doc.examples {
        assert_fits(
            &format!("the example of `{command}`"),
            &doc.schemas[command],
            example,
        );
    }
}

#[test]
fn list_toon_holds_what_list_json_holds() {
    let kiln = TestKiln::with_fixtures();
    let json = kiln.run(&["session", "list", "--format", "json"]);
    let toon = kiln.run(&["session", "list", "--format", "toon"]);
    assert_eq!(toon.code, 0, "{}", toon.stderr);
    let decoded: Value = toon_format::decode_default(&toon.stdout).unwrap();
    let expected: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(decoded, expected);
    // Nothing of the index's own bookkeeping.
    for internal in ["mtime_ns", "ino", "ctime_ns", "live"] {
        assert!(!toon.stdout.contains(internal), "{}", toon.stdout);
    }
}

#[test]
fn a_check_catches_an_undocumented_key_and_a_missing_one() {
    let schema = parse_schema("version: integer\nsessions: array\nsessions[].id: string");
    let mut problems = Vec::new();
    let printed = serde_json::json!({"version": 1, "sessions": [{"id": "a", "ino": 5}, {}]});
    descend(&schema, "", &printed, &mut problems);
    assert_eq!(
        problems,
        [
            "`sessions[].ino` is printed but not documented",
            "`sessions[].id` is documented but not printed"
        ]
    );
}
