//! The full-screen session picker (`cru session pick`, and `cru session
//! resume` with no id on a terminal): type to filter, move with the arrows,
//! Enter to choose, Esc to quit with the terminal as it was.
//!
//! The sessions are read on a thread while the screen is already up, so
//! the picker opens at once on 100,000 sessions; the preview of the
//! selected session is made when the selection changes.

mod model;
mod view;

use std::sync::mpsc;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

pub use model::Entry;
use model::Model;

/// Shows the picker with the sessions `load` gives (newest first, in the
/// order to offer them), `preview` making the text shown beside the one
/// selected. The id chosen, or `None` on Esc.
pub fn pick(
    heading: &str,
    load: impl FnOnce() -> Vec<Entry> + Send,
    preview: &dyn Fn(&Entry) -> String,
) -> std::io::Result<Option<String>> {
    // The sessions are read while the picker is on screen: no progress
    // bar may draw over it.
    crate::render::progress::silence();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(load());
        });
        let mut terminal = ratatui::try_init()?;
        // A terminal that was resized as the program started (a new tmux
        // pane) may hold stale cells the first frame would not overwrite.
        terminal.clear()?;
        let chosen = run(&mut terminal, heading, &rx, preview);
        ratatui::restore();
        chosen
    })
}

fn run(
    terminal: &mut ratatui::DefaultTerminal,
    heading: &str,
    rx: &mpsc::Receiver<Vec<Entry>>,
    preview: &dyn Fn(&Entry) -> String,
) -> std::io::Result<Option<String>> {
    let mut model = Model::new(Vec::new());
    let mut loading = true;
    // An event read while gathering typed keys, handled next.
    let mut queued: Option<Event> = None;
    // The preview of the entry it was made for.
    let mut shown: Option<(String, String)> = None;
    loop {
        if loading && let Ok(entries) = rx.try_recv() {
            let query = std::mem::take(&mut model.query);
            model = Model::new(entries);
            query.chars().for_each(|c| model.push_char(c));
            loading = false;
        }
        let text = match model.selected_entry() {
            Some(e) if shown.as_ref().is_some_and(|(id, _)| *id == e.id) => {
                shown.as_ref().map_or("", |(_, t)| t.as_str()).to_owned()
            }
            Some(e) => {
                let text = preview(e);
                shown = Some((e.id.clone(), text.clone()));
                text
            }
            None => String::new(),
        };
        terminal.draw(|frame| {
            let screen = view::Screen {
                heading,
                preview: &text,
                loading,
            };
            view::draw(frame, &model, &screen);
        })?;
        let event = match queued.take() {
            Some(event) => event,
            None if event::poll(Duration::from_millis(if loading { 20 } else { 250 }))? => {
                event::read()?
            }
            None => continue,
        };
        let key = match event {
            Event::Key(key) => key,
            Event::Resize(..) => {
                terminal.clear()?;
                continue;
            }
            _ => continue,
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return Ok(None),
            KeyCode::Char('c' | 'g') if ctrl => return Ok(None),
            KeyCode::Enter => {
                if let Some(e) = model.selected_entry() {
                    return Ok(Some(e.id.clone()));
                }
            }
            KeyCode::Up => model.move_by(-1),
            KeyCode::Char('p' | 'k') if ctrl => model.move_by(-1),
            KeyCode::Down => model.move_by(1),
            KeyCode::Char('n' | 'j') if ctrl => model.move_by(1),
            KeyCode::PageUp => model.move_by(-10),
            KeyCode::PageDown => model.move_by(10),
            KeyCode::Char('u') if ctrl => model.clear_query(),
            KeyCode::Backspace => model.pop_char(),
            KeyCode::Char(c) if !ctrl => model.push_str(&typed_with(c, &mut queued)?),
            _ => {}
        }
    }
}

/// `first` and the keys typed after it that are already waiting: keys
/// typed faster than a match takes are matched at once. Any other event
/// read meanwhile is left in `queued`.
fn typed_with(first: char, queued: &mut Option<Event>) -> std::io::Result<String> {
    let mut typed = String::from(first);
    while event::poll(Duration::ZERO)? {
        match event::read()? {
            Event::Key(k) if k.kind != KeyEventKind::Press => {}
            Event::Key(k) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
                if let KeyCode::Char(c) = k.code {
                    typed.push(c);
                } else {
                    *queued = Some(Event::Key(k));
                    break;
                }
            }
            other => {
                *queued = Some(other);
                break;
            }
        }
    }
    Ok(typed)
}
