//! Compact JSON serialisation into a `Vec<u8>` whose output is byte for byte that of
//! `serde_json::to_writer`, with faster strings.
//!
//! serde_json 1.0 escapes strings one byte at a time through a table (about ten
//! instructions a byte), which dominates answers carrying long texts (a 1 MiB resource read
//! spends ~10 M instructions there). Here strings are scanned eight bytes at a time for the
//! bytes JSON must escape (`< 0x20`, `"`, `\`) and clean runs are copied whole; the escapes
//! written are serde_json's (`\" \\ \b \f \n \r \t`, else `\u00xx` in lowercase hex; `/`,
//! DEL and non-ASCII are written as they are). Numbers, booleans and nulls are delegated to
//! serde_json, and the `$serde_json::private::` structs (`RawValue`) are handed to it whole,
//! so they come out as serde_json writes them.

use serde::ser::{self, Impossible, Serialize};
use serde_json::{Error, Result};

/// Appends `value` as compact JSON, exactly as `serde_json::to_writer(out, value)` would.
pub(crate) fn to_writer<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<()> {
    value.serialize(Ser(out))
}

/// Appends `s` as a JSON string, exactly as serde_json writes it.
#[inline(always)]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    // Short strings (most keys and names) are checked inline, in a word or two.
    if b.len() < 8 && tail_escape(b, 0).is_none() {
        out.reserve(b.len() + 2);
        out.push(b'"');
        out.extend_from_slice(b);
        out.push(b'"');
        return;
    }
    write_str_any(out, b);
}

