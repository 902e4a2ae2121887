//! The system's time zone, found without listing the zoneinfo database.
//!
//! `TimeZone::try_system` takes the zone's name from the `/etc/localtime`
//! link and looks it up in jiff's zoneinfo database, whose first look-up
//! lists every file under `/usr/share/zoneinfo` (about 600): a tenth of
//! `cru usage daily`'s own time on an indexed directory. The link already
//! names the file, so it is read directly; jiff's way is kept for all else
//! (`TZ` set, no link, a link outside a zoneinfo tree, data it refuses).

use jiff::tz::TimeZone;

/// Where Unix systems say their zone.
const LOCALTIME: &str = "/etc/localtime";

/// The system's zone, UTC when none can be found (a `TZ` that names no
/// zone is said on stderr, not taken silently as UTC).
pub fn system() -> TimeZone {
    let tz = std::env::var_os("TZ");
    if tz.is_none()
        && let Some(zone) = linked(LOCALTIME)
    {
        return zone;
    }
    TimeZone::try_system().unwrap_or_else(|_| {
        if let Some(tz) = tz.filter(|t| !t.is_empty()) {
            eprintln!(
                "warning: TZ={} is no time zone this system knows; days are in UTC \
                 (--timezone sets one)",
                tz.to_string_lossy()
            );
        }
        TimeZone::UTC
    })
}

/// The zone of a `localtime` link into a zoneinfo tree, named by its path
/// there as jiff names it (`Europe/Paris`); UTC as jiff's own UTC.
fn linked(localtime: &str) -> Option<TimeZone> {
    const TREE: &str = "zoneinfo/";
    let target = std::fs::read_link(localtime).ok()?;
    let target = target.to_str()?;
    let name = &target[target.rfind(TREE)? + TREE.len()..];
    if name.eq_ignore_ascii_case("utc") {
        return Some(TimeZone::UTC);
    }
    let data = std::fs::read(localtime).ok()?;
    TimeZone::tzif(name, &data).ok()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_into_a_zoneinfo_tree_is_the_zone_it_names() {
        let t = tempfile::tempdir().unwrap();
        let Ok(paris) = std::fs::read("/usr/share/zoneinfo/Europe/Paris") else {
            return; // no zoneinfo tree on this machine
        };
        let tree = t.path().join("share/zoneinfo/Europe");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join("Paris"), &paris).unwrap();
        let link = t.path().join("localtime");
        std::os::unix::fs::symlink(tree.join("Paris"), &link).unwrap();
        let found = linked(link.to_str().unwrap()).expect("a zone");
        assert_eq!(found.iana_name(), Some("Europe/Paris"));
        let expected = TimeZone::get("Europe/Paris").unwrap();
        let summer: jiff::Timestamp = "2025-07-01T12:00:00Z".parse().unwrap();
        let winter: jiff::Timestamp = "2025-01-01T12:00:00Z".parse().unwrap();
        for at in [summer, winter] {
            assert_eq!(found.to_offset(at), expected.to_offset(at));
        }
    }

    #[test]
    fn no_link_or_a_link_elsewhere_is_left_to_jiff() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("localtime");
        std::fs::write(&file, b"TZif").unwrap();
        assert!(linked(file.to_str().unwrap()).is_none());
        let link = t.path().join("elsewhere");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(linked(link.to_str().unwrap()).is_none());
        assert!(linked(t.path().join("missing").to_str().unwrap()).is_none());
    }
}
