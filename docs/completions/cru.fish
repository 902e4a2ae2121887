# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_cru_global_optspecs
    string join \n v/verbose dir= strict h/help V/version
end

function __fish_cru_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_cru_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_cru_using_subcommand
    set -l cmd (__fish_cru_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c cru -n "__fish_cru_needs_command" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_needs_command" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_needs_command" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_needs_command" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_needs_command" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_needs_command" -f -a "session" -d 'Work with sessions: record, resume, codify, list, stats, show, validate'
complete -c cru -n "__fish_cru_needs_command" -f -a "workflow" -d 'Work with workflows: validate, show, refine, edit'
complete -c cru -n "__fish_cru_needs_command" -f -a "usage" -d 'Tokens and cost by day, week, month, session or billing block, as ccusage shows them'
complete -c cru -n "__fish_cru_needs_command" -f -a "pricing" -d 'The price table cost is computed with: show it, or load a newer one'
complete -c cru -n "__fish_cru_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c cru -n "__fish_cru_needs_command" -f -a "doctor" -d 'What cru sees on this machine: the sessions directory and its indexes (exit 1 on a problem)'
complete -c cru -n "__fish_cru_needs_command" -f -a "site" -d 'Write the sessions directory as a static site: a table of sessions that sorts and filters in the browser, a page per session; no server'
complete -c cru -n "__fish_cru_needs_command" -f -a "hook" -d 'What agents run at each event to record into cru (installed by `cru setup`)'
complete -c cru -n "__fish_cru_needs_command" -f -a "setup" -d 'Make an agent record into cru by itself: install cru\'s hooks in its settings'
complete -c cru -n "__fish_cru_needs_command" -f -a "watch" -d 'Import agents\' transcripts as they are written, and keep the indexes fresh'
complete -c cru -n "__fish_cru_needs_command" -f -a "mcp" -d 'Serve cru to agents over the Model Context Protocol (stdio): search, list, show, resume and record sessions as tools'
complete -c cru -n "__fish_cru_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "start" -d 'Start recording a new session; prints its id'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "log" -d 'Log an event to a live session: phase, tool, decision, error, user, subagent, tasks, tokens'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "pause" -d 'Pause a session at its current phase (or --at one); or --idle ones'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "resume" -d 'Resume a paused session: show its context, or continue it with an agent (--agent-cmd or [agent] in config). No id: list resumable ones'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "pick" -d 'Choose a session in a full-screen picker (type to filter) and print its id; a plain list when stdin or stdout is not a terminal'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "codify" -d 'Turn sessions into a reusable workflow (workflow markup); several sessions of one task merge. No id: the newest session'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "learn" -d 'Learning cases: puzzles from errors, corrections from user interventions; as SFT/DPO/ShareGPT JSONL, markdown or puzzles'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "import" -d 'Import other agents\' sessions: Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode, ConnectOnion YAML, codeloops JSONL, .agent/sessions folders, OpenAI messages'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "export" -d 'Write a session out for another tool: a Claude Code transcript, a Codex rollout, ConnectOnion YAML, codeloops JSONL, an .agent/sessions folder, or OpenAI messages; or send sessions to an OpenTelemetry engine as traces (`--to otlp`)'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "eval" -d 'Evaluate phases against their [!expect] callouts: deterministic checks, an LLM judge (--judge), or new runs (--replay); exit 1 on a failure'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "replay" -d 'Run one phase again with its context, record the run as a linked session, and show what changed'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "end" -d 'End a session as completed or failed'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "list" -d 'List sessions, newest first, from the index'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "stats" -d 'Totals by agent, channel, status, model, day or phase'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "search" -d 'Full-text search over every session: words, "phrases", -word, OR, pars*, field:value; hits as ID#phase-N and file:line'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "index" -d 'Rebuild the index (picks up edits made outside cru), or --check it'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from start log pause resume pick codify learn import export eval replay end list stats search index show validate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l title -d 'What the session is about; also gives the id its slug' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l channel -d 'The session\'s channel (e.g. dev, ops)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l agent -d 'The agent doing the work, as name or name@version' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l model -d 'The primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l prompt -d 'The prompt the session starts from, kept exactly (a `prompt` block)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l prompt-file -d 'Read the prompt from FILE (`-`: standard input)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l cwd -d 'The directory the session works in, recorded as `cwd` with its project (the git root above it) [default: the current directory]. For hooks that run elsewhere than the agent they record' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l format -d 'How to print the new session: its id, or JSON with id and path' -r -f -a "text\t'The id alone'
json\t'`{"version": 1, "id": ..., "path": ...}` on one line (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -l session -d 'The session to log to (an id, a unique prefix, or a path)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -l reopen -d 'Log to a session that already ended, making it active again'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "phase" -d 'Start a phase: `## NAME @agent #channel`'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "tool" -d 'A tool call: `- `TOOL ARGS` → RESULT`'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "decision" -d 'A decision and why (`> [!decision]`). `-` reads stdin'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "error" -d 'An error (`> [!error]`), with how it was resolved when known. `-` reads stdin'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "user" -d 'A user\'s intervention: their exact words, quoted (`> [!user]`). `-` reads stdin'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "reply" -d 'An agent\'s reply (`> [!reply] @agent`), kept whole, markdown and all. `-` reads stdin'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "subagent" -d 'A subagent. link and embed create its own session and print its id; log to it with --session, end it with `cru session end`'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "tasks" -d 'Replace the task list with a JSON array of {id, content, status, priority} (or {"todos": [...]}) from FILE or stdin'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "tokens" -d 'Tokens this session used: one number (added to tokens_used and the phase\'s tokens, kind unknown), or one model request\'s tokens by kind (--input, --output, ...: a usage record of the current phase)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from log" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -l at -d 'The phase to resume at (phase-N or N; default: the current phase)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -l idle -d 'Instead: pause every active session idle for longer than [session] idle_timeout, and print their ids'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pause" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l query -d 'Resume the paused session that best matches this search query (the query language of `cru session search`; status is paused, else active): the one chosen and the others that match are named on stderr. None: exit 1' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l format -d 'Print the resume context this way and change nothing' -r -f -a "text\t'For people: what was done, decisions, open tasks, last error, where it stops'
prompt\t'The markdown prompt an agent is given'
messages\t'An OpenAI chat-completions message array (JSON)'
json\t'The context itself, as JSON'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l max-tokens -d 'Token budget of the context (default: [session] resume_token_budget)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l agent-cmd -d 'The agent to continue with: a command run with `sh -c`, the prompt on stdin, the reply on stdout, $CRU_MESSAGES_FILE naming the message array as JSON. Overrides [agent] in the configuration' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l model -d 'The model to ask for (an endpoint is asked for it; a command is told it in $CRU_MODEL) and to record on the resumed phase when the backend does not say which model answered. Overrides [agent] model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l once -d 'Stop after the agent\'s first reply and pause the session (what happens anyway when stdin is not a terminal)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from resume" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from pick" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -s o -l output -d 'Write the workflow to this file instead of stdout; a directory: one file per workflow, `<first session id>.workflow.md`' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l agent-cmd -d 'The agent for --refine: a command run with `sh -c`, as `cru session resume` takes it. Overrides [agent] in the configuration' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l format -d 'How to print the answer' -r -f -a "markdown\t'The workflow markup'
json\t'The workflow, its graph and run totals as JSON'
mermaid\t'A Mermaid flowchart of the steps'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l merge -d 'Merge all the sessions into one workflow, even runs of different tasks'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l force -d 'Replace --output if it exists'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l refine -d 'Have the agent backend clean the workflow up (names, types, conditions); used only if its reply validates and keeps every step and execution row, else saved as `<name>.refine-rejected.md` (exit 1)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l interactive -d 'Review it in $VISUAL/$EDITOR before saving: reopened with the errors on top until it validates'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l no-redact -d 'Keep secrets (API keys, tokens, passwords) as they are. Redaction is on by default: a workflow is written to be shared'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from codify" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l type -d 'Which cases: puzzles (from errors), corrections (from user interventions), or all' -r -f -a "puzzle\t''
correction\t''
all\t''"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l export -d 'The output format. Default: readable cases on stdout (`puzzle` with `--type puzzle`, else `markdown`)' -r -f -a "jsonl\t'One JSON object per line (see --schema)'
markdown\t'One readable document with a section per case'
puzzle\t'Puzzles for prompt engineering: the situation, a question, the answer folded'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l schema -d 'The JSONL shape (with --export jsonl)' -r -f -a "sft\t'`{"messages": [...]}`: OpenAI fine-tuning, TRL SFT, Axolotl chat_template'
dpo\t'`{"prompt", "chosen", "rejected"}`: TRL DPO (corrections and solved puzzles)'
sharegpt\t'`{"conversations": [{"from", "value"}]}`'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -s o -l output -d 'Write to this file instead of stdout' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l all -d 'Every session matching the filters'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l no-redact -d 'Keep secrets (API keys, tokens, passwords) as they are. Redaction is on by default'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from learn" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l from -d 'The source format; `auto` tells by content' -r -f -a "auto\t''
openai-messages\t'A JSON array or JSONL of OpenAI chat-completions messages'
agent-dir\t'`.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/` folders (agent.log, todos.json)'
codeloops\t'codeloops actor-critic sessions (JSONL)'
connectonion\t'ConnectOnion `.co/sessions/<agent>.yaml`'
claude-code\t'Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`)'
codex\t'Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) and saved `codex exec --json` event streams'
gemini\t'Gemini CLI chats (`~/.gemini/tmp/<project hash>/chats/session-*.json[l]`)'
copilot\t'GitHub Copilot CLI event logs (`~/.copilot/session-state/<id>/events.jsonl`)'
opencode\t'OpenCode\'s session database (`~/.local/share/opencode/opencode.db`, one source per session) or older `storage/` folder'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l format -d 'How --list-sources prints the stores' -r -f -a "table\t'One row per store'
json\t'`{"version": 1, "stores": [...]}` (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l force -d 'Update sessions that were changed in cru since their import'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l list-sources -d 'Show the agent stores an import with no path reads (found or not, and why not) and how many sources each holds; import nothing'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l to -d 'The format to write' -r -f -a "connectonion\t'ConnectOnion `.co/sessions/<agent>.yaml` (seed 000 layout)'
codeloops\t'codeloops JSONL: session_start, iterations, session_end'
agent-dir\t'An `.agent/sessions/<YYYY-MM-DD-HH-MM-SS>/` folder: agent.log, todos.json'
openai-messages\t'A JSON array of OpenAI chat-completions messages'
claude-code\t'A Claude Code transcript (`~/.claude/projects/<slug>/<sessionId>.jsonl`)'
codex\t'A Codex rollout, `<YYYY>/<MM>/<DD>/rollout-<time>-<uuid>.jsonl` below `--output` (give `~/.codex/sessions` for `codex resume`)'
otlp\t'OpenTelemetry traces sent over OTLP/HTTP to an engine (Phoenix, Langfuse, Jaeger, Tempo...): one trace per session (docs/otel.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -s o -l output -d 'Where to write: a file (stdout when left out); for agent-dir, the sessions folder the `<YYYY-MM-DD-HH-MM-SS>/` folder goes in (default `.agent/sessions`); for codex, the sessions folder the `<YYYY>/<MM>/<DD>/` folder goes in (`~/.codex/sessions`; `--force` when that day\'s folder exists: its other files are left alone)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l endpoint -d 'With --to otlp: the OTLP/HTTP endpoint, a base URL (`/v1/traces` is added to its path) or the traces URL itself. Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l header -d 'With --to otlp: a header sent with every request (repeat for more); it replaces a header of the same name (any case) from $OTEL_EXPORTER_OTLP_[TRACES_]HEADERS' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l protocol -d 'With --to otlp: the encoding. Default: $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf' -r -f -a "http/protobuf\t''
http/json\t''"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l retries -d 'With --to otlp: how many times a request is tried again after a 429, 502, 503, 504, a timeout or a refused connection (waiting 0.5 s, then twice as long each time, or what `Retry-After` says)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l force -d 'Replace a file or folder that exists'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l redact -d 'Replace secrets (API keys, tokens, passwords) with `[REDACTED:<kind>]`. Off by default: export is a format conversion of your own data; turn it on for anything you share'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l all -d 'With --to otlp: every session matching the filters, its settled parts (closed phases; an ended session\'s root) sent again whether they were sent before or not'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l since-last -d 'With --to otlp: only what was not sent to this endpoint yet of the sessions (given, or matching the filters): the phases closed and the sessions ended since, and sessions changed since'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l no-redact -d 'With --to otlp: keep secrets (API keys, tokens, passwords) as they are. Redaction is on by default for OTLP: the spans leave the machine'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l judge-cmd -d 'The judge: a command run with `sh -c` that reads the question on stdin and prints `PASS: <reason>` or `FAIL: <reason>` (implies --judge)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l agent-cmd -d 'The agent to replay with (a command, as for resume); overrides [agent] in the configuration' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l system-prompt -d 'Replay with this system prompt instead of each session\'s' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l model -d 'Replay with this model: an endpoint is asked for it, a command gets it in $CRU_MODEL' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l format -d 'How to print the cases' -r -f -a "table\t'session, phase, checks, judge, the last recorded verdict and this one'
json\t'One object: every case with its verdict, checks and reason, and a summary'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l all -d 'Every session that has an `[!expect]` callout; files that cannot be read are skipped with a warning (exit 3 when the rest passed)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l judge -d 'Also ask a judge about each case whose [!expect] has a `result:` line: --judge-cmd, else the [agent] of the configuration'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l replay -d 'Run every phase that has expectations again with the agent, and check the new runs (a regression run after changing a prompt)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l no-record -d 'Do not record the outcomes in the sessions'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from eval" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l phase -d 'The phase to run again: `3` or `phase-3`' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l agent-cmd -d 'The agent to run it with (a command, as for resume); overrides [agent] in the configuration' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l system-prompt -d 'Replay with this system prompt instead of the session\'s' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l model -d 'Replay with this model (an endpoint is asked for it, a command gets it in $CRU_MODEL)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l format -d 'How to print the outcome' -r -f -a "text\t'The new session\'s id on stdout, the differences for people'
json\t'The new session, the differences and the evaluation as JSON'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l eval -d 'Apply the phase\'s [!expect] to the new run'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from replay" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -l status -d 'How it ended' -r -f -a "completed\t''
failed\t''"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -l summary -d 'What was done. A subagent\'s summary goes to its parent\'s callout; a top-level session gets a `## Summary` section' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from end" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l limit -d 'At most this many sessions (the newest)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l format -d 'How to print the answer' -r -f -a "table\t'Aligned columns for people'
json\t''
toon\t'TOON, the index\'s own format'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l group-by -d 'What to group sessions by' -r -f -a "agent\t'Each agent by name; tokens go to the agent of the phase that spent them'
channel\t''
status\t''
model\t'The model that spent the tokens'
day\t'The UTC day tokens were spent (`cru usage daily` for other zones)'
week\t'The UTC week tokens were spent, from Sunday'
month\t'The UTC month tokens were spent'
phase\t'Phases by name, with the phases\' own tokens, durations and errors'
project\t'The git root of the session\'s working directory'
session\t''"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l mode -d 'How cost is found, as in `cru usage`: the cost the source wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l format -d 'How to print the answer' -r -f -a "table\t'Aligned columns for people'
json\t''
toon\t'TOON, the index\'s own format'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from stats" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l kind -d 'Search only this kind of text (repeat for several)' -r -f -a "text\t'Headings, prose, tasks, other callouts'
tool\t'Tool calls: name, arguments, result summary'
decision\t'[!decision] callouts'
error\t'[!error] callouts'
user\t'[!user] callouts and the prompt'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l limit -d 'At most this many hits; 0 for all' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l offset -d 'Skip this many hits first' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l sort -d 'The order of hits' -r -f -a "relevance\t'Best match first (BM25)'
newest\t'Newest session first'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l per-session -d 'Hits kept per session, the best first' -r
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l format -d 'How to print the answer' -r -f -a "table\t'One hit per entry: id#phase, file:line, the snippet'
json\t'`{"version": 1, "hits": [...]}` (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l open -d 'Start $VISUAL (else $EDITOR, else vi) at the best hit\'s file and line (`EDITOR +LINE FILE`; through `sh -c` when the variable holds arguments), instead of printing the hits'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from search" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -l format -d 'How to print what was found' -r -f -a "text\t'Counts on stderr; with --check, `file:line: message` lines on stdout'
json\t'`{"version": 1, "sessions", "unreadable", "duplicates", "search"}` (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -l rebuild -d 'Read every session again, ignoring the index on disk, and build the search index (`.search/`) again from nothing if a search has built one'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -l check -d 'List the session files that could not be read, the ids more than one file declares, and a search index a search would answer wrongly from (one that cannot be used; parts of a file gone that its manifest does not name); exit 1 if there are any. Files changed since the search index was written are read directly by every search: listed in the JSON only. A search index not built yet is not a problem'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from index" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l format -d 'How to print it' -r -f -a "text\t'For people: a header, then phases with callouts set apart (colour on a terminal)'
markdown\t'The canonical markdown of the file (of the phase alone with `#phase-N`)'
json\t'`{"version": 1, "path", "session": {...}}`; with `#phase-N`, `{"version": 1, "path", "id", "phase", "number", "section"}` (docs/json.md)'
html\t'One self-contained page (no network, no script; light or dark by the system setting): tool calls expand to their full arguments and results where the session\'s sidecar keeps them'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s o -l output -d 'Write to this file instead of standard output (`--format html`: a page to open in a browser; its links to other sessions lead to their pages beside it, else to their files)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l full -d 'Each tool call with its full arguments and result (from the session\'s sidecar, `.<file>.data.jsonl`, where an import kept them); with `--format json`, the sidecar\'s records as `data`'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -l format -d 'How to print the problems' -r -f -a "text\t'`file:line: error: message`, one per line'
json\t'`{"version": 1, "files": [{path, valid, problems}]}` (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start recording a new session; prints its id'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "log" -d 'Log an event to a live session: phase, tool, decision, error, user, subagent, tasks, tokens'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "pause" -d 'Pause a session at its current phase (or --at one); or --idle ones'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Resume a paused session: show its context, or continue it with an agent (--agent-cmd or [agent] in config). No id: list resumable ones'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "pick" -d 'Choose a session in a full-screen picker (type to filter) and print its id; a plain list when stdin or stdout is not a terminal'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "codify" -d 'Turn sessions into a reusable workflow (workflow markup); several sessions of one task merge. No id: the newest session'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "learn" -d 'Learning cases: puzzles from errors, corrections from user interventions; as SFT/DPO/ShareGPT JSONL, markdown or puzzles'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "import" -d 'Import other agents\' sessions: Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode, ConnectOnion YAML, codeloops JSONL, .agent/sessions folders, OpenAI messages'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write a session out for another tool: a Claude Code transcript, a Codex rollout, ConnectOnion YAML, codeloops JSONL, an .agent/sessions folder, or OpenAI messages; or send sessions to an OpenTelemetry engine as traces (`--to otlp`)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "eval" -d 'Evaluate phases against their [!expect] callouts: deterministic checks, an LLM judge (--judge), or new runs (--replay); exit 1 on a failure'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "replay" -d 'Run one phase again with its context, record the run as a linked session, and show what changed'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "end" -d 'End a session as completed or failed'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "list" -d 'List sessions, newest first, from the index'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "stats" -d 'Totals by agent, channel, status, model, day or phase'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "search" -d 'Full-text search over every session: words, "phrases", -word, OR, pars*, field:value; hits as ID#phase-N and file:line'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "index" -d 'Rebuild the index (picks up edits made outside cru), or --check it'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -f -a "validate" -d 'Check workflow files: `file:line:col: message` per problem; exit 1 on errors'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -f -a "show" -d 'Steps in run order with agents, channels, inputs, outputs and run history'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -f -a "refine" -d 'Have the agent backend clean a workflow up; keep it only if it validates'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -f -a "edit" -d 'Edit a workflow in $VISUAL/$EDITOR until it validates, then save it'
complete -c cru -n "__fish_cru_using_subcommand workflow; and not __fish_seen_subcommand_from validate show refine edit help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -l format -d 'How to print the answer' -r -f -a "text\t'`file:line:col: error: message`, one per line'
json\t'`{"version": 1, "files": [{path, valid, problems}]}`'"
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from validate" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -l format -d 'How to print the answer' -r -f -a "text\t'Steps in run order with agents, channels, inputs, outputs and run totals'
json\t'The workflow, its graph, run totals and problems'
mermaid\t'A Mermaid flowchart (GitHub and Obsidian draw it)'
html\t'One self-contained page: the step graph drawn in SVG, then each step (no network, no script)'"
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -s o -l output -d 'Write to this file instead of standard output' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -s o -l output -d 'Where to write the result (default: the file itself, in place)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -l agent-cmd -d 'The agent: a command run with `sh -c`, as `cru session resume` takes it' -r
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from refine" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from edit" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from edit" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from edit" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check workflow files: `file:line:col: message` per problem; exit 1 on errors'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from help" -f -a "show" -d 'Steps in run order with agents, channels, inputs, outputs and run history'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from help" -f -a "refine" -d 'Have the agent backend clean a workflow up; keep it only if it validates'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Edit a workflow in $VISUAL/$EDITOR until it validates, then save it'
complete -c cru -n "__fish_cru_using_subcommand workflow; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "daily" -d 'Tokens and cost by day (in --timezone), with each day\'s models'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "weekly" -d 'Tokens and cost by week (weeks start on --start-of-week, Sunday by default)'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "monthly" -d 'Tokens and cost by month'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "session" -d 'Tokens and cost by session, latest activity last'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "blocks" -d 'The 5-hour billing windows; the active one with its burn rate and projection'
complete -c cru -n "__fish_cru_using_subcommand usage; and not __fish_seen_subcommand_from daily weekly monthly session blocks help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s s -l since -d 'Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s u -l until -d 'Only days on or before DATE (same forms as --since)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s z -l timezone -d 'The time zone days are counted in (IANA name); the system\'s by default' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l now -d 'Take this time (RFC 3339) as now: for the active block, and for 7d' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l mode -d 'How cost is found: the cost the transcript wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l order -d 'Oldest first (asc) or newest first (desc)' -r -f -a "asc\t''
desc\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l start-of-week -d 'The first day of a week, for `weekly`' -r -f -a "sunday\t''
monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l agent -d 'Only the tokens credited to this agent (name or name@version): its phases\' usage, not the rest of the sessions it took part in' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l channel -d 'Only the tokens credited to this channel (its phases\')' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s j -l json -d 'Print ccusage\'s JSON (its key names, so its scripts read it)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s b -l breakdown -d 'A row per model under each row'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from daily" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s s -l since -d 'Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s u -l until -d 'Only days on or before DATE (same forms as --since)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s z -l timezone -d 'The time zone days are counted in (IANA name); the system\'s by default' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l now -d 'Take this time (RFC 3339) as now: for the active block, and for 7d' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l mode -d 'How cost is found: the cost the transcript wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l order -d 'Oldest first (asc) or newest first (desc)' -r -f -a "asc\t''
desc\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l start-of-week -d 'The first day of a week, for `weekly`' -r -f -a "sunday\t''
monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l agent -d 'Only the tokens credited to this agent (name or name@version): its phases\' usage, not the rest of the sessions it took part in' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l channel -d 'Only the tokens credited to this channel (its phases\')' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s j -l json -d 'Print ccusage\'s JSON (its key names, so its scripts read it)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s b -l breakdown -d 'A row per model under each row'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from weekly" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s s -l since -d 'Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s u -l until -d 'Only days on or before DATE (same forms as --since)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s z -l timezone -d 'The time zone days are counted in (IANA name); the system\'s by default' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l now -d 'Take this time (RFC 3339) as now: for the active block, and for 7d' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l mode -d 'How cost is found: the cost the transcript wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l order -d 'Oldest first (asc) or newest first (desc)' -r -f -a "asc\t''
desc\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l start-of-week -d 'The first day of a week, for `weekly`' -r -f -a "sunday\t''
monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l agent -d 'Only the tokens credited to this agent (name or name@version): its phases\' usage, not the rest of the sessions it took part in' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l channel -d 'Only the tokens credited to this channel (its phases\')' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s j -l json -d 'Print ccusage\'s JSON (its key names, so its scripts read it)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s b -l breakdown -d 'A row per model under each row'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from monthly" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s s -l since -d 'Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s u -l until -d 'Only days on or before DATE (same forms as --since)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s z -l timezone -d 'The time zone days are counted in (IANA name); the system\'s by default' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l now -d 'Take this time (RFC 3339) as now: for the active block, and for 7d' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l mode -d 'How cost is found: the cost the transcript wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l order -d 'Oldest first (asc) or newest first (desc)' -r -f -a "asc\t''
desc\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l start-of-week -d 'The first day of a week, for `weekly`' -r -f -a "sunday\t''
monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l agent -d 'Only the tokens credited to this agent (name or name@version): its phases\' usage, not the rest of the sessions it took part in' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l channel -d 'Only the tokens credited to this channel (its phases\')' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s j -l json -d 'Print ccusage\'s JSON (its key names, so its scripts read it)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s b -l breakdown -d 'A row per model under each row'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from session" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s s -l since -d 'Only days on or after DATE (YYYY-MM-DD, YYYYMMDD, or 7d, 2w, 3m back from today)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s u -l until -d 'Only days on or before DATE (same forms as --since)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s z -l timezone -d 'The time zone days are counted in (IANA name); the system\'s by default' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l now -d 'Take this time (RFC 3339) as now: for the active block, and for 7d' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l mode -d 'How cost is found: the cost the transcript wrote when it wrote one (auto), always from tokens and prices (calculate), or only the written cost (display)' -r -f -a "auto\t''
calculate\t''
display\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l order -d 'Oldest first (asc) or newest first (desc)' -r -f -a "asc\t''
desc\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l start-of-week -d 'The first day of a week, for `weekly`' -r -f -a "sunday\t''
monday\t''
tuesday\t''
wednesday\t''
thursday\t''
friday\t''
saturday\t''"
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l agent -d 'Only the tokens credited to this agent (name or name@version): its phases\' usage, not the rest of the sessions it took part in' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l channel -d 'Only the tokens credited to this channel (its phases\')' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s t -l token-limit -d 'Compare the active block\'s projection with this many tokens (or `max`: the largest block so far)' -r
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s j -l json -d 'Print ccusage\'s JSON (its key names, so its scripts read it)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s b -l breakdown -d 'A row per model under each row'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s a -l active -d 'Only the active block'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s r -l recent -d 'Only blocks of the last three days, and the active one'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from blocks" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "daily" -d 'Tokens and cost by day (in --timezone), with each day\'s models'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "weekly" -d 'Tokens and cost by week (weeks start on --start-of-week, Sunday by default)'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "monthly" -d 'Tokens and cost by month'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "session" -d 'Tokens and cost by session, latest activity last'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "blocks" -d 'The 5-hour billing windows; the active one with its burn rate and projection'
complete -c cru -n "__fish_cru_using_subcommand usage; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -f -a "show" -d 'The table\'s date and source, and a model\'s prices (per million tokens)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -f -a "update" -d 'Load a newer LiteLLM price list (model_prices_and_context_window.json) and use it from now on; a model it lacks keeps the shipped table\'s price (this cru\'s). The list is dated by the file\'s modification time'
complete -c cru -n "__fish_cru_using_subcommand pricing; and not __fish_seen_subcommand_from show update help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from show" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from show" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from update" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from update" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from update" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from help" -f -a "show" -d 'The table\'s date and source, and a model\'s prices (per million tokens)'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from help" -f -a "update" -d 'Load a newer LiteLLM price list (model_prices_and_context_window.json) and use it from now on; a model it lacks keeps the shipped table\'s price (this cru\'s). The list is dated by the file\'s modification time'
complete -c cru -n "__fish_cru_using_subcommand pricing; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand completions" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand completions" -l static -d 'A script that does not call cru: commands and flags, no session ids'
complete -c cru -n "__fish_cru_using_subcommand completions" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand completions" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand completions" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand doctor" -l format -d 'How to print the report' -r -f -a "text\t'A section per thing checked, a line per check'
json\t'`{"version": 1, "sections": [{"name", "checks": [{"level", "what", "message", "hint"}]}]}` (docs/json.md)'"
complete -c cru -n "__fish_cru_using_subcommand doctor" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand doctor" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand doctor" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand site" -s o -l output -d 'The folder to write the site into (made if missing)' -r -F
complete -c cru -n "__fish_cru_using_subcommand site" -l workflows -d 'A folder of workflow files (as `cru session codify` writes them) to add to the site: a page each with its step graph, and a list' -r -F
complete -c cru -n "__fish_cru_using_subcommand site" -l status -d 'Only sessions with this status' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l agent -d 'Only sessions where this agent took part (name or name@version)' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l channel -d 'Only sessions in this channel' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l model -d 'Only sessions with this primary model' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l since -d 'Only sessions started on or after this date or time (a timestamp, YYYY-MM-DD, YYYYMMDD, or a span back from today: 7d, 2w, 3m; days are UTC)' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l until -d 'Only sessions started on or before this date (or before this time); the same forms as --since' -r
complete -c cru -n "__fish_cru_using_subcommand site" -l project -d 'Only sessions whose project (the git root of their working directory, else the directory) is DIR or below it' -r -F
complete -c cru -n "__fish_cru_using_subcommand site" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand site" -l force -d 'Write every page again, even those whose session did not change'
complete -c cru -n "__fish_cru_using_subcommand site" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand site" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand site" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand site" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "claude-code" -d 'Record one Claude Code hook event, read as JSON on stdin. Always exits 0, prints nothing'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "codex" -d 'Record a Codex turn: Codex\'s notify JSON is the last argument. Always exits 0'
complete -c cru -n "__fish_cru_using_subcommand hook; and not __fish_seen_subcommand_from claude-code codex help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l payload-limit -d 'A tool\'s input or result larger than this many bytes is kept whole in the session\'s sidecar and cut in the markdown' -r
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from claude-code" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from codex" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from codex" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from codex" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from codex" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from codex" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "claude-code" -d 'Record one Claude Code hook event, read as JSON on stdin. Always exits 0, prints nothing'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "codex" -d 'Record a Codex turn: Codex\'s notify JSON is the last argument. Always exits 0'
complete -c cru -n "__fish_cru_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -f -a "claude-code" -d 'Install cru\'s hooks in Claude Code\'s settings.json (the user\'s unless --project); with --dir, they record there'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -f -a "codex" -d 'Make cru Codex\'s notify program in its config.toml; with --dir, it records there'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -f -a "gemini" -d 'Add cru\'s MCP server to Gemini CLI\'s settings.json (--mcp; Gemini CLI has no cru hooks)'
complete -c cru -n "__fish_cru_using_subcommand setup; and not __fish_seen_subcommand_from claude-code codex gemini help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l project -d 'This project\'s .claude/settings.json (in the working directory)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l user -d 'The user\'s settings.json ($CLAUDE_CONFIG_DIR\'s first directory, else ~/.claude): the default'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l remove -d 'Take cru\'s hooks out instead (other hooks stay); with --mcp, its MCP server'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l mcp -d 'Add cru\'s MCP server (`cru mcp`) instead of its hooks: to ~/.claude.json (user scope), or with --project to ./.mcp.json'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l force -d 'With --mcp: set the command and args of a `cru` entry that runs something else (its other keys stay)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from claude-code" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -l remove -d 'Take cru\'s notify out instead; with --mcp, its MCP server'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -l force -d 'Replace another program\'s notify (kept in a comment above cru\'s; --remove puts it back); with --mcp, set the command and args of a `cru` entry that runs something else'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -l mcp -d 'Add cru\'s MCP server (`cru mcp`) as [mcp_servers.cru] instead of its notify'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from codex" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l mcp -d 'Add `cru mcp` to ~/.gemini/settings.json\'s mcpServers (required: the one thing set up for Gemini CLI)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l project -d 'This project\'s .gemini/settings.json (in the working directory) instead of the user\'s'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l remove -d 'Take cru\'s MCP server out instead (other servers stay)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l force -d 'Set the command and args of a `cru` entry that runs something else (its other keys stay)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from gemini" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "claude-code" -d 'Install cru\'s hooks in Claude Code\'s settings.json (the user\'s unless --project); with --dir, they record there'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "codex" -d 'Make cru Codex\'s notify program in its config.toml; with --dir, it records there'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "gemini" -d 'Add cru\'s MCP server to Gemini CLI\'s settings.json (--mcp; Gemini CLI has no cru hooks)'
complete -c cru -n "__fish_cru_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand watch" -l otlp -d 'Also send every session that changed to this OTLP/HTTP endpoint as an OpenTelemetry trace, as `cru session export --to otlp --since-last` does (docs/otel.md, "Live"): a phase reaches the engine once it closes, the session\'s root once it ends. Headers, protocol, compression, timeout (default 5 s here) and resource come from the OTEL_EXPORTER_OTLP_* variables, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (e.g. OTEL_EXPORTER_OTLP_HEADERS= "Authorization=Bearer%20KEY"). Sending runs beside capture, never holding it up' -r
complete -c cru -n "__fish_cru_using_subcommand watch" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand watch" -l once -d 'Catch up once (import what changed, bring the indexes up to date) and exit: for a cron job, or after a watcher was killed'
complete -c cru -n "__fish_cru_using_subcommand watch" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand watch" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand watch" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand watch" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand mcp" -l poll -d 'Check the sessions directory every SECS seconds, to tell the client when its list of sessions changed; 0 never checks' -r
complete -c cru -n "__fish_cru_using_subcommand mcp" -l http -d 'Serve over streamable HTTP at http://ADDR/mcp instead of stdio (a loopback address such as 127.0.0.1:8765 or localhost:8765; port 0 picks one)' -r
complete -c cru -n "__fish_cru_using_subcommand mcp" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand mcp" -l read-only -d 'Offer no tool that writes (`record` is neither listed nor callable)'
complete -c cru -n "__fish_cru_using_subcommand mcp" -l allow-remote -d 'With --http: allow an address other machines can reach (anyone who reaches it reads your sessions; nothing authenticates them)'
complete -c cru -n "__fish_cru_using_subcommand mcp" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand mcp" -l strict -d 'Fail (exit 1) when whole input files are skipped, instead of going on with a warning and exit 3. `import --strict` also refuses a source any of whose records is skipped'
complete -c cru -n "__fish_cru_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "session" -d 'Work with sessions: record, resume, codify, list, stats, show, validate'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "workflow" -d 'Work with workflows: validate, show, refine, edit'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "usage" -d 'Tokens and cost by day, week, month, session or billing block, as ccusage shows them'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "pricing" -d 'The price table cost is computed with: show it, or load a newer one'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "completions" -d 'Print a shell completion script'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "doctor" -d 'What cru sees on this machine: the sessions directory and its indexes (exit 1 on a problem)'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "site" -d 'Write the sessions directory as a static site: a table of sessions that sorts and filters in the browser, a page per session; no server'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "hook" -d 'What agents run at each event to record into cru (installed by `cru setup`)'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "setup" -d 'Make an agent record into cru by itself: install cru\'s hooks in its settings'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "watch" -d 'Import agents\' transcripts as they are written, and keep the indexes fresh'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "mcp" -d 'Serve cru to agents over the Model Context Protocol (stdio): search, list, show, resume and record sessions as tools'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session workflow usage pricing completions doctor site hook setup watch mcp help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "start" -d 'Start recording a new session; prints its id'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "log" -d 'Log an event to a live session: phase, tool, decision, error, user, subagent, tasks, tokens'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "pause" -d 'Pause a session at its current phase (or --at one); or --idle ones'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "resume" -d 'Resume a paused session: show its context, or continue it with an agent (--agent-cmd or [agent] in config). No id: list resumable ones'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "pick" -d 'Choose a session in a full-screen picker (type to filter) and print its id; a plain list when stdin or stdout is not a terminal'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "codify" -d 'Turn sessions into a reusable workflow (workflow markup); several sessions of one task merge. No id: the newest session'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "learn" -d 'Learning cases: puzzles from errors, corrections from user interventions; as SFT/DPO/ShareGPT JSONL, markdown or puzzles'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "import" -d 'Import other agents\' sessions: Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode, ConnectOnion YAML, codeloops JSONL, .agent/sessions folders, OpenAI messages'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "export" -d 'Write a session out for another tool: a Claude Code transcript, a Codex rollout, ConnectOnion YAML, codeloops JSONL, an .agent/sessions folder, or OpenAI messages; or send sessions to an OpenTelemetry engine as traces (`--to otlp`)'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "eval" -d 'Evaluate phases against their [!expect] callouts: deterministic checks, an LLM judge (--judge), or new runs (--replay); exit 1 on a failure'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "replay" -d 'Run one phase again with its context, record the run as a linked session, and show what changed'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "end" -d 'End a session as completed or failed'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "list" -d 'List sessions, newest first, from the index'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "stats" -d 'Totals by agent, channel, status, model, day or phase'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "search" -d 'Full-text search over every session: words, "phrases", -word, OR, pars*, field:value; hits as ID#phase-N and file:line'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "index" -d 'Rebuild the index (picks up edits made outside cru), or --check it'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from workflow" -f -a "validate" -d 'Check workflow files: `file:line:col: message` per problem; exit 1 on errors'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from workflow" -f -a "show" -d 'Steps in run order with agents, channels, inputs, outputs and run history'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from workflow" -f -a "refine" -d 'Have the agent backend clean a workflow up; keep it only if it validates'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from workflow" -f -a "edit" -d 'Edit a workflow in $VISUAL/$EDITOR until it validates, then save it'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from usage" -f -a "daily" -d 'Tokens and cost by day (in --timezone), with each day\'s models'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from usage" -f -a "weekly" -d 'Tokens and cost by week (weeks start on --start-of-week, Sunday by default)'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from usage" -f -a "monthly" -d 'Tokens and cost by month'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from usage" -f -a "session" -d 'Tokens and cost by session, latest activity last'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from usage" -f -a "blocks" -d 'The 5-hour billing windows; the active one with its burn rate and projection'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from pricing" -f -a "show" -d 'The table\'s date and source, and a model\'s prices (per million tokens)'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from pricing" -f -a "update" -d 'Load a newer LiteLLM price list (model_prices_and_context_window.json) and use it from now on; a model it lacks keeps the shipped table\'s price (this cru\'s). The list is dated by the file\'s modification time'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "claude-code" -d 'Record one Claude Code hook event, read as JSON on stdin. Always exits 0, prints nothing'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "codex" -d 'Record a Codex turn: Codex\'s notify JSON is the last argument. Always exits 0'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "claude-code" -d 'Install cru\'s hooks in Claude Code\'s settings.json (the user\'s unless --project); with --dir, they record there'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "codex" -d 'Make cru Codex\'s notify program in its config.toml; with --dir, it records there'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "gemini" -d 'Add cru\'s MCP server to Gemini CLI\'s settings.json (--mcp; Gemini CLI has no cru hooks)'
