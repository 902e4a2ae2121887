//! Each way people write frontmatter, through every command that reads a
//! session, on the real binary: all of them see the session, or all refuse
//! it with the same error. (Issue 18: `type : session` was listed by `list`
//! and refused by `show`, because two readers of the format disagreed.)

use crate::kiln::{TestKiln, listed_sessions};

const BODY: &str = "\n## Reproduce @orchestrator@1.0 #dev\n\nRan the test.\n";

/// The frontmatter lines of a paused session `id`, in the plain form.
fn plain(id: &str) -> String {
    format!(
        "---\ntype: session\nsession_id: {id}\ntitle: Forms\nstarted: 2025-12-05T14:32:15Z\n\
         status: paused\nparticipants:\n  - orchestrator@1.0\nresume_point: phase-1\n---\n"
    )
}

/// Every form: its name (the session's id) and the file's text.
fn forms() -> Vec<(&'static str, String)> {
    let with = |id: &'static str, edit: &dyn Fn(String) -> String| (id, edit(plain(id) + BODY));
    vec![
        with("plain", &|t| t),
        with("space-before-colon", &|t| {
            t.replace("type: session", "type : session")
        }),
        with("spaces-around-colons", &|t| {
            t.replace("session_id: ", "session_id :  ")
                .replace("status: ", "status  : ")
        }),
        with("quoted-keys", &|t| {
            t.replace("type:", "\"type\":")
                .replace("session_id:", "'session_id':")
        }),
        with("quoted-values", &|t| {
            t.replace("type: session", "type: \"session\"")
                .replace("session_id: quoted-values", "session_id: 'quoted-values'")
        }),
        (
            "flow-mapping",
            "---\n{type: session, session_id: flow-mapping, title: Forms, \
             started: 2025-12-05T14:32:15Z, status: paused, \
             participants: [orchestrator@1.0], resume_point: phase-1}\n---\n"
                .to_owned()
                + BODY,
        ),
        with("comments", &|t| {
            t.replace(
                "---\ntype: session\n",
                "---\n# written by hand\ntype: session # the kind\n",
            )
            .replace("status: paused", "status: paused # for now")
        }),
        with("anchors-and-tags", &|t| {
            t.replace("type: session", "type: !!str session")
                .replace("title: Forms", "title: &t Forms\nalias: *t")
        }),
        with("crlf", &|t| t.replace('\n', "\r\n")),
        with("bom", &|t| format!("\u{feff}{t}")),
        with("dot-end-marker", &|t| {
            t.replacen(
                "resume_point: phase-1\n---\n",
                "resume_point: phase-1\n...\n",
                1,
            )
        }),
    ]
}

/// Every command that reads the session sees it, and answers about it.
fn every_command_sees(kiln: &TestKiln, id: &str) {
    let listed = |kiln: &TestKiln| {
        let out = kiln.run(&["session", "list", "--format", "json"]);
        assert_eq!(out.code, 0, "{id}: list: {}", out.stderr);
        listed_sessions(&out.stdout)
            .iter()
            .map(|s| s["id"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(listed(kiln), [id], "{id}: list");

    let show = kiln.run(&["session", "show", id]);
    assert_eq!(show.code, 0, "{id}: show: {}", show.stderr);
    assert!(show.stdout.contains(id), "{id}: show: {}", show.stdout);

    let stats = kiln.run(&["session", "stats", "--format", "json"]);
    assert_eq!(stats.code, 0, "{id}: stats: {}", stats.stderr);
    let stats: serde_json::Value = serde_json::from_str(&stats.stdout).unwrap();
    assert_eq!(stats["groups"][0]["sessions"], 1, "{id}: stats: {stats}");

    let validate = kiln.run(&["session", "validate"]);
    assert_eq!(validate.code, 0, "{id}: validate: {}", validate.stdout);
    assert!(
        validate.stderr.contains("1 file checked: 1 valid"),
        "{id}: validate: {}",
        validate.stderr
    );

    let export = kiln.run(&["session", "export", id, "--to", "codeloops"]);
    assert_eq!(export.code, 0, "{id}: export: {}", export.stderr);
    assert!(!export.stdout.is_empty(), "{id}: export wrote nothing");

    let resume = kiln.run(&["session", "resume", id, "--format", "json"]);
    assert_eq!(resume.code, 0, "{id}: resume: {}", resume.stderr);
    let resume: serde_json::Value = serde_json::from_str(&resume.stdout).unwrap();
    assert_eq!(resume["session"]["id"], id, "{id}: resume");
    assert_eq!(resume["resume_at"], "phase-1", "{id}: resume");

    let rebuild = kiln.run(&["session", "index", "--rebuild"]);
    assert_eq!(rebuild.code, 0, "{id}: index --rebuild: {}", rebuild.stderr);
    assert_eq!(listed(kiln), [id], "{id}: list after index --rebuild");
}

#[test]
fn every_frontmatter_form_reads_the_same_through_every_command() {
    for (id, text) in forms() {
        let kiln = TestKiln::empty();
        kiln.write(&format!("{id}.md"), &text);
        every_command_sees(&kiln, id);
    }
}

#[test]
fn a_form_that_is_not_a_session_is_refused_alike_by_every_command() {
    for (id, text) in [
        (
            "spaced-workflow",
            plain("spaced-workflow").replace("type: session", "type : workflow"),
        ),
        (
            "quoted-workflow",
            plain("quoted-workflow").replace("type: session", "\"type\": workflow"),
        ),
    ] {
        let kiln = TestKiln::empty();
        kiln.write(&format!("{id}.md"), &(text + BODY));
        let list = kiln.run(&["session", "list", "--format", "json"]);
        assert!(
            listed_sessions(&list.stdout).is_empty(),
            "{id}: {}",
            list.stdout
        );
        let no_match = format!("no session matches `{id}`");
        for args in [
            &["session", "show", id][..],
            &["session", "export", id, "--to", "codeloops"],
            &["session", "resume", id, "--format", "json"],
        ] {
            let out = kiln.run(args);
            assert_ne!(out.code, 0, "{id}: {args:?}");
            assert!(
                out.stderr.contains(&no_match),
                "{id}: {args:?}: {}",
                out.stderr
            );
        }
        let validate = kiln.run(&[
            "session",
            "validate",
            &format!(".crucible/sessions/{id}.md"),
        ]);
        assert_eq!(validate.code, 1, "{id}: validate");
        assert!(
            validate.stdout.contains("expected `session`"),
            "{id}: validate: {}",
            validate.stdout
        );
    }
}
