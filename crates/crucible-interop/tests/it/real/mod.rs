//! Every real agent file under `fixtures/real/`, imported and checked against facts counted from the source by a small counter of its own.

mod gemini;
mod copilot;
