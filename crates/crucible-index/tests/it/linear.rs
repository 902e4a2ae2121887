//! The index reader runs in time linear in its input: 10 times the rows cost
//! at most 15 times the time (a quadratic step would cost 100).

use std::path::Path;

use crucible_index::files;

#[path = "../../../crucible-core/tests/support/linear_time.rs"]
mod linear_time;
use linear_time::assert_linear;

const SESSION_HEAD: &str = "{path,id,status,live,mtime_ns,ino,size,ctime_ns,started,ended,duration_ms,title,channel,model,participants,agents,tokens_used,phases,tool_calls,failed_tool_calls,decisions,errors,user_interventions,subagents,resume_point,parent}:\n";
const PHASE_HEAD: &str = "{path,phase,name,agent,channel,level,started,duration_ms,tokens,tool_calls,failed_tool_calls,decisions,errors,user_interventions,subagents}:\n";

fn session_row(i: usize) -> String {
    format!(
        "  d{d}/s-{i}.md,s-{i},paused,0,1795452733{i:09},100{i},2780,1795452733{i:09},\"2025-12-10T09:15:00Z\",null,null,Title {i},dev,model,orchestrator@1.0 debugger@0.3,null,9120,4,5,1,1,1,1,2,phase-3,null\n",
        d = i % 1000
    )
}

fn phase_row(i: usize) -> String {
    format!(
        "  d{d}/s-{i}.md,1,Reproduce,orchestrator@1.0,dev,2,\"2025-12-10T09:15:00Z\",540000,2300,3,1,1,1,0,0\n",
        d = i % 1000
    )
}

/// A sessions directory whose index (base, phases and a delta) holds `n`
/// sessions in `n` folders, a tenth of them in the delta.
fn index_of(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| std::fs::write(dir.path().join(name), text).unwrap();
    let v = files::VERSION;
    let sessions: String = (0..n).map(session_row).collect();
    let dirs: String = (0..n)
        .map(|i| format!("  d{i},1795452733{i:09}\n"))
        .collect();
    write(
        files::BASE,
        format!(
            "format: cru-session-index\nversion: {v}\nsessions[{n}]{SESSION_HEAD}{sessions}problems[0]:\ndirs[{n}]{{path,changed_ns}}:\n{dirs}"
        ),
    );
    let usage: String = (0..n)
        .map(|i| {
            format!(
                "  d{d}/s-{i}.md,\"lead@1|||490000|5|900|2|{i}|7|0|0|0|0|0|-|\"\n",
                d = i % 1000
            )
        })
        .collect();
    write(
        files::USAGE,
        format!("version: {v}\nusage[{n}]{{path,usage}}:\n{usage}"),
    );
    let phases: String = (0..n).map(phase_row).collect();
    write(
        files::PHASES,
        format!("version: {v}\nphases[{n}]{PHASE_HEAD}{phases}"),
    );
    let changed = n / 10;
    let sessions: String = (0..changed).map(session_row).collect();
    let phases: String = (0..changed).map(phase_row).collect();
    let dirs: String = (0..changed).map(|i| format!("  d{i},1\n")).collect();
    write(
        files::DELTA,
        format!(
            "version: {v}\nsessions[{changed}]{SESSION_HEAD}{sessions}phases[{changed}]{PHASE_HEAD}{phases}problems[0]:\nremoved[0]:\ndirs[{changed}]{{path,changed_ns}}:\n{dirs}"
        ),
    );
    dir
}

fn load(dir: &Path) -> files::Index {
    files::load(dir).unwrap()
}

#[test]
fn the_index_reader() {
    let dir = index_of(20);
    let index = load(dir.path());
    assert_eq!(index.sessions.len(), 20);
    // The usage file's rows joined by place (the delta's rows have none).
    assert_eq!(
        index.sessions.iter().filter(|s| s.usage.len() == 1).count(),
        18
    );
    assert_linear("index load", 1_000, index_of, |dir| {
        std::hint::black_box(load(dir.path()));
    });
}

#[test]
fn the_phase_index_reader() {
    assert_eq!(files::load_phases(index_of(20).path()).unwrap().len(), 20);
    assert_linear("phase index load", 1_000, index_of, |dir| {
        std::hint::black_box(files::load_phases(dir.path()).unwrap());
    });
}
