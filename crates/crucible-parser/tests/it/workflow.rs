//! Workflow markup on real documents: the three samples from the original
//! design (their steps, edges and execution rows), and our own fixtures for
//! each graph shape and error class.

use std::path::{Path, PathBuf};

use crucible_core::workflow::{EdgeKind, Severity, StepMarker};
use crucible_parser::workflow::{CheckedWorkflow, check_workflow, parse_workflow, write_workflow};

fn workflow_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/workflows")
}

fn check(rel: &str) -> CheckedWorkflow {
    check_workflow(&std::fs::read(workflow_dir().join(rel)).unwrap())
}

/// `from → to (name)` for every edge, by step name.
fn edges(c: &CheckedWorkflow) -> Vec<String> {
    c.graph
        .edges
        .iter()
        .map(|e| {
            let name = match &e.kind {
                EdgeKind::Data { name } => name.clone(),
                EdgeKind::Condition { condition } => {
                    format!("if {}", condition.as_deref().unwrap_or("otherwise"))
                }
            };
            format!(
                "{} → {} ({name})",
                c.workflow.steps[e.from].name, c.workflow.steps[e.to].name
            )
        })
        .collect()
}

fn problems(c: &CheckedWorkflow) -> Vec<String> {
    c.problems.iter().map(ToString::to_string).collect()
}

fn order(c: &CheckedWorkflow) -> Vec<&str> {
    c.graph
        .order
        .as_ref()
        .expect("acyclic")
        .iter()
        .map(|&i| c.workflow.steps[i].name.as_str())
        .collect()
}

#[test]
fn simple_pipeline_sample() {
    let c = check("samples/simple-pipeline.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    let w = &c.workflow;
    assert_eq!(w.title.as_deref(), Some("Simple Data Pipeline"));
    let names: Vec<&str> = w.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Load Data",
            "Clean Data",
            "Transform Data",
            "Export Results"
        ]
    );
    assert_eq!(w.steps[0].agent.as_deref(), Some("data-loader"));
    assert_eq!(w.steps[0].channel.as_deref(), Some("pipeline"));
    assert_eq!(w.steps[3].marker, StepMarker::Critical);
    assert_eq!(
        w.steps[0].outputs()[0].to_string(),
        "loaded_data::DataFrame"
    );
    assert_eq!(
        edges(&c),
        [
            "Load Data → Clean Data (loaded_data)",
            "Clean Data → Transform Data (cleaned_data)",
            "Transform Data → Export Results (transformed_data)",
        ]
    );
    let rows: Vec<usize> = w.steps.iter().map(|s| s.rows().count()).collect();
    assert_eq!(rows, [3, 2, 2, 2]);
    let failed = w.steps[0].rows().nth(2).unwrap();
    assert_eq!(failed.get("status"), Some("failed"));
    assert_eq!(failed.number("tokens_used"), Some(380));
    // `## Summary` has no flow lines: prose, not a step.
    assert_eq!(w.sections.len(), 1);
    assert_eq!(w.sections[0].title, "Summary");
    assert_eq!(c.graph.inputs, ["raw_data.csv"]);
}

#[test]
fn ecommerce_sample_has_parallel_branches_and_a_merge() {
    let c = check("samples/ecommerce-order.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    assert_eq!(
        edges(&c),
        [
            "Receive Order → Check Inventory (validated_order)",
            "Receive Order → Process Payment (validated_order)",
            "Check Inventory → Reserve Inventory (inventory_check)",
            "Process Payment → Reserve Inventory (payment_result)",
            "Reserve Inventory → Create Shipment (reservation)",
            "Create Shipment → Notify Customer (tracking_number)",
            "Process Payment → Notify Customer (payment_result)",
        ]
    );
    let w = &c.workflow;
    assert_eq!(w.steps[6].name, "Handle Failed Orders");
    assert_eq!(w.steps[6].marker, StepMarker::Optional);
    assert_eq!(w.steps[2].marker, StepMarker::Critical);
    // Custom fields are kept and can be asked for.
    let first = w.steps[0].rows().next().unwrap();
    assert_eq!(first.get("customer_id"), Some("cust_789"));
    assert_eq!(
        w.steps[2].rows().next().unwrap().get("amount_usd"),
        Some("89.99")
    );
    assert_eq!(w.steps.iter().map(|s| s.rows().count()).sum::<usize>(), 23);
    assert_eq!(c.graph.inputs, ["order_request", "failed_orders"]);
    assert_eq!(order(&c)[0], "Receive Order");
}

