"""`cru mcp` driven by the official MCP Python SDK (`pip install mcp`).

Run by the Rust tests in crates/crucible-cli/tests/it/mcp_python.rs:

    python3 mcp_client.py CRU SESSIONS_DIR            # stdio: cru mcp started here
    python3 mcp_client.py CRU SESSIONS_DIR URL        # streamable HTTP at URL

Lists the tools and resources, calls every tool on the sessions in
SESSIONS_DIR (a copy of the fixtures), checks each structured result
against `cru session ... --format json` for the same question, records a
session through `record` and reads it back with `cru session show`.
Prints one line per check; exits non-zero on the first that fails.
"""

import asyncio
import json
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

CRU, DIR = sys.argv[1], sys.argv[2]
URL = sys.argv[3] if len(sys.argv) > 3 else None
CLIENTS, EVENTS = 20, 5
ID = "2025-12-10-fix-flaky-test"


def cli(*args):
    """`cru --dir DIR ARGS`'s stdout as JSON."""
    out = subprocess.run(
        [CRU, "--dir", DIR, *args], capture_output=True, text=True, check=False
    )
    assert out.returncode in (0, 3), f"cru {' '.join(args)}: {out.stderr}"
    return json.loads(out.stdout)


def check(what, ok, detail=""):
    if not ok:
        raise SystemExit(f"FAILED: {what}\n{detail}")
    print(f"ok: {what}")


async def structured(session, tool, arguments):
    result = await session.call_tool(tool, arguments)
    check(f"{tool} succeeds", not result.is_error, result)
    return result.structured_content


async def same_as_cli(session, tool, arguments, *cli_args):
    got = await structured(session, tool, arguments)
    want = cli(*cli_args)
    if tool == "list_sessions":
        # The tool's own count of what its limit (50 unless given) left out.
        total, truncated = got.pop("total"), got.pop("truncated")
        check("list_sessions counts them all", total == len(want["sessions"]) and not truncated,
              (total, truncated))
    check(f"{tool} {arguments} == cru {' '.join(cli_args)}", got == want, f"{got}\n!=\n{want}")


async def reading_tools(session):
    await same_as_cli(session, "list_sessions", {}, "session", "list", "--format", "json")
    await same_as_cli(
        session, "list_sessions", {"status": "paused"},
        "session", "list", "--status", "paused", "--format", "json",
    )
    await same_as_cli(session, "session_stats", {}, "session", "stats", "--format", "json")
    await same_as_cli(
        session, "search_sessions", {"query": "flaky"},
        "session", "search", "flaky", "--format", "json",
    )
    await same_as_cli(
        session, "codify_session", {"id": ID}, "session", "codify", ID, "--format", "json"
    )
    resumed = await structured(session, "resume_context", {"id": ID, "max_tokens": 800})
    resumed.pop("prompt")
    want = cli("session", "resume", ID, "--format", "json", "--max-tokens", "800")
    check("resume_context == cru session resume --format json", resumed == want)
    shown = await structured(session, "show_session", {"id": ID, "phases": "1-2"})
    check("show_session phases 1-2", shown["phases"] == [1, 2] and shown["markdown"], shown)
    cases = await structured(session, "learning_cases", {"id": ID})
    check("learning_cases has cases", len(cases["cases"]) > 0, cases)


async def recording(session):
    started = await structured(
        session, "record",
        {"event": "start", "title": "Recorded by the Python SDK", "agent": "py@1.0"},
    )
    sid = started["session"]
    for event in (
        {"event": "phase", "name": "Look around"},
        {"event": "tool", "tool": "bash", "args": "ls", "result": "3 files"},
        {"event": "decision", "text": "keep the SDK's client as the reference"},
        {"event": "pause"},
    ):
        await structured(session, "record", {**event, "session": sid})
    shown = cli("session", "show", sid, "--format", "json")
    text = json.dumps(shown)
    check(
        "the recorded session reads back with cru session show",
        shown["session"]["status"] == "paused"
        and "Look around" in text
        and "keep the SDK's client as the reference" in text,
        text,
    )


async def errors(session):
    typo = await session.call_tool("show_session", {"id": "2025-12-10-fix-flakey-test"})
    check("an unknown id is a tool error naming the nearest", typo.is_error
          and ID in typo.content[0].text, typo)


async def checks(read, write):
    async with ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        names = {t.name for t in tools.tools}
        check("every tool is listed", names == {
            "list_sessions", "show_session", "session_stats", "search_sessions",
            "resume_context", "record", "codify_session", "learning_cases",
        }, names)
        check("every tool has an output schema", all(t.output_schema for t in tools.tools))
        resources = await session.list_resources()
        uris = {str(r.uri) for r in resources.resources}
        check("sessions are resources", f"cru://session/{ID}" in uris, uris)
        read = await session.read_resource(f"cru://session/{ID}")
        check("a session resource is its markdown", "## " in read.contents[0].text)
        await reading_tools(session)
        await recording(session)
        await errors(session)


async def one_http_client(n, sid):
    """A client of its own that logs EVENTS decisions into session `sid`."""
    async with streamable_http_client(URL) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            for e in range(EVENTS):
                await structured(
                    session, "record",
                    {"event": "decision", "session": sid, "text": f"client {n} event {e}"},
                )


async def concurrent_http_clients():
    async with streamable_http_client(URL) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            started = await structured(
                session, "record", {"event": "start", "title": "Twenty clients at once"}
            )
    sid = started["session"]
    await asyncio.gather(*(one_http_client(n, sid) for n in range(CLIENTS)))
    text = json.dumps(cli("session", "show", sid, "--format", "json"))
    lost = [
        f"client {n} event {e}"
        for n in range(CLIENTS)
        for e in range(EVENTS)
        if f"client {n} event {e}" not in text
    ]
    check(f"{CLIENTS} clients recording at once lose no event", not lost, lost)


async def main():
    if URL is None:
        params = StdioServerParameters(command=CRU, args=["--dir", DIR, "mcp"])
        async with stdio_client(params) as (read, write):
            await checks(read, write)
    else:
        async with streamable_http_client(URL) as streams:
            await checks(streams[0], streams[1])
        await concurrent_http_clients()
    print("mcp python client: all checks passed")


asyncio.run(main())
