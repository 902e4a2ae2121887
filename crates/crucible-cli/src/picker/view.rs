//! How the picker looks: the query on top, the sessions on the left, the
//! preview of the selected one on the right, the keys at the bottom.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};

use super::model::Model;

/// What the frame shows besides the model.
pub struct Screen<'a> {
    pub heading: &'a str,
    pub preview: &'a str,
    pub loading: bool,
}

pub fn draw(frame: &mut Frame<'_>, model: &Model, screen: &Screen<'_>) {
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(3),
            Constraint::Min(3),
            Constraint::Length(1),
        ])
        .split(frame.area());
    query(frame, rows[0], model, screen);
    let columns = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(rows[1]);
    list(frame, columns[0], model, screen.loading);
    // A session's text may hold escape sequences: each line is drawn with
    // none a terminal would obey.
    let lines: Vec<Line<'_>> = screen
        .preview
        .lines()
        .map(|l| Line::from(crate::render::table::one_line(l)))
        .collect();
    let preview = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::default().borders(Borders::ALL).title(" Preview "));
    frame.render_widget(preview, columns[1]);
    let keys = Paragraph::new(Line::from(vec![
        Span::styled("Enter", Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(" choose  "),
        Span::styled("↑↓", Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(" move  "),
        Span::styled("Esc", Style::default().add_modifier(Modifier::BOLD)),
        Span::raw(" quit"),
    ]));
    frame.render_widget(keys, rows[2]);
}

fn query(frame: &mut Frame<'_>, area: Rect, model: &Model, screen: &Screen<'_>) {
    let count = if screen.loading {
        " loading… ".to_owned()
    } else if model.matching() {
        // The matches shown are an earlier query's until the match ends.
        format!(" matching… {}/{} ", model.matched.len(), model.len())
    } else {
        format!(" {}/{} ", model.matched.len(), model.len())
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" {} ", screen.heading))
        .title_bottom(Line::from(count).right_aligned());
    let input = Paragraph::new(Line::from(vec![
        Span::styled("> ", Style::default().fg(Color::Cyan)),
        Span::raw(model.query.as_str()),
    ]))
    .block(block);
    frame.render_widget(input, area);
    let x = area.x + 3 + u16::try_from(model.query.chars().count()).unwrap_or(u16::MAX);
    frame.set_cursor_position((x.min(area.right().saturating_sub(2)), area.y + 1));
}

fn list(frame: &mut Frame<'_>, area: Rect, model: &Model, loading: bool) {
    if model.len() == 0 && !loading {
        // Said, not left as an empty pane: nothing to pick here.
        let none =
            Paragraph::new("No session in this directory (or none these filters take). Esc quits.")
                .block(Block::default().borders(Borders::ALL).title(" Sessions "));
        frame.render_widget(none, area);
        return;
    }
    // Only the rows that fit are built: 100,000 matches cost nothing more.
    let height = usize::from(area.height.saturating_sub(2)).max(1);
    let first = model.selected.saturating_sub(height - 1);
    let items: Vec<ListItem<'_>> = model
        .matched
        .iter()
        .skip(first)
        .take(height)
        .map(|&i| {
            let e = model.entry(i);
            let status = match e.status.as_str() {
                "paused" => Color::Yellow,
                "active" => Color::Blue,
                "failed" => Color::Red,
                _ => Color::Green,
            };
            ListItem::new(Line::from(vec![
                Span::styled(format!("{:<10}", e.status), Style::default().fg(status)),
                Span::raw(crate::render::table::one_line(&e.id)),
                Span::styled(
                    if e.title.is_empty() {
                        String::new()
                    } else {
                        format!("  {}", e.title)
                    },
                    Style::default().add_modifier(Modifier::DIM),
                ),
            ]))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(model.selected - first));
    let list = List::new(items)
        .block(Block::default().borders(Borders::ALL).title(" Sessions "))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(list, area, &mut state);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picker::model::Entry;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    #[test]
    fn the_screen_shows_the_query_the_matches_and_the_preview() {
        let mut model = Model::new(vec![Entry {
            id: "2026-01-01-a".into(),
            path: "2026-01-01-a.md".into(),
            title: "Fix it".into(),
            status: "paused".into(),
            agents: String::new(),
            project: String::new(),
            started: String::new(),
        }]);
        model.push_char('f');
        let mut terminal = Terminal::new(TestBackend::new(60, 8)).unwrap();
        terminal
            .draw(|f| {
                draw(
                    f,
                    &model,
                    &Screen {
                        heading: "Pick a session",
                        preview: "the preview",
                        loading: false,
                    },
                );
            })
            .unwrap();
        let text: String = terminal
            .backend()
            .buffer()
            .content()
            .chunks(60)
            .map(|row| {
                row.iter()
                    .map(ratatui::buffer::Cell::symbol)
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        assert!(text.contains("┌ Pick a session "), "{text}");
        assert!(text.contains("> f"), "{text}");
        assert!(text.contains("paused    2026-01-01-a"), "{text}");
        assert!(text.contains("the preview"), "{text}");
        assert!(text.contains("1/1"), "{text}");
    }

    #[test]
    fn an_empty_directory_says_so() {
        let model = Model::new(Vec::new());
        let mut terminal = Terminal::new(TestBackend::new(100, 8)).unwrap();
        for (loading, said) in [(true, false), (false, true)] {
            terminal
                .draw(|f| {
                    let screen = Screen {
                        heading: "Pick a session",
                        preview: "",
                        loading,
                    };
                    draw(f, &model, &screen);
                })
                .unwrap();
            let text: String = terminal
                .backend()
                .buffer()
                .content()
                .iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect();
            assert_eq!(
                text.contains("No session in this directory"),
                said,
                "{text}"
            );
        }
    }
}