fn write_str_any(out: &mut Vec<u8>, b: &[u8]) {
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0; // the clean run not yet copied begins here
    while let Some(i) = next_escape(b, start) {
        out.extend_from_slice(&b[start..i]);
        write_escape(out, b[i]);
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

/// Whether serde_json escapes byte `c` (as 0 or 1, so that folds over it vectorise).
#[inline(always)]
fn escapes(c: u8) -> u8 {
    (c < 0x20) as u8 | (c == b'"') as u8 | (c == b'\\') as u8
}

/// The index of the first byte at or after `i` that must be escaped.
#[inline]
fn next_escape(b: &[u8], mut i: usize) -> Option<usize> {
    // 64 bytes a step: a branch-free fold the compiler turns into SIMD compares (SSE2, NEON).
    while let Some(chunk) = b[i..].first_chunk::<64>() {
        if chunk.iter().fold(0, |acc, &c| acc | escapes(c)) != 0 {
            break;
        }
        i += 64;
    }
    // Then 8 bytes a step (SWAR), which also finds the byte in a chunk that has one.
    while let Some(word) = b[i..].first_chunk::<8>() {
        let m = escape_mask(u64::from_le_bytes(*word));
        if m != 0 {
            // The lowest flagged byte is exact (false flags only sit above a true one).
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    tail_escape(b, i)
}

/// [`next_escape`] for fewer than 8 bytes left after `i`: they are looked at as one word too.
#[inline(always)]
fn tail_escape(b: &[u8], i: usize) -> Option<usize> {
    let len = b.len();
    let n = len - i;
    if n == 0 {
        return None;
    }
    // The first flagged byte of the word.
    let first = |m: u64| (m != 0).then(|| (m.trailing_zeros() / 8) as usize);
    if len >= 8 {
        // The string's last 8 bytes, those before `i` (seen already) replaced by clean ones.
        let w = u64::from_le_bytes(*b.last_chunk::<8>()?);
        let keep = !0u64 << (8 * (8 - n));
        let k = first(escape_mask((w & keep) | (CLEAN & !keep)))?;
        Some(len - 8 + k)
    } else if n >= 4 {
        // The first 4 and the last 4 (overlapping) bytes.
        let lo = u32::from_le_bytes(*b[i..].first_chunk::<4>()?);
        let hi = u32::from_le_bytes(*b.last_chunk::<4>()?);
        let k = first(escape_mask(lo as u64 | (hi as u64) << 32))?;
        Some(if k < 4 { i + k } else { len + k - 8 })
    } else {
        // Bytes i, i + n/2 and len-1, in order, then clean ones.
        let at = [i, i + n / 2, len - 1];
        let w = b[at[0]] as u64 | (b[at[1]] as u64) << 8 | (b[at[2]] as u64) << 16 | (CLEAN & !0xff_ffff);
        Some(at[first(escape_mask(w))?])
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
/// Eight bytes that need no escape.
const CLEAN: u64 = LO * b'a' as u64;

/// High bit set in each byte of `w` that is `< 0x20`, `"` or `\` (and possibly in bytes above
/// such a byte, from the borrow; the lowest set byte is always a true one). A byte `>= 0x80`
/// is never flagged by itself (`& !w`), and below 0x80 `w - 0x20`, `(w ^ '"') - 1` and
/// `(w ^ '\\') - 1` have their high bit set only for the bytes sought.
#[inline(always)]
fn escape_mask(w: u64) -> u64 {
    let q = w ^ (LO * b'"' as u64);
    let bs = w ^ (LO * b'\\' as u64);
    (w.wrapping_sub(LO * 0x20) | q.wrapping_sub(LO) | bs.wrapping_sub(LO)) & !w & HI
}

#[cold]
fn write_escape(out: &mut Vec<u8>, c: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// The twelve `serialize_<number>` methods of a serializer over `self.0: &mut Vec<u8>`, each
/// handing the value to `$via(out, v)`.
macro_rules! number_methods {
    ($via:path) => {
        number_methods!(@ $via;
            serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64), serialize_i128(i128),
            serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64), serialize_u128(u128),
            serialize_f32(f32), serialize_f64(f64));
    };
    (@ $via:path; $($method:ident($ty:ty)),*) => {$(
        #[inline]
        fn $method(self, v: $ty) -> Result<()> {
            $via(self.0, v)
        }
    )*};
}

/// Writes a number as serde_json does (its integer and float formatting).
#[inline]
fn number<T: Serialize>(out: &mut Vec<u8>, v: T) -> Result<()> {
    v.serialize(&mut json(out))
}

/// serde_json's writer, for the scalars it formats (integers through itoa, floats through ryu).
#[inline(always)]
fn json(out: &mut Vec<u8>) -> serde_json::Serializer<&mut Vec<u8>> {
    serde_json::Serializer::new(out)
}

struct Ser<'a>(&'a mut Vec<u8>);

/// The names of the structs serde_json serialises its own way: `RawValue` (feature
/// `raw_value`) and `Number` (feature `arbitrary_precision`).
const RAW_VALUE: &str = "$serde_json::private::RawValue";
const NUMBER: &str = "$serde_json::private::Number";

impl<'a> ser::Serializer for Ser<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.0.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    number_methods!(number);
    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        write_str(self.0, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(self.0, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        ser::Serializer::serialize_bytes(&mut json(self.0), v)
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.serialize_unit()
    }
    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }
    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }
    #[inline]
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
    }
    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.0.push(b'{');
        write_str(self.0, variant);
        self.0.push(b':');
        value.serialize(Ser(&mut *self.0))?;
        self.0.push(b'}');
        Ok(())
    }
    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a>> {
        self.0.push(b'[');
        if len == Some(0) {
            self.0.push(b']');
            Ok(Compound { out: self.0, state: State::Empty })
        } else {
            Ok(Compound { out: self.0, state: State::First })
        }
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>> {
        self.serialize_seq(Some(len))
    }
    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>> {
        self.0.push(b'{');
        write_str(self.0, variant);
        self.0.push(b':');
        self.serialize_seq(Some(len))
    }
    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a>> {
        self.0.push(b'{');
        if len == Some(0) {
            self.0.push(b'}');
            Ok(Compound { out: self.0, state: State::Empty })
        } else {
            Ok(Compound { out: self.0, state: State::First })
        }
    }
    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>> {
        if name == RAW_VALUE || name == NUMBER {
            return Ok(Compound { out: self.0, state: State::Private(name) });
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>> {
        self.0.push(b'{');
        write_str(self.0, variant);
        self.0.push(b':');
        self.serialize_map(Some(len))
    }
}

enum State {
    Empty,
    First,
    Rest,
    /// A serde_json private struct: its one field goes to serde_json.
    Private(&'static str),
}

struct Compound<'a> {
    out: &'a mut Vec<u8>,
    state: State,
}

impl Compound<'_> {
    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        if !matches!(self.state, State::First) {
            self.out.push(b',');
        }
        self.state = State::Rest;
        value.serialize(Ser(&mut *self.out))
    }

    #[inline]
    fn close(&mut self, c: u8) {
        if !matches!(self.state, State::Empty) {
            self.out.push(c);
        }
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b']');
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b']');
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b']');
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b']');
        self.out.push(b'}');
        Ok(())
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        if !matches!(self.state, State::First) {
            self.out.push(b',');
        }
        self.state = State::Rest;
        key.serialize(KeySer(&mut *self.out))
    }
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.out.push(b':');
        value.serialize(Ser(&mut *self.out))
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        if let State::Private(name) = self.state {
            return serde_json::to_writer(&mut *self.out, &PrivateField { name, key, value });
        }
        if !matches!(self.state, State::First) {
            self.out.push(b',');
        }
        self.state = State::Rest;
        write_str(self.out, key);
        self.out.push(b':');
        value.serialize(Ser(&mut *self.out))
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        if !matches!(self.state, State::Private(_)) {
            self.close(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    #[inline]
    fn end(mut self) -> Result<()> {
        self.close(b'}');
        self.out.push(b'}');
        Ok(())
    }
}

/// One field of a serde_json private struct, serialised by serde_json itself (which writes
/// nothing for the struct around it).
struct PrivateField<'v, T: ?Sized> {
    name: &'static str,
    key: &'static str,
    value: &'v T,
}

