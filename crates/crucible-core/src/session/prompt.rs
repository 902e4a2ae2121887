//! The prompt a session started from: the `prompt` block when one was
//! recorded, else the user's words that open the first phase (what every
//! importer writes for the first user turn), so the text is never kept twice.

use super::{Block, Callout, CalloutKind, SessionLog};

/// The words of a `[!user]` callout: the quoted part, else its whole text.
pub fn user_words(c: &Callout) -> String {
    c.user_parts()
        .quote
        .unwrap_or_else(|| c.text().trim().to_owned())
}

/// A lone slash command such as `/clear` or `/compact`: a message to the
/// agent's program, not a request to the agent.
pub fn is_bare_command(words: &str) -> bool {
    let w = words.trim();
    w.len() > 1
        && w.starts_with('/')
        && w[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
}

impl SessionLog {
    /// The `prompt` block, when the log has one.
    pub fn prompt_block(&self) -> Option<&str> {
        self.blocks().find_map(|b| match b {
            Block::Prompt { text } => Some(text.as_str()),
            _ => None,
        })
    }

    /// How many `[!user]` callouts open the first phase, before the agent
    /// did or said anything in it: the user's opening words. They are the
    /// request the session started from, never a correction.
    pub fn opening_user_count(&self) -> usize {
        let Some((_, first)) = self.phases().next() else {
            return 0;
        };
        first
            .blocks
            .iter()
            .take_while(|b| matches!(b, Block::Callout(c) if c.kind() == CalloutKind::User))
            .count()
    }

    /// The prompt the session started from: the `prompt` block, else the
    /// user's opening words (lone slash commands such as `/clear` left out
    /// when a real request follows them), joined by blank lines.
    pub fn prompt(&self) -> Option<String> {
        if let Some(text) = self.prompt_block() {
            return Some(text.to_owned());
        }
        let (_, first) = self.phases().next()?;
        let words: Vec<String> = first.blocks[..self.opening_user_count()]
            .iter()
            .filter_map(|b| match b {
                Block::Callout(c) => Some(user_words(c)),
                _ => None,
            })
            .filter(|w| !w.is_empty())
            .collect();
        let requests: Vec<&String> = words.iter().filter(|w| !is_bare_command(w)).collect();
        let kept: Vec<&String> = if requests.is_empty() {
            words.iter().collect()
        } else {
            requests
        };
        (!kept.is_empty()).then(|| {
            kept.iter()
                .map(|w| w.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Block, Callout, Frontmatter, Phase, Section, SessionId, SessionLog, Timestamp};

    fn log_with_first_phase(blocks: Vec<Block>) -> SessionLog {
        let id = SessionId::new("2025-12-10-p").expect("a valid id");
        let started: Timestamp = "2025-12-10T09:00:00Z".parse().expect("a valid time");
        let mut log = SessionLog::new(Frontmatter::new(id, started));
        let mut p = Phase::new("Start", None, Some("main".into()));
        p.blocks = blocks;
        log.sections.push(Section::Phase(p));
        log
    }

    fn user(words: &str) -> Block {
        Block::Callout(Callout::user(words, None))
    }

    #[test]
    fn the_block_wins_over_the_opening_words() {
        let mut log = log_with_first_phase(vec![user("from the phase")]);
        assert_eq!(log.prompt().as_deref(), Some("from the phase"));
        log.preamble.push(Block::Prompt {
            text: "exact\n  text".into(),
        });
        assert_eq!(log.prompt().as_deref(), Some("exact\n  text"));
    }

    #[test]
    fn a_lone_slash_command_is_not_the_prompt_when_a_request_follows() {
        let log = log_with_first_phase(vec![user("/clear"), user("move the button")]);
        assert_eq!(log.opening_user_count(), 2);
        assert_eq!(log.prompt().as_deref(), Some("move the button"));
        let init = log_with_first_phase(vec![user("/init")]);
        assert_eq!(init.prompt().as_deref(), Some("/init"));
    }

    #[test]
    fn user_words_after_agent_work_are_not_the_prompt() {
        let log = log_with_first_phase(vec![Block::prose("I looked around."), user("stop that")]);
        assert_eq!(log.opening_user_count(), 0);
        assert_eq!(log.prompt(), None);
    }
}
