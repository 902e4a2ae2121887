//! The few styles cru uses. anstream drops them when stdout is not a
//! terminal or NO_COLOR is set, so the text stays the same either way.

use anstyle::{AnsiColor, Style};

use crucible_core::CalloutKind;

pub const BOLD: Style = Style::new().bold();
pub const DIM: Style = Style::new().dimmed();
pub const FAILED: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red)));
pub const PHASE: Style = Style::new()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Blue)))
    .bold();

/// Each callout kind its own colour, and its own label for when colour is off.
pub fn callout(kind: &CalloutKind) -> (Style, String) {
    let color = match kind {
        CalloutKind::Decision => AnsiColor::Green,
        CalloutKind::Error => AnsiColor::Red,
        CalloutKind::User => AnsiColor::Yellow,
        CalloutKind::Subagent => AnsiColor::Cyan,
        CalloutKind::Other(_) => AnsiColor::Magenta,
    };
    let style = Style::new()
        .fg_color(Some(anstyle::Color::Ansi(color)))
        .bold();
    (style, kind.as_str().to_uppercase())
}