impl<T: Serialize + ?Sized> Serialize for PrivateField<'_, T> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeStruct;
        let mut st = s.serialize_struct(self.name, 1)?;
        st.serialize_field(self.key, self.value)?;
        st.end()
    }
}

/// Map keys, as serde_json writes them: strings (and chars, unit variants) escaped; integers,
/// booleans and finite floats quoted (left to serde_json); anything else an error.
struct KeySer<'a>(&'a mut Vec<u8>);

/// Lets serde_json write a non-string key: serialises `{key:null}` and keeps `key`.
fn key_by_serde_json<K: Serialize>(out: &mut Vec<u8>, key: K) -> Result<()> {
    struct OneKey<K>(K);
    impl<K: Serialize> Serialize for OneKey<K> {
        fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(&self.0, &())?;
            m.end()
        }
    }
    let mut tmp = Vec::new();
    serde_json::to_writer(&mut tmp, &OneKey(key))?;
    out.extend_from_slice(&tmp[1..tmp.len() - b":null}".len()]);
    Ok(())
}

fn key_must_be_a_string() -> Error {
    <Error as ser::Error>::custom("key must be a string")
}

impl ser::Serializer for KeySer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(self.0, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        write_str(self.0, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<()> {
        write_str(self.0, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    // serde_json's rules for keys that are not strings: quoted numbers and booleans.
    fn serialize_bool(self, v: bool) -> Result<()> {
        key_by_serde_json(self.0, v)
    }
    number_methods!(key_by_serde_json);
    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::types::*;
    use serde_json::json;

    fn check<T: Serialize + ?Sized>(value: &T) {
        let want = serde_json::to_vec(value);
        let mut got = b"prefix".to_vec();
        let r = to_writer(&mut got, value);
        match want {
            Ok(want) => {
                assert!(r.is_ok());
                assert_eq!(&got[..6], b"prefix");
                assert_eq!(String::from_utf8_lossy(&got[6..]), String::from_utf8_lossy(&want));
                assert_eq!(&got[6..], &want[..]);
            }
            Err(_) => assert!(r.is_err()),
        }
    }

    #[test]
    fn every_ascii_byte_and_utf8() {
        for c in 0u8..=0x7f {
            let s = (c as char).to_string();
            check(&s);
            check(&format!("ab{s}cdefghij{s}{s}klmnopqrstu{s}"));
        }
        let all: String = (0u8..=0x7f).map(|c| c as char).collect();
        check(&all);
        check(&all.repeat(3));
        for s in ["é", "日本語テキスト", "😀 emoji \u{1F600}\u{0}", "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10ffff}"]
        {
            check(s);
            check(&s.repeat(17));
        }
        for c in ['\0', '\u{1f}', '"', '\\', '/', 'x', 'é', '😀'] {
            check(&c);
        }
    }

    #[test]
    fn every_length_and_position() {
        // Lengths up to two 64-byte chunks and a tail, an escapable byte at every position.
        let specials =
            ["\0", "\x01", "\x08", "\t", "\n", "\x0b", "\x0c", "\r", "\x1f", "\"", "\\", "\x7f", "é", "😀", "/", " "];
        for len in 0..=140usize {
            // Clean bytes that a borrow out of an escapable byte below them could flag.
            let filler = b" #]!a~Z0[$";
            let clean: String = (0..len).map(|i| filler[i % filler.len()] as char).collect();
            check(&clean);
            for pos in 0..len {
                for sp in specials {
                    let mut s = clean[..pos].to_string();
                    s.push_str(sp);
                    s.push_str(&clean[pos + 1..]);
                    check(&s);
                    // Two specials: this one and one near the end.
                    if len > 2 {
                        let mut t = s.clone();
                        t.push('"');
                        t.push_str("xyz");
                        check(&t);
                    }
                }
            }
        }
        // Bytes just below/above the thresholds, in every lane of a word.
        for b in [0x1fu8, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f] {
            for lane in 0..16 {
                let mut v = vec![b'a'; 24];
                v[lane] = b;
                v[lane + 1] = 0x20;
                check(std::str::from_utf8(&v).unwrap());
            }
        }
    }

    #[test]
    fn long_strings() {
        let clean = "0123456789abcdef".repeat(65536);
        check(&clean);
        let mut dirty = clean.clone();
        dirty.insert_str(1_000_001, "\n\"\\\u{1}");
        check(&dirty);
        check(&"line one\nline \"two\"\t\\ end\r\n".repeat(5000));
        // A pseudo-random mix of everything.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let pool = ['a', 'b', ' ', '\n', '"', '\\', '\0', '\x1f', '\x7f', 'é', '日', '😀', '/', '~'];
        for n in [1usize, 7, 8, 9, 63, 64, 65, 1000, 10_000] {
            let s: String = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    pool[(x % pool.len() as u64) as usize]
                })
                .collect();
            check(&s);
        }
    }

    #[test]
    fn values_and_scalars() {
        check(&json!(null));
        check(&json!({}));
        check(&json!([]));
        check(
            &json!({"a": [1, -2, 3.5, 1e300, -0.0, 18446744073709551615u64, -9223372036854775808i64, true, false, null],
            "k\"ey\n": {"nested": ["x\ty", {}, []]}, "": ""}),
        );
        check(&(
            1u8,
            -1i8,
            300u16,
            -300i16,
            70000u32,
            -70000i32,
            u128::MAX,
            i128::MIN,
            1.5f32,
            f64::NAN,
            f32::INFINITY,
        ));
        check(&vec![Some("a"), None]);
        check(&serde_bytes_like(&[0, 1, 255]));
        check(&std::collections::BTreeMap::from([(1i32, "one"), (-2, "two")]));
        check(&std::collections::BTreeMap::from([(true, 1)]));
        check(&std::collections::BTreeMap::from([('c', 1)]));
        check(&std::collections::BTreeMap::from([(vec![1], 1)])); // error in both
        let raw = serde_json::value::RawValue::from_string("{\"raw\" : [1, 2]}".into()).unwrap();
        check(&raw);
        check(&json!({"r": 1}));
        check(&vec![raw.clone(), raw]);

        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(String),
            Tuple(u8, String),
            Struct { a: String, b: Vec<u8> },
            EmptyTuple(),
            EmptyStruct {},
        }
        #[derive(serde::Serialize)]
        #[serde(tag = "type", rename_all = "camelCase")]
        enum Tagged {
            A { x: String },
            B,
        }
        #[derive(serde::Serialize)]
        struct Unit;
        #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
        struct Newtype(String);
        #[derive(serde::Serialize)]
        struct Tup(u8, String);
        #[derive(serde::Serialize)]
        struct Empty {}
        check(&vec![E::Unit, E::New("n\n".into()), E::Tuple(1, "t".into()), E::EmptyTuple(), E::EmptyStruct {}]);
        check(&E::Struct { a: "a\"".into(), b: vec![] });
        check(&vec![Tagged::A { x: "é".into() }, Tagged::B]);
        check(&(Unit, Newtype("x\\".into()), Tup(2, "u".into()), Empty {}));
        check(&std::collections::BTreeMap::from([(Newtype("k\u{1}".into()), E::Unit)]));
    }

    fn serde_bytes_like(b: &[u8]) -> impl Serialize + '_ {
        struct B<'a>(&'a [u8]);
        impl Serialize for B<'_> {
            fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        B(b)
    }

    #[test]
    fn protocol_results() {
        let big = "0123456789abcdef".repeat(65536);
        let read: ReadResourceResult = serde_json::from_value(json!({
            "contents": [
                {"uri": "mem://big", "mimeType": "text/plain", "text": big},
                {"uri": "mem://bin", "blob": "AAEC/w==", "_meta": {"x": "y\n"}},
            ],
            "_meta": {"k": [1, 2.5, "s"]},
        }))
        .unwrap();
        check(&read);
        let call: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello \"world\"\n\u{0}é😀"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a b", "text": "t\tt"}},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
            ],
            "structuredContent": {"a": 1, "b": [true, null]},
            "isError": false,
        }))
        .unwrap();
        check(&call);
        check(&CallToolResult::error("bad\n\"thing\""));
    }
}
