//! `cru usage daily|weekly|monthly` answered from the index's rollup
//! (`crucible_index::rollup`): the usage lines of the base's sessions
//! summed by hour and model when the index was written, less the sessions
//! the freshness check found changed, gone or live, plus what they are now.
//! Only the unfiltered views, in a zone whose offset is a whole number of
//! hours at every hour summed (else the hour does not say the local day);
//! anything else, or a rollup that cannot answer exactly, takes the path
//! that reads every session's cell (`sessions::load`).

use crucible_index::path_set::PathHashes;
use crucible_index::record::UsageCell;
use crucible_index::rollup::Rollup;
use crucible_index::{DuplicateIds, Filter, SessionIndex};
use crucible_usage::SessionUsage;
use jiff::tz::TimeZone;
use std::io::Write;

use crate::commands::session::query::{report, warn_duplicates};
use crate::context::Context;
use crate::error::{CliError, Outcome};
use crate::render::progress;

/// What one thread of the visit found.
#[derive(Default)]
struct Share {
    /// Hashes of the paths of the base rows found fresh (in the rollup).
    fresh: Vec<u64>,
    /// The lines of every other session: changed, new, live, or in the delta.
    now: Rollup,
    ids: DuplicateIds,
    sessions: usize,
    /// A session whose lines could not be had: the rollup cannot answer.
    unreadable: bool,
}

/// The sessions' lines as the calendar views take them (one pseudo-session
/// holding the rollup's lines), and the command's outcome; `None` to take
/// the path that reads every cell. Prints what the other path would (index
/// warnings, files skipped, ids twice) only when it answers.
pub fn load(
    ctx: &Context,
    filter: &Filter,
    zone: &TimeZone,
) -> anyhow::Result<Option<(Vec<SessionUsage>, Outcome)>> {
    if !unfiltered(filter) {
        return Ok(None);
    }
    let index = SessionIndex::new(&ctx.store).without_usage().ids_only();
    // The rollup file is read while the visit proves every row fresh.
    let (loaded, visited) = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| index.base_rollup(&day_of_hour(zone)));
        let visited = visit(&index, filter);
        let loaded = loaded
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (loaded, visited)
    });
    let (opened, shares) = visited?;
    let Some((lines, ids, sessions)) =
        loaded.and_then(|file| answer(&index, &opened, file, shares, zone))
    else {
        // The other path visits again: what this visit did to the index
        // (rebuilt it, say) is said here, the files it skipped there.
        let mut err = crate::render::held::stderr();
        for w in &opened.warnings {
            writeln!(err, "{w}")?;
        }
        return Ok(None);
    };
    report(ctx, &opened)?;
    let duplicates = ids.finish();
    warn_duplicates(ctx, &duplicates)?;
    let outcome = Outcome::from_files(sessions, opened.index.problems.len());
    let usage = SessionUsage {
        lines,
        ..SessionUsage::default()
    };
    Ok(Some((vec![usage], outcome)))
}

/// The lines from the rollup `file` and the visit's `shares`, the ids seen
/// and how many sessions; `None` when the rollup cannot answer exactly.
fn answer(
    index: &SessionIndex<'_>,
    opened: &crucible_index::Opened,
    file: crucible_index::rollup_file::RollupFile,
    shares: Vec<Share>,
    zone: &TimeZone,
) -> Option<(Vec<crucible_core::UsageLine>, DuplicateIds, usize)> {
    if opened.generation != Some(file.base.generation) {
        return None;
    }
    let mut fresh = Vec::new();
    let (mut ids, mut sessions, mut fresh_rows) = (DuplicateIds::default(), 0, 0);
    let mut now = Rollup::default();
    for share in shares {
        if share.unreadable {
            return None;
        }
        fresh_rows += share.fresh.len();
        fresh.push(share.fresh);
        now.merge(share.now);
        ids.merge(share.ids);
        sessions += share.sessions;
    }
    // Every base row fresh: nothing to take away, and the usage file is
    // not opened.
    let outside = if fresh_rows == file.base.rows {
        Vec::new()
    } else {
        // A set only now: most queries find every row fresh.
        let fresh: PathHashes = fresh.into_iter().flatten().collect();
        index.usage_outside(&file, &fresh, fresh_rows)?
    };
    // The new lines before the old are taken away: a session saved again
    // with the same lines keeps its rows' first request.
    let lines = index.rollup_lines(file.days?, now, &outside, &day_of_hour(zone))?;
    Some((lines, ids, sessions))
}

/// Whether `filter` takes every session (the rollup sums them all).
fn unfiltered(filter: &Filter) -> bool {
    filter.status.is_none()
        && filter.agent.is_none()
        && filter.channel.is_none()
        && filter.model.is_none()
        && filter.since_ms.is_none()
        && filter.until_ms.is_none()
        && filter.project.is_none()
}

/// The local day (`yyyymmdd`) of a UTC hour (seconds) in `zone`; `None`
/// when the zone's offset then is not a whole number of hours (the hour
/// then does not say the local day).
fn day_of_hour(zone: &TimeZone) -> impl Fn(i64) -> Option<i64> + '_ {
    move |hour: i64| {
        let t = jiff::Timestamp::from_second(hour).ok()?;
        let offset = zone.to_offset(t);
        if offset.seconds() % 3_600 != 0 {
            return None;
        }
        let date = offset.to_datetime(t).date();
        Some(
            i64::from(date.year()) * 10_000 + i64::from(date.month()) * 100 + i64::from(date.day()),
        )
    }
}

/// Visits every session: the fresh base rows by their paths' hashes, the
/// others with their lines.
fn visit(
    index: &SessionIndex<'_>,
    filter: &Filter,
) -> anyhow::Result<(crucible_index::Opened, Vec<Share>)> {
    let bar = progress::bar("indexing sessions");
    let visited = index
        .visit(
            None,
            filter,
            &|done, total| progress::update(&bar, done, total),
            &Share::default,
            &|share: &mut Share, facts, _| {
                share.sessions += 1;
                share.ids.add(&facts.id, &facts.path);
                match (&facts.usage, facts.usage()) {
                    (UsageCell::NotRead, _) => share
                        .fresh
                        .push(crucible_index::path_set::path_hash(&facts.path)),
                    (_, Ok(lines)) => share.now.add(&lines),
                    (_, Err(_)) => share.unreadable = true,
                }
            },
        )
        .map_err(|e| CliError::new(e.to_string()))?;
    progress::finish(&bar);
    Ok(visited)
}
