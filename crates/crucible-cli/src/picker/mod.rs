//! The full-screen session picker (`cru session pick`, and `cru session
//! resume` with no id on a terminal): type to filter, move with the arrows,
//! Enter to choose, Esc to quit with the terminal as it was.
//!
//! The sessions are read on a thread while the screen is already up, so
//! the picker opens at once on 100,000 sessions; the preview of the
//! selected session is made when the selection changes.

mod model;
mod view;

use std::sync::atomic::{AtomicU64, Ordering};
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
    crate::render::held::hold();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(load());
        });
        let mut terminal = ratatui::try_init().inspect_err(|_| crate::render::held::release())?;
        // A terminal that was resized as the program started (a new tmux
        // pane) may hold stale cells the first frame would not overwrite.
        terminal.clear()?;
        let chosen = run(&mut terminal, heading, &rx, preview);
        ratatui::restore();
        crate::render::held::release();
        chosen
    })
}

fn run(
    terminal: &mut ratatui::DefaultTerminal,
    heading: &str,
    rx: &mpsc::Receiver<Vec<Entry>>,
    preview: &dyn Fn(&Entry) -> String,
) -> std::io::Result<Option<String>> {
    let (jobs, job_rx) = mpsc::channel();
    let (done_tx, done) = mpsc::channel();
    let latest = AtomicU64::new(0);
    let latest = &latest;
    std::thread::scope(|s| {
        s.spawn(move || work(&job_rx, &done_tx, latest));
        let matching = Matching { jobs, done, latest };
        let chosen = show(terminal, (heading, preview), rx, &matching);
        matching.stop();
        chosen
    })
}

/// The match on a thread of its own: the screen takes every key at once
/// and shows the query typed while the sessions are scored; a key typed
/// meanwhile stops the match under way (the newer query is matched
/// instead), so typing never waits on 100,000 sessions.
struct Matching<'a> {
    jobs: mpsc::Sender<(u64, model::Job)>,
    done: mpsc::Receiver<(String, Vec<usize>)>,
    /// The number of the newest job; a job whose number is older stops.
    latest: &'a AtomicU64,
}

impl Matching<'_> {
    fn send(&self, job: model::Job) {
        let number = self.latest.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = self.jobs.send((number, job));
    }

    /// The newest match made, if any is waiting.
    fn finished(&self) -> Option<(String, Vec<usize>)> {
        self.done.try_iter().last()
    }

    /// Stops the match under way, and the thread (its channel closes).
    fn stop(self) {
        self.latest.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs the jobs sent, the newest of those waiting each time, until the
/// sender is gone.
fn work(
    jobs: &mpsc::Receiver<(u64, model::Job)>,
    done: &mpsc::Sender<(String, Vec<usize>)>,
    latest: &AtomicU64,
) {
    while let Ok(first) = jobs.recv() {
        let (number, job) = jobs.try_iter().last().unwrap_or(first);
        let query = job.query.clone();
        let stale = || latest.load(Ordering::Relaxed) != number;
        if let Some(matched) = job.run(&stale) {
            let _ = done.send((query, matched));
        }
    }
}

fn show(
    terminal: &mut ratatui::DefaultTerminal,
    (heading, preview): (&str, &dyn Fn(&Entry) -> String),
    rx: &mpsc::Receiver<Vec<Entry>>,
    matching: &Matching<'_>,
) -> std::io::Result<Option<String>> {
    let mut model = Model::new(Vec::new());
    let mut loading = true;
    // An event read while gathering typed keys, handled next.
    let mut queued: Option<Event> = None;
    // The preview of the entry it was made for.
    let mut shown: Option<(String, String)> = None;
    // The query last matched or sent to be.
    let mut asked: Option<String> = None;
    // Whether the screen shows the model as it is: a frame is drawn only
    // when something changed, not at every look for a finished match.
    let mut drawn = false;
    loop {
        if loading && let Ok(entries) = rx.try_recv() {
            let query = std::mem::take(&mut model.query);
            model = Model::new(entries);
            model.type_str(&query);
            asked = None;
            loading = false;
            drawn = false;
        }
        if let Some((query, matched)) = matching.finished() {
            model.answer(query, matched);
            drawn = false;
        }
        if asked.as_deref() != Some(model.query.as_str()) {
            asked = Some(model.query.clone());
            if let Some(job) = model.job() {
                matching.send(job);
            }
            drawn = false;
        }
        if !drawn {
            let text = preview_of(&model, &mut shown, preview);
            terminal.draw(|frame| {
                let screen = view::Screen {
                    heading,
                    preview: &text,
                    loading,
                };
                view::draw(frame, &model, &screen);
            })?;
            drawn = true;
        }
        let wait = if loading || model.matching() { 10 } else { 250 };
        let event = match queued.take() {
            Some(event) => event,
            None if event::poll(Duration::from_millis(wait))? => event::read()?,
            None => continue,
        };
        drawn = false;
        match handle(&event, &mut model, &mut queued, terminal)? {
            Some(Ending::Chosen(id)) => return Ok(Some(id)),
            Some(Ending::Quit) => return Ok(None),
            None => {}
        }
    }
}

/// The preview of the selected session, made again only when the
/// selection changed.
fn preview_of(
    model: &Model,
    shown: &mut Option<(String, String)>,
    preview: &dyn Fn(&Entry) -> String,
) -> String {
    match model.selected_entry() {
        Some(e) if shown.as_ref().is_some_and(|(id, _)| *id == e.id) => {
            shown.as_ref().map_or("", |(_, t)| t.as_str()).to_owned()
        }
        Some(e) => {
            let text = preview(e);
            *shown = Some((e.id.clone(), text.clone()));
            text
        }
        None => String::new(),
    }
}

/// How the picker ends.
enum Ending {
    Chosen(String),
    Quit,
}

/// What one event does: `Some` when the picker ends.
fn handle(
    event: &Event,
    model: &mut Model,
    queued: &mut Option<Event>,
    terminal: &mut ratatui::DefaultTerminal,
) -> std::io::Result<Option<Ending>> {
    let key = match *event {
        Event::Key(key) if key.kind == KeyEventKind::Press => key,
        Event::Resize(..) => {
            terminal.clear()?;
            return Ok(None);
        }
        _ => return Ok(None),
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => return Ok(Some(Ending::Quit)),
        KeyCode::Char('c' | 'g') if ctrl => return Ok(Some(Ending::Quit)),
        KeyCode::Enter => {
            if let Some(e) = model.selected_entry() {
                return Ok(Some(Ending::Chosen(e.id.clone())));
            }
        }
        KeyCode::Up => model.move_by(-1),
        KeyCode::Char('p' | 'k') if ctrl => model.move_by(-1),
        KeyCode::Down => model.move_by(1),
        KeyCode::Char('n' | 'j') if ctrl => model.move_by(1),
        KeyCode::PageUp => model.move_by(-10),
        KeyCode::PageDown => model.move_by(10),
        KeyCode::Char('u') if ctrl => model.query.clear(),
        KeyCode::Backspace => model.backspace(),
        KeyCode::Char(c) if !ctrl => model.type_str(&typed_with(c, queued)?),
        _ => {}
    }
    Ok(None)
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
