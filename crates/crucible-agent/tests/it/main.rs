//! The backends against real programs and a real HTTP server on 127.0.0.1.

mod command;
mod openai;
mod stub_server;
