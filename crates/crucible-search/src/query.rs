//! The query language (docs/search.md): words, all of which must match;
//! `"phrases"`; `-word` to exclude; `a OR b`; `field:value` filters;
//! `pars*` prefixes. Parsed here, not by tantivy's query parser, because
//! the words must split as the tokenizer splits them and the fields are
//! ours.

/// A filter a query can name (`status:paused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterField {
    Status,
    Agent,
    Channel,
    Model,
    Project,
    Kind,
    Since,
    Until,
}

impl FilterField {
    const ALL: [(&'static str, Self); 8] = [
        ("status", Self::Status),
        ("agent", Self::Agent),
        ("channel", Self::Channel),
        ("model", Self::Model),
        ("project", Self::Project),
        ("kind", Self::Kind),
        ("since", Self::Since),
        ("until", Self::Until),
    ];

    fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }
}

/// The text an atom searches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    Word(String),
    Phrase(String),
    /// The letters before `*`.
    Prefix(String),
}

/// One clause: atoms joined by `OR`, or excluded with `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    pub any_of: Vec<Atom>,
    pub negated: bool,
}

/// A filter written in the query, with the column of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryFilter {
    pub field: FilterField,
    pub value: String,
    pub column: usize,
}

/// A parsed query: clauses that must all hold, and filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    pub clauses: Vec<Clause>,
    pub filters: Vec<QueryFilter>,
}

/// A query that cannot be read, with the 1-based column (in characters)
/// where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct QueryError {
    pub column: usize,
    pub message: String,
}

fn error(column: usize, message: impl Into<String>) -> QueryError {
    QueryError {
        column,
        message: message.into(),
    }
}

/// A token of the query text: its text, the column it starts at, and
/// whether it was quoted.
struct Lexeme {
    text: String,
    column: usize,
    quoted: bool,
    negated: bool,
}

fn lex(query: &str) -> Result<Vec<Lexeme>, QueryError> {
    let chars: Vec<char> = query.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let column = i + 1;
        let negated = chars[i] == '-'
            && chars
                .get(i + 1)
                .is_some_and(|c| !c.is_whitespace() && *c != '-');
        if negated {
            i += 1;
        }
        if chars[i] == '"' {
            let open = i + 1;
            let Some(len) = chars[open..].iter().position(|c| *c == '"') else {
                return Err(error(
                    open,
                    "the quote opened here is never closed (expected a closing `\"`)",
                ));
            };
            out.push(Lexeme {
                text: chars[open..open + len].iter().collect(),
                column,
                quoted: true,
                negated,
            });
            i = open + len + 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' {
            i += 1;
        }
        out.push(Lexeme {
            text: chars[start..i].iter().collect(),
            column,
            quoted: false,
            negated,
        });
    }
    Ok(out)
}

/// `name:value` when `name` is letters and the value does not start with
/// another `:` or a `/` (`std::io`, `http://` stay words).
fn as_filter(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once(':')?;
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic());
    (is_name && !value.starts_with([':', '/'])).then_some((name, value))
}

fn atom(lex: &Lexeme) -> Result<Atom, QueryError> {
    if lex.quoted {
        return Ok(Atom::Phrase(lex.text.clone()));
    }
    if let Some(prefix) = lex.text.strip_suffix('*') {
        if prefix.is_empty() || prefix.contains('*') {
            return Err(error(
                lex.column,
                "`*` must end a word of at least one letter (expected `pars*`)",
            ));
        }
        return Ok(Atom::Prefix(prefix.to_owned()));
    }
    Ok(Atom::Word(lex.text.clone()))
}

/// Parses `query`.
pub fn parse(query: &str) -> Result<ParsedQuery, QueryError> {
    let lexemes = lex(query)?;
    let mut parsed = ParsedQuery::default();
    let mut i = 0;
    while i < lexemes.len() {
        let lex = &lexemes[i];
        i += 1;
        if !lex.quoted && lex.text == "OR" {
            return Err(error(lex.column, "`OR` must stand between two terms"));
        }
        if !lex.quoted
            && !lex.negated
            && let Some((name, value)) = as_filter(&lex.text)
        {
            let Some(field) = FilterField::parse(name) else {
                let names: Vec<&str> = FilterField::ALL.iter().map(|(n, _)| *n).collect();
                return Err(error(
                    lex.column,
                    format!(
                        "unknown field `{name}` (expected one of {}; quote the word to search for it)",
                        names.join(", ")
                    ),
                ));
            };
            if value.is_empty() {
                return Err(error(
                    lex.column + name.chars().count() + 1,
                    format!("`{name}:` has no value (expected `{name}:VALUE`)"),
                ));
            }
            parsed.filters.push(QueryFilter {
                field,
                value: value.to_owned(),
                column: lex.column + name.chars().count() + 1,
            });
            continue;
        }
        let mut clause = Clause {
            any_of: vec![atom(lex)?],
            negated: lex.negated,
        };
        while lexemes
            .get(i)
            .is_some_and(|l| !l.quoted && !l.negated && l.text == "OR")
        {
            let Some(next) = lexemes.get(i + 1) else {
                return Err(error(
                    lexemes[i].column,
                    "`OR` must stand between two terms (expected a term after it)",
                ));
            };
            clause.any_of.push(atom(next)?);
            i += 2;
        }
        parsed.clauses.push(clause);
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_negations_and_or() {
        let q = parse(r#"flaky "id collision" -windows a OR b pars* status:paused"#).unwrap();
        assert_eq!(q.clauses.len(), 5);
        assert_eq!(q.clauses[1].any_of, [Atom::Phrase("id collision".into())]);
        assert!(q.clauses[2].negated);
        assert_eq!(
            q.clauses[3].any_of,
            [Atom::Word("a".into()), Atom::Word("b".into())]
        );
        assert_eq!(q.clauses[4].any_of, [Atom::Prefix("pars".into())]);
        assert_eq!(q.filters[0].field, FilterField::Status);
        assert_eq!(q.filters[0].column, 51);
    }

    #[test]
    fn code_is_not_a_field() {
        let q = parse("std::io http://x --no-verify").unwrap();
        assert_eq!(q.clauses.len(), 3);
        assert!(q.filters.is_empty());
    }

    #[test]
    fn errors_point_at_the_column() {
        assert_eq!(parse(r#"fix "race in"#).unwrap_err().column, 5);
        assert_eq!(parse("fix colour:red").unwrap_err().column, 5);
        assert_eq!(parse("fix OR").unwrap_err().column, 5);
    }
}
