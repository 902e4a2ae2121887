//! Warnings held back while a full-screen view owns the terminal (the
//! picker reads the sessions while it is on screen): written there, they
//! would break its frame and vanish with the alternate screen when it
//! closes. They are printed when the view ends ([`release`]).

use std::io::Write;
use std::sync::Mutex;

static HELD: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// From now on, [`stderr`] keeps what is written to it.
pub fn hold() {
    if let Ok(mut held) = HELD.lock() {
        held.get_or_insert_with(Vec::new);
    }
}

/// Prints what was held, and stops holding.
pub fn release() {
    let held = HELD.lock().ok().and_then(|mut h| h.take());
    if let Some(bytes) = held {
        let mut err = anstream::stderr();
        let _ = err.write_all(&bytes);
        let _ = err.flush();
    }
}

/// Standard error, or the held lines while a view is up.
pub fn stderr() -> Stderr {
    Stderr
}

pub struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut held) = HELD.lock()
            && let Some(held) = held.as_mut()
        {
            held.extend_from_slice(buf);
            return Ok(buf.len());
        }
        anstream::stderr().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        anstream::stderr().flush()
    }
}
