//! Compact JSON, byte for byte what `serde_json::to_writer` writes, with a
//! faster string escaper: a sidecar is mostly tool results, long strings
//! that serde_json's escaper walks a byte at a time (a tenth of an
//! import's CPU). This one skips eight bytes at a time while none of them
//! needs escaping.
//!
//! Only the shapes a sidecar record takes are written here (structs, maps
//! with string keys, sequences, options, scalars); anything else is
//! [`Unsupported`], and [`to_vec`]'s caller writes that record with
//! serde_json instead, so the bytes never depend on what is supported.

use serde::Serialize;
use serde::ser::{self, Impossible};

/// A shape this writer leaves to serde_json.
#[derive(Debug)]
pub(crate) struct Unsupported(String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not written by compact_json: {}", self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(what.to_owned()))
}

/// Appends `value` as compact JSON to `out`; on [`Unsupported`], `out` is
/// left as it was.
pub(crate) fn append<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), Unsupported> {
    let start = out.len();
    let written = value.serialize(Writer { out: &mut *out });
    if written.is_err() {
        out.truncate(start);
    }
    written
}

/// `value` as serde_json writes it: with this writer when it can, else
/// with serde_json.
pub(crate) fn append_or_serde<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    if append(out, value).is_err() {
        // Serializing plain data to a Vec cannot fail.
        serde_json::to_writer(&mut *out, value).expect("serializes");
    }
}

/// Bytes of a string that JSON escapes: `"`, `\` and controls below 0x20.
const fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The high bit of each of the eight bytes of `w` (little-endian) that may
/// need escaping: the lowest one set is exact (the first byte that needs
/// it), a byte after it may be flagged too; zero when none does.
const fn escape_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // `"` is 0x22, `\` 0x5C.
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * 0x22);
    let backslash = w ^ (ONES * 0x5C);
    let is_quote = quote.wrapping_sub(ONES) & !quote;
    let is_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | is_quote | is_backslash) & HIGH
}

/// Appends `s` quoted and escaped as serde_json does: the short escapes
/// for `\b \t \n \f \r " \`, `\u00xx` (lower-case hex) for other controls,
/// everything else as it is.
pub(crate) fn append_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let mask = escape_mask(w);
            if mask == 0 {
                i += 8;
                continue;
            }
            // Straight to the first byte that needs escaping (tool results
            // have a newline every line; a byte at a time up to it was
            // most of a sidecar's writing).
            i += (mask.trailing_zeros() / 8) as usize;
        }
        let b = bytes[i];
        if needs_escape(b) {
            out.extend_from_slice(&bytes[run..i]);
            push_escape(out, b);
            run = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

fn push_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0C => b'f',
        b'\r' => b'r',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xF)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends a number as serde_json formats it (integers in decimal, floats
/// the shortest way that reads back, non-finite ones as `null`).
fn append_number<T: Serialize>(out: &mut Vec<u8>, n: T) {
    serde_json::to_writer(&mut *out, &n).expect("a number serializes");
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// An object or array being written: whether an element was written yet.
struct Compound<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
    }
}

macro_rules! numbers {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, v: $t) -> Result<(), Unsupported> {
            append_number(self.out, v);
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128, serialize_f32: f32, serialize_f64: f64);

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        append_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        append_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsupported> {
        unsupported("bytes")
    }

    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.out.push(b'{');
        append_str(self.out, variant);
        self.out.push(b':');
        value.serialize(Writer {
            out: &mut *self.out,
        })?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        self.out.push(b'[');
        Ok(Compound {
            out: self.out,
            first: true,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        unsupported("tuple variant")
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        self.out.push(b'{');
        Ok(Compound {
            out: self.out,
            first: true,
        })
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Compound<'a>, Unsupported> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        unsupported("struct variant")
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.comma();
        value.serialize(Writer {
            out: &mut *self.out,
        })
    }

    fn end(self) -> Result<(), Unsupported> {
        self.out.push(b']');
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.comma();
        key.serialize(Key {
            out: &mut *self.out,
        })?;
        self.out.push(b':');
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        value.serialize(Writer {
            out: &mut *self.out,
        })
    }

    fn end(self) -> Result<(), Unsupported> {
        self.out.push(b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        ser::SerializeMap::serialize_key(self, key)?;
        ser::SerializeMap::serialize_value(self, value)
    }

    fn end(self) -> Result<(), Unsupported> {
        ser::SerializeMap::end(self)
    }
}

/// A map key: a string (serde_json quotes numbers and booleans too; those
/// are left to it).
struct Key<'a> {
    out: &'a mut Vec<u8>,
}

