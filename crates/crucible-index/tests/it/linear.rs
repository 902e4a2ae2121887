//! The index reader runs in time linear in its input: 10 times the rows cost
//! at most 15 times the time (a quadratic step would cost 100).

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crucible_index::files;

/// One timing at a time, so the timing tests of this binary do not slow
/// each other down.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Asserts that `run` on `input(10 * n)` costs at most 15 times `run` on
/// `input(n)`. `n` starts at `start` and doubles until the small input takes
/// 20 ms, so that timer noise is small beside it; each size is timed several
/// times and the fastest run counts. On a loaded machine one comparison can
/// still be off, so it is made up to three times: a linear reader passes one
/// of them (about 10x), a quadratic one none (about 100x).
fn assert_linear<T>(what: &str, start: usize, input: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fastest = |x: &T, runs: usize| {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                run(x);
                t.elapsed()
            })
            .min()
            .expect("at least one run")
    };
    let mut n = start;
    let mut small_input = input(n);
    while fastest(&small_input, 2) < Duration::from_millis(20) {
        n *= 2;
        small_input = input(n);
    }
    let large_input = input(10 * n);
    let mut tries = Vec::new();
    for _ in 0..3 {
        let small = fastest(&small_input, 3);
        let large = fastest(&large_input, 3);
        let ratio = large.as_secs_f64() / small.as_secs_f64();
        if ratio <= 15.0 {
            return;
        }
        tries.push(format!("{small:?} then {large:?} ({ratio:.1}x)"));
    }
    panic!(
        "{what}: size {n}, then size {}, took {}",
        10 * n,
        tries.join("; ")
    );
}

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