#[test]
fn software_development_sample_is_hierarchical() {
    let c = check("samples/software-development.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    let w = &c.workflow;
    // Six phase groups with 21 child steps; the retrospective is prose.
    let groups: Vec<&str> = w
        .steps
        .iter()
        .filter(|s| s.level == 2)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        groups,
        [
            "Phase 1: Planning",
            "Phase 2: Design",
            "Phase 3: Implementation",
            "Phase 4: Testing",
            "Phase 5: Code Review",
            "Phase 6: Deployment"
        ]
    );
    assert_eq!(w.steps.len(), 27);
    let gather = &w.steps[1];
    assert_eq!(gather.name, "Gather Requirements");
    assert_eq!(gather.parent, Some(0));
    assert_eq!(
        w.sections
            .iter()
            .map(|s| s.title.as_str())
            .collect::<Vec<_>>(),
        ["Workflow Retrospective", "Summary Statistics"]
    );
    let e = edges(&c);
    assert_eq!(e.len(), 27, "{e:#?}");
    for expected in [
        "Architecture Design → Database Schema (tech_decisions)",
        "Fix Test Failures → Re-run Integration Tests (fixed_code)",
        "Build Release → Deploy Production (build_artifacts)",
        "Smoke Tests → Deploy Production (smoke_test_results)",
    ] {
        assert!(e.contains(&expected.to_owned()), "{expected}: {e:#?}");
    }
    // Execution rows match their steps loosely (`RerunIntegrationTests`).
    let rerun = w
        .steps
        .iter()
        .find(|s| s.name == "Re-run Integration Tests")
        .unwrap();
    assert_eq!(
        rerun.rows().next().unwrap().get("phase"),
        Some("RerunIntegrationTests")
    );
    let backend = w
        .steps
        .iter()
        .find(|s| s.name == "Backend Development")
        .unwrap();
    assert_eq!(backend.rows().count(), 4);
    assert_eq!(
        backend.rows().last().unwrap().get("feature"),
        Some("notifications")
    );
    let o = order(&c);
    let at = |n: &str| o.iter().position(|x| *x == n).unwrap();
    assert!(at("Gather Requirements") < at("Create Specification"));
    assert!(at("Smoke Tests") < at("Deploy Production"));
}

