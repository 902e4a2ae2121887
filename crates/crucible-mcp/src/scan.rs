//! One pass over a line as it is read, before any parser sees it: its
//! outermost `id`, how deep it nests and how many JSON values it holds.
//!
//! The `id` is what an oversized or broken line is answered with (found as
//! an oversized line streams past, without keeping it); depth and size are
//! what keep a line the parsers would choke on (a 16 MiB array of zeros
//! takes gigabytes as parsed values) from reaching them at all.

use rmcp::model::RequestId;

/// Streams over a JSON text fed in pieces.
#[derive(Debug, Default)]
pub struct LineScan {
    depth: u32,
    max_depth: u32,
    /// Arrays, objects and commas outside strings: one per value, near
    /// enough, and what a parser allocates for.
    values: u64,
    in_string: bool,
    escaped: bool,
    /// The object member name being read (only its first bytes matter).
    key: Option<Vec<u8>>,
    /// The member name just read was `id`: its value follows the colon.
    id_key: bool,
    /// The `id`'s value as written, while it is read.
    value: Option<Vec<u8>>,
    value_in_string: bool,
    /// The last outermost `id` read whole (JSON parsers keep the last of a
    /// key given twice).
    id: Option<Vec<u8>>,
}

impl LineScan {
    /// The longest `id` value kept (a number or a string).
    const MAX_ID: usize = 4096;

    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.value.is_some() && self.value_byte(b) {
                continue;
            }
            if self.in_string {
                self.string_byte(b);
            } else {
                self.structure_byte(b);
            }
        }
    }

    /// The outermost object's `id`, if one was read whole and is a number
    /// or a string.
    pub fn id(&self) -> Option<RequestId> {
        serde_json::from_slice(self.id.as_ref()?).ok()
    }

    /// How deep the deepest array or object is nested (the outermost is 1).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// About how many values the text holds.
    pub fn values(&self) -> u64 {
        self.values
    }

    fn string_byte(&mut self, b: u8) {
        if self.escaped {
            self.escaped = false;
        } else if b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.in_string = false;
            if let Some(key) = self.key.take() {
                self.id_key = key == b"id";
                return;
            }
        }
        if let Some(key) = &mut self.key
            && key.len() < 3
        {
            key.push(b);
        }
    }

    fn structure_byte(&mut self, b: u8) {
        match b {
            b'"' => {
                self.in_string = true;
                // A string where a member name may stand is read as one.
                self.key = (self.depth == 1).then(Vec::new);
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                self.values += 1;
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' => self.values += 1,
            b':' if self.depth == 1 && self.id_key => self.value = Some(Vec::new()),
            _ => {}
        }
        if !b.is_ascii_whitespace() && b != b'"' {
            self.id_key = false;
        }
    }

    /// One byte of the `id`'s value; `false` when the byte is not the
    /// value's and is to be read as structure (the `,` or `}` that ends
    /// it, or the `[`/`{` of a value that cannot be an id).
    fn value_byte(&mut self, b: u8) -> bool {
        let Some(value) = self.value.as_mut() else {
            return false;
        };
        if value.is_empty() && b.is_ascii_whitespace() {
            return true;
        }
        if !self.value_in_string && matches!(b, b',' | b'}' | b'\n' | b'{' | b'[') {
            let value = self.value.take();
            if !matches!(b, b'{' | b'[') {
                self.id = value;
            }
            return false;
        }
        if value.len() >= Self::MAX_ID {
            self.value = None;
            self.value_in_string = false;
            // The rest of a long string id is skipped as any string is.
            self.in_string = true;
            return true;
        }
        if self.value_in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.value_in_string = false;
            }
        } else if b == b'"' {
            self.value_in_string = true;
        }
        value.push(b);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(pieces: &[&str]) -> LineScan {
        let mut scan = LineScan::default();
        for piece in pieces {
            scan.feed(piece.as_bytes());
        }
        scan
    }

    fn id_of(pieces: &[&str]) -> Option<RequestId> {
        scan(pieces).id()
    }

    #[test]
    fn the_outer_id_is_found_wherever_it_stands() {
        let number = RequestId::Number(7);
        assert_eq!(
            id_of(&[r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#]),
            Some(number.clone())
        );
        // The TypeScript SDK writes the id last, after the params.
        assert_eq!(
            id_of(&[r#"{"method":"x","params":{"id":1,"s":"\"id\":2"},"id" : 7 }"#]),
            Some(number.clone())
        );
        assert_eq!(
            id_of(&[r#"{"id":"a,\"b}"#, r#"","x":1}"#]),
            Some(RequestId::String("a,\"b}".into()))
        );
        // Given twice, the last, as a parser reads it.
        assert_eq!(id_of(&[r#"{"id":1,"id":2}"#]), Some(RequestId::Number(2)));
        // Cut anywhere, the same.
        let text = r#"{"params":{"text":"{[\"id\":"},"id":42}"#;
        for cut in 0..text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(id_of(&[a, b]), Some(RequestId::Number(42)), "cut at {cut}");
        }
    }

    #[test]
    fn no_id_or_one_of_the_wrong_kind_is_none() {
        assert_eq!(id_of(&[r#"{"method":"notifications/x"}"#]), None);
        assert_eq!(id_of(&[r#"{"id":{"a":1},"method":"x"}"#]), None);
        assert_eq!(id_of(&[r#"{"id":null}"#]), None);
        assert_eq!(id_of(&[r#"{"idx":3,"params":{"id":4}}"#]), None);
        assert_eq!(id_of(&[r#"[{"id":3}]"#]), None);
        assert_eq!(id_of(&[r#"{"id":12"#]), None, "not read whole");
        let long = format!(r#"{{"id":"{}","x":{{"id":1}}}}"#, "a".repeat(5000));
        assert_eq!(
            id_of(&[&long]),
            None,
            "too long, and the inner id not taken"
        );
    }

    #[test]
    fn depth_and_values_are_counted_outside_strings() {
        let s = scan(&[r#"{"a":[1,2,[3]],"s":"[[[,,,"}"#]);
        assert_eq!(s.max_depth(), 3);
        assert_eq!(s.values(), 3 + 3);
        // After an id that is an object, structure is still followed.
        let s = scan(&[r#"{"id":{"a":[[1]]},"b":2}"#]);
        assert_eq!((s.max_depth(), s.id()), (4, None));
    }
}