macro_rules! not_a_key {
    ($($method:ident: $t:ty),*) => {
        $(fn $method(self, _: $t) -> Result<(), Unsupported> {
            unsupported("a key that is not a string")
        })*
    };
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Impossible<(), Unsupported>;
    type SerializeTuple = Impossible<(), Unsupported>;
    type SerializeTupleStruct = Impossible<(), Unsupported>;
    type SerializeTupleVariant = Impossible<(), Unsupported>;
    type SerializeMap = Impossible<(), Unsupported>;
    type SerializeStruct = Impossible<(), Unsupported>;
    type SerializeStructVariant = Impossible<(), Unsupported>;

    not_a_key!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_bytes: &[u8]);

    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        append_str(self.out, v);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_unit(self) -> Result<(), Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        unsupported("a key that is not a string")
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        unsupported("a key that is not a string")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;
    use serde_json::json;

    fn same_as_serde<T: Serialize + ?Sized + std::fmt::Debug>(value: &T) {
        let mut ours = b"prefix".to_vec();
        append_or_serde(&mut ours, value);
        let mut theirs = b"prefix".to_vec();
        serde_json::to_writer(&mut theirs, value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs),
            "{value:?}"
        );
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        // Each byte below 0x80 alone, and at every offset of a word, so that
        // the eight-byte skip is tried at each position.
        for b in 0u8..0x80 {
            let c = char::from(b);
            for pad in 0..17 {
                let s: String = "a".repeat(pad) + &c.to_string() + &"é".repeat(pad % 5);
                same_as_serde(&s);
                same_as_serde(&(s.clone() + &s));
            }
        }
        for s in [
            "",
            "plain ascii that runs for more than eight bytes",
            "ünïcödé → 日本語 🎉 and \u{7f} and \u{2028}",
            "\"quoted\"\\back\\slash\n\r\t\u{8}\u{c}\u{1}\u{1f}",
            "ends with a quote\"",
            "\\",
        ] {
            same_as_serde(s);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::arbitrary::any::<char>(),
                    (0u8..0x80).prop_map(char::from),
                ],
                0..80,
            )
        ) {
            same_as_serde(&chars.into_iter().collect::<String>());
        }
    }

    #[test]
    fn values_and_records_are_written_as_serde_json_writes_them() {
        let values = [
            json!(null),
            json!(true),
            json!([
                1,
                -2,
                3.5,
                1e300,
                -0.0,
                18_446_744_073_709_551_615_u64,
                i64::MIN
            ]),
            json!({"b": {"z": [], "a": {}}, "a": "x\ny", "": null, "k\"ey": [[1], {"n": false}]}),
            json!(0.1),
            json!(123_456_789.123_456_79),
        ];
        for v in &values {
            same_as_serde(v);
        }
        let record = crucible_core::DataRecord::Call(crucible_core::CallData {
            phase: 2,
            call: 1,
            tool: "Bash".into(),
            id: Some("toolu_1".into()),
            arguments: Some(json!({"command": "ls -la\n", "n": 3})),
            result: Some(json!("line 1\nline \"2\"\t\u{1}")),
            exit_code: Some(-1),
            ..crucible_core::CallData::default()
        });
        same_as_serde(&record);
        same_as_serde(&Some(record));
        same_as_serde(&(1, "two", [3.0f32]));
    }

    #[test]
    fn a_shape_left_to_serde_json_leaves_the_buffer_as_it_was() {
        use std::collections::BTreeMap;
        let map: BTreeMap<u32, &str> = [(1, "one"), (2, "two")].into_iter().collect();
        let mut out = b"kept".to_vec();
        assert!(append(&mut out, &map).is_err());
        assert_eq!(out, b"kept");
        same_as_serde(&map);
        same_as_serde(&[b"bytes".as_slice()]);
    }
}