#[test]
fn linear_fixture() {
    let c = check("linear.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    assert_eq!(order(&c), ["Bump Version", "Run Tests", "Publish"]);
    let fm = c.workflow.frontmatter.as_ref().unwrap();
    assert_eq!(fm.get("type").and_then(|v| v.as_str()), Some("workflow"));
}

#[test]
fn parallel_fixture_merges() {
    let c = check("parallel-merge.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    assert_eq!(
        edges(&c),
        [
            "Fetch Diff → Lint (diff)",
            "Fetch Diff → Test (diff)",
            "Lint → Summarize (lint_report)",
            "Test → Summarize (test_report)",
        ]
    );
    assert_eq!(order(&c), ["Fetch Diff", "Lint", "Test", "Summarize"]);
}

#[test]
fn conditional_fixture() {
    let c = check("conditional.md");
    assert_eq!(problems(&c), Vec::<String>::new());
    assert_eq!(
        edges(&c),
        [
            "Read Log → Retry (failure)",
            "Read Log → Fix Code (failure)",
            "Read Log → Retry (if the failure is a flaky test)",
            "Read Log → Fix Code (if otherwise)",
        ]
    );
}

#[test]
fn cycle_fixture_names_the_path_and_the_unknown_step() {
    let c = check("cycle.md");
    assert_eq!(
        problems(&c),
        [
            "3:1: error: cycle: Draft → Review → Revise → Draft",
            "11:43: error: no step is named `Publish`",
        ]
    );
    assert!(c.graph.order.is_none());
    assert!(c.has_errors());
}

#[test]
fn malformed_toon_fixture_reports_each_problem_and_reads_the_rest() {
    let c = check("malformed-toon.md");
    assert_eq!(
        problems(&c),
        [
            "7:12: error: expected `]` after the row count",
            "17:1: error: execution row has an empty `status`",
            "18:1: error: status `exploded` is not one of success, failed, skipped, timeout",
            "18:1: warning: `duration_ms` is `fast`, not a whole number",
            "18:1: warning: execution row's phase `Cleen` matches no step",
            "22:1: error: `clean_rows` is `List` here but `Table` on line 12",
        ]
    );
    // Everything after the bad block was still read.
    assert_eq!(c.workflow.steps.len(), 3);
    assert_eq!(c.workflow.steps[1].rows().count(), 3);
    assert_eq!(c.graph.edges.len(), 2);
}

#[test]
fn writing_is_stable_and_keeps_what_was_read() {
    for entry in std::fs::read_dir(workflow_dir().join("samples")).unwrap() {
        let path = entry.unwrap().path();
        let first = parse_workflow(&std::fs::read(&path).unwrap()).workflow;
        let written = write_workflow(&first);
        let again = parse_workflow(written.as_bytes());
        assert!(
            again.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            again.problems
        );
        assert_eq!(
            write_workflow(&again.workflow),
            written,
            "{}",
            path.display()
        );
        let second = again.workflow;
        assert_eq!(first.steps.len(), second.steps.len());
        for (a, b) in first.steps.iter().zip(&second.steps) {
            assert_eq!(
                (&a.name, &a.agent, &a.channel, a.marker),
                (&b.name, &b.agent, &b.channel, b.marker)
            );
            assert_eq!(a.inputs(), b.inputs());
            assert_eq!(a.outputs(), b.outputs());
            let rows = |s: &crucible_core::workflow::Step| -> Vec<Vec<(String, String)>> {
                s.rows().map(|r| r.values.clone()).collect()
            };
            assert_eq!(rows(a), rows(b));
            assert_eq!(a.prose, b.prose);
        }
        assert_eq!(first.sections.len(), second.sections.len());
    }
}

#[test]
fn toon_format_reads_our_blocks_to_the_same_values() {
    for entry in std::fs::read_dir(workflow_dir().join("samples")).unwrap() {
        let path = entry.unwrap().path();
        let w = parse_workflow(&std::fs::read(&path).unwrap()).workflow;
        let text = write_workflow(&w);
        let mut blocks = text.split("```session-toon\n").skip(1);
        for s in &w.steps {
            for b in &s.executions {
                let block = blocks.next().unwrap();
                let toon = &block[..block.find("```").unwrap()];
                let v: serde_json::Value = toon_format::decode_default(toon)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{toon}", path.display()));
                let rows = v["execution"].as_array().unwrap();
                assert_eq!(rows.len(), b.rows.len());
                for (r, ours) in rows.iter().zip(&b.rows) {
                    for (k, val) in &ours.values {
                        match &r[k] {
                            serde_json::Value::String(s) => assert_eq!(s, val),
                            serde_json::Value::Null => assert_eq!(val, ""),
                            serde_json::Value::Number(n) => {
                                assert_eq!(n.as_f64(), val.parse::<f64>().ok(), "{k}");
                            }
                            other => assert_eq!(&other.to_string(), val, "{k}"),
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn severity_of_graph_problems() {
    let c = check("malformed-toon.md");
    assert_eq!(
        c.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .count(),
        2
    );
}

mod roundtrip {
    use crucible_core::workflow::{
        Condition, ExecutionBlock, ExecutionRow, Flow, Port, Step, StepMarker, Workflow,
    };
    use crucible_parser::workflow::{parse_workflow, write_workflow};
    use proptest::prelude::*;

    fn ident() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9_]{0,7}"
    }

    fn port() -> impl Strategy<Value = Port> {
        (ident(), proptest::option::of("[A-Z][a-zA-Z]{0,5}(\\[\\])?"))
            .prop_map(|(n, t)| Port::new(n, t))
    }

    fn flow() -> impl Strategy<Value = Flow> {
        (
            proptest::collection::vec(port(), 1..3),
            proptest::collection::vec(port(), 1..3),
        )
            .prop_map(|(inputs, outputs)| Flow {
                inputs,
                outputs,
                line: 0,
            })
    }

    fn cell() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_]{1,8}",
            "[0-9]{1,5}",
            "[ -~]{0,12}",
            Just("a, b".to_owned()),
            Just("say \"hi\"".to_owned()),
            Just("null".to_owned()),
            Just("two\nlines".to_owned()),
        ]
    }

    fn block() -> impl Strategy<Value = ExecutionBlock> {
        proptest::collection::vec((cell(), cell()), 0..4).prop_map(|rows| ExecutionBlock {
            line: 0,
            fields: vec!["phase".into(), "status".into(), "note".into()],
            rows: rows
                .into_iter()
                .map(|(status, note)| ExecutionRow {
                    line: 0,
                    values: vec![
                        ("phase".into(), "Step".into()),
                        ("status".into(), status.trim().to_owned()),
                        ("note".into(), note),
                    ],
                })
                .collect(),
        })
    }

    prop_compose! {
        fn step()(
            name in "[A-Z][a-z]{1,8}( [A-Z][a-z]{1,8}){0,2}",
            agent in ident(),
            channel in proptest::option::of(ident()),
            marker in prop_oneof![Just(StepMarker::None), Just(StepMarker::Critical), Just(StepMarker::Optional)],
            deeper in any::<bool>(),
            prose in proptest::option::of("[A-Z][a-z ,.]{0,40}"),
            flows in proptest::collection::vec(flow(), 0..3),
            otherwise in proptest::option::of("[A-Z][a-z]{2,8}"),
            executions in proptest::collection::vec(block(), 0..2),
        ) -> Step {
            Step {
                name,
                agent: Some(agent),
                channel,
                marker,
                level: if deeper { 3 } else { 2 },
                parent: None,
                line: 0,
                prose: prose.map(|p| p.trim().to_owned()).unwrap_or_default(),
                flows,
                conditions: otherwise
                    .into_iter()
                    .map(|target| Condition { condition: None, target, line: 0, column: 0 })
                    .collect(),
                executions,
            }
        }
    }

    /// Lines, columns and parents are where the text puts them: compare the rest.
    fn normalized(mut w: Workflow) -> Workflow {
        for s in &mut w.steps {
            s.line = 0;
            s.parent = None;
            for f in &mut s.flows {
                f.line = 0;
            }
            for c in &mut s.conditions {
                c.line = 0;
                c.column = 0;
            }
            for b in &mut s.executions {
                b.line = 0;
                for r in &mut b.rows {
                    r.line = 0;
                }
            }
        }
        w
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn parse_of_write_gives_the_workflow_back(
            title in proptest::option::of("[A-Z][a-z]{1,10}( [a-z]{1,8}){0,3}"),
            mut steps in proptest::collection::vec(step(), 1..6),
        ) {
            steps[0].level = 2;
            let w = Workflow { title, steps, ..Workflow::default() };
            let text = write_workflow(&w);
            let read = parse_workflow(text.as_bytes());
            prop_assert!(read.problems.is_empty(), "{:?}\n{}", read.problems, text);
            prop_assert_eq!(write_workflow(&read.workflow), text.as_str());
            prop_assert_eq!(normalized(read.workflow), normalized(w), "{}", text);
        }
    }
}

/// The samples under `fixtures/workflows/samples` are copies of
/// `shared/samples/workflows`; where that folder is beside the repository,
/// the copies must not have drifted from it.
#[test]
fn the_sample_copies_match_the_shared_originals() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples/workflows");
    let Ok(entries) = std::fs::read_dir(&shared) else {
        return;
    };
    for e in entries {
        let path = e.unwrap().path();
        let copy = workflow_dir()
            .join("samples")
            .join(path.file_name().unwrap());
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&copy).unwrap_or_default(),
            "{} differs from its copy {}",
            path.display(),
            copy.display()
        );
    }
}

mod garbage {
    use crucible_parser::workflow::check_workflow;
    use proptest::prelude::*;

    const FRAGMENTS: &[&str] = &[
        "## Step @a #b !\n",
        "### Child ?\n",
        "# T\n",
        "a → b\n",
        "a -> b -> c\n",
        "x::T, y → z::U[]\n",
        "x → creates:\n",
        "- out::T\n",
        "If c → proceed to Step\n",
        "Otherwise → Nowhere\n",
        "```session-toon\n",
        "```\n",
        "execution[2]{phase,status}:\n",
        " Step,success\n",
        "  \"a,b\",failed\n",
        "execution[2{phase}:\n",
        "---\n",
        "type: workflow\n",
        "\n",
        "→\n",
        "## \n",
        "##\n",
        "-\n",
        "```\n```\n",
        "\"\n",
        "日本 → über\n",
        "\t→\t\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn fragments_never_panic(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..40)) {
            let text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
            let c = check_workflow(text.as_bytes());
            // Every problem points into the document.
            let lines = text.lines().count().max(1) + 1;
            for p in &c.problems {
                prop_assert!(p.line <= lines, "{p} in\n{text}");
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = check_workflow(&bytes);
        }
    }
}
