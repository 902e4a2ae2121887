//! A JSON text read for where its values are, not only what they are, so
//! that an edit can insert or take out a value and leave every other byte
//! of the file as the user wrote it (their indent, line ends, key order,
//! compact one-line entries). serde_json checks the text first; this only
//! finds the places, so it assumes valid JSON and gives up (`None`) on
//! anything else rather than guess.

/// A value and the bytes it spans in the text (`start..end`).
#[derive(Debug)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Str(String),
    /// A number, `true`, `false` or `null`: nothing cru reads.
    Scalar,
}

/// An object's `"key": value`; it spans `key_start..value.end`.
#[derive(Debug)]
pub(crate) struct Member {
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

impl Node {
    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(e) => Some(e),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.members()?
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }
}

/// The places of the values of `text` (valid JSON, checked before).
pub(crate) fn parse(text: &str) -> Option<Node> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    let node = reader.value()?;
    reader.skip_space();
    (reader.at == text.len()).then_some(node)
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b" \t\r\n".contains(b))
        {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn value(&mut self) -> Option<Node> {
        self.skip_space();
        let start = self.at;
        let kind = match self.peek()? {
            b'{' => Kind::Object(self.object()?),
            b'[' => Kind::Array(self.array()?),
            b'"' => Kind::Str(self.string()?),
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
                {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
                Kind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        serde_json::from_str(self.text.get(start..self.at)?).ok()
    }

    /// After a value in a list: true for `,` (another follows), false for
    /// the list's `close`.
    fn next_or_close(&mut self, close: u8) -> Option<bool> {
        self.skip_space();
        let b = self.peek()?;
        self.at += 1;
        match b {
            b',' => Some(true),
            b if b == close => Some(false),
            _ => None,
        }
    }

    fn object(&mut self) -> Option<Vec<Member>> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(members);
        }
        loop {
            self.skip_space();
            let key_start = self.at;
            let key = self.string()?;
            self.skip_space();
            (self.peek()? == b':').then_some(())?;
            self.at += 1;
            let value = self.value()?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            if !self.next_or_close(b'}')? {
                return Some(members);
            }
        }
    }

    fn array(&mut self) -> Option<Vec<Node>> {
        self.at += 1;
        let mut elements = Vec::new();
        self.skip_space();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(elements);
        }
        loop {
            elements.push(self.value()?);
            if !self.next_or_close(b']')? {
                return Some(elements);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_where_they_are_written() {
        let text = "{ \"a\" : [1, {\"b\":\"x\\\"y\"}],\r\n\t\"c\": {} }";
        let root = parse(text).unwrap();
        let a = root.get("a").unwrap();
        assert_eq!(&text[a.start..a.end], "[1, {\"b\":\"x\\\"y\"}]");
        let b = a.elements().unwrap()[1].get("b").unwrap();
        assert_eq!(b.as_str(), Some("x\"y"));
        let c = &root.members().unwrap()[1];
        assert_eq!(&text[c.key_start..c.value.end], "\"c\": {}");
        assert!(parse("{\"a\": 1,}").is_none());
        assert!(parse("[1] 2").is_none());
    }
}
