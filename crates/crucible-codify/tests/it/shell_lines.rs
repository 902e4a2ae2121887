//! Shell command lines from the real transcripts under `fixtures/real/`
//! (Claude Code's `Bash`, Codex's `shell` arrays), each with the files codify
//! says it reads and writes. They are copied as the agents wrote them, so a
//! change in quoting, escaping or operator handling shows here first.

use crucible_codify::dataflow::{FileAccess, accesses, accesses_of_arguments};

fn show(found: &[FileAccess]) -> Vec<String> {
    found.iter().map(ToString::to_string).collect()
}

fn bash(line: &str) -> Vec<String> {
    show(&accesses("Bash", line))
}

#[test]
fn claude_code_bash_lines() {
    let cases: &[(&str, &[&str])] = &[
        // `\|` inside double quotes: the pattern keeps it, `mix.exs` is
        // still the file grep reads.
        (
            r#"grep -n "ignore_warnings\|dialyzer" mix.exs"#,
            &["r mix.exs"],
        ),
        (r#"grep -n "a\|b" src/"#, &["r src/"]),
        (
            r#"grep -r "OpenTelemetry\|:opentelemetry" deps/opentelemetry_phoenix/lib/ 2>/dev/null | head -5"#,
            &["r deps/opentelemetry_phoenix/lib/"],
        ),
        (
            r#"grep -A5 "def current_span_ctx()" deps/opentelemetry_api/lib/open_telemetry/tracer.ex"#,
            &["r deps/opentelemetry_api/lib/open_telemetry/tracer.ex"],
        ),
        ("grep -A 2 opentelemetry_bandit mix.lock", &["r mix.lock"]),
        (
            r#"grep -E '^\s+\{|^  "' /home/USER/projects/spotter-worktrees/spotter-0rt/mix.lock | head -100"#,
            &["r /home/USER/projects/spotter-worktrees/spotter-0rt/mix.lock"],
        ),
        // A glob is no file name.
        (
            r#"grep "span_ctx" deps/opentelemetry_api/include/*.hrl 2>/dev/null"#,
            &[],
        ),
        (r#"git ls-files | grep -E "\.env$|\.env\."#, &[]),
        (
            r#"cat apps/app/.env 2>/dev/null || echo "File not readable or empty""#,
            &["r apps/app/.env"],
        ),
        (
            "head -20 /home/USER/projects/spotter-worktrees/spotter-0rt/priv/static/assets/xterm.css",
            &["r /home/USER/projects/spotter-worktrees/spotter-0rt/priv/static/assets/xterm.css"],
        ),
        (
            "rm /home/wei/repo/claude-code/TODO.md",
            &["w /home/wei/repo/claude-code/TODO.md"],
        ),
        ("python test_no_church.py", &["r test_no_church.py"]),
        // `bash -n FILE` checks a script: it reads it.
        (
            r#"bash -n spotter-plugin/scripts/notify-session.sh && echo "✓ notify-session.sh OK""#,
            &["r spotter-plugin/scripts/notify-session.sh"],
        ),
        // Line continuations between the commands.
        (
            "source spotter-plugin/scripts/lib/trace_context.sh && \\\nspotter_rand_hex 16 | grep -E '^[0-9a-f]{32}$' && echo \"✓ rand_hex works\" && \\\nspotter_generate_traceparent | grep -E '^00-[0-9a-f]{32}-[0-9a-f]{16}-01$' && echo \"✓ generate_traceparent works\"",
            &["r spotter-plugin/scripts/lib/trace_context.sh"],
        ),
        // A script given to `bash -c`, over several lines.
        (
            "bash -c '\nsource spotter-plugin/scripts/lib/trace_context.sh\ntraceparent=$(spotter_generate_traceparent)\nif [[ $traceparent =~ ^00-[0-9a-f]{32}-[0-9a-f]{16}-01$ ]]; then\n  echo \"✓ works: $traceparent\"\nfi\n'",
            &["r spotter-plugin/scripts/lib/trace_context.sh"],
        ),
        // `\(` and `\)` are find's words, not a subshell.
        (
            r#"find apps/app/src -type f \( -name "*.ts" -o -name "*.tsx" \) | head -30"#,
            &[],
        ),
        (
            r#"tree types/ 2>/dev/null || find types/ -type f -name "*.ts" | sed 's|types/||' | sort"#,
            &[],
        ),
        // A here-document: the body is the file's text, not commands.
        (
            "cat > types/filters.ts << 'EOF'\n/**\n * Filter options for viewing todos\n */\nexport type TodoFilter = 'all' | 'active' | 'completed';\nEOF",
            &["w types/filters.ts"],
        ),
        // A here-document inside a quoted command substitution is one word
        // of `git commit`: only `git add` names files.
        (
            "git add .beads/ && git commit -m \"$(cat <<'EOF'\nfeat: transcript + terminal annotations (spotter-gqc)\n\nAdd source-aware annotations > file.txt\nEOF\n)\"",
            &["r .beads/"],
        ),
        (
            "git add config/config.exs lib/spotter_web/controllers/otel_trace_helpers.ex && git commit -m \"feat: enable opentelemetry_ash\"",
            &[
                "r config/config.exs",
                "r lib/spotter_web/controllers/otel_trace_helpers.ex",
            ],
        ),
        (
            r#"echo -e "\\n\\nn" | npx create-next-app@latest todo-app --typescript --tailwind --eslint --app --src-dir"#,
            &[],
        ),
        // A git range is no file; a dotfile is.
        (
            r#"git log --oneline master..HEAD 2>/dev/null || echo "No divergence from master""#,
            &[],
        ),
        ("cat .gitignore", &["r .gitignore"]),
        (
            "mix format --check-formatted 2>&1; echo \"---\"; mix credo --strict 2>&1 | tail -5",
            &[],
        ),
    ];
    for (line, want) in cases {
        assert_eq!(bash(line), *want, "{line}");
    }
}

#[test]
fn codex_shell_arrays() {
    let cases: &[(serde_json::Value, &[&str])] = &[
        (
            serde_json::json!({"command": ["bash", "-lc", "cat packages/services/tsconfig.json"]}),
            &["r packages/services/tsconfig.json"],
        ),
        (
            serde_json::json!({"command": ["bash", "-lc", "git add 'apps/spectora-labs/src/app/(protected)/dashboard/page.tsx' 'apps/spectora-labs/src/app/(protected)/settings/teams/components/TeamSheet.tsx'"]}),
            &[
                "r apps/spectora-labs/src/app/(protected)/dashboard/page.tsx",
                "r apps/spectora-labs/src/app/(protected)/settings/teams/components/TeamSheet.tsx",
            ],
        ),
        (
            serde_json::json!({"command": ["bash", "-lc", "git commit -m \"feat: optimize team sheet data flow\""]}),
            &[],
        ),
        (
            serde_json::json!({"command": ["bash", "-lc", "applypatch << 'PATCH'\n*** Begin Patch\n*** Update File: .python-version\n@@\n-3.10\n+3.10\n*** End Patch\nPATCH"]}),
            &["r .python-version", "w .python-version"],
        ),
        (
            serde_json::json!({"command": ["bash", "-lc", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: apps/spectora-labs/src/app/(protected)/settings/teams/hooks/useTeamWithStats.ts\n+import { useQuery } from \"@tanstack/react-query\";\n*** End Patch\nPATCH\n"]}),
            &["w apps/spectora-labs/src/app/(protected)/settings/teams/hooks/useTeamWithStats.ts"],
        ),
    ];
    for (arguments, want) in cases {
        assert_eq!(
            show(&accesses_of_arguments("shell", arguments)),
            *want,
            "{arguments}"
        );
    }
}
