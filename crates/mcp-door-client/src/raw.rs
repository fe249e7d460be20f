//! JSON text read and edited in place, never decoded and re-encoded
//! (HIP-0300 §2.2: a forwarded `tools/call` sends the caller's params and
//! returns the door's `result` verbatim).
//!
//! [`Object`] reads the members of one JSON object text: each member's
//! name (decoded) and its value as the exact text the document spells it
//! with ([`RawValue`], borrowed from the document). Nothing below a member
//! is decoded, so a number too large for `f64`, `-0`, `1E2`, the members'
//! order and `\u` escapes (lone UTF-16 surrogates included, which no
//! `String` can hold) stay as written. [`splice`] applies text edits at
//! byte offsets found that way.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The members of one JSON object text, in the order written.
#[derive(Debug)]
pub(crate) struct Object<'a> {
    members: Vec<(Cow<'a, [u8]>, &'a RawValue)>,
}

/// What a JSON text turned out to be.
pub(crate) enum Parsed<'a> {
    /// An object, with its members.
    Object(Object<'a>),
    /// Valid JSON that is not an object.
    Other,
}

impl<'a> Object<'a> {
    /// Reads `text`, a whole JSON document.
    ///
    /// Errors: the text is not one JSON value (syntax, end of input,
    /// trailing characters), or it is a string or a number that
    /// `serde_json` cannot decode (a lone surrogate escape, `1e400`).
    pub(crate) fn parse(text: &'a str) -> Result<Parsed<'a>, serde_json::Error> {
        let mut reader = serde_json::Deserializer::from_str(text);
        let parsed = (&mut reader).deserialize_any(ObjectVisitor)?;
        reader.end()?;
        Ok(parsed)
    }

    /// [`Object::parse`] of bytes (which must be UTF-8 where they matter:
    /// inside strings and raw member values).
    pub(crate) fn parse_slice(bytes: &'a [u8]) -> Result<Parsed<'a>, serde_json::Error> {
        let mut reader = serde_json::Deserializer::from_slice(bytes);
        let parsed = (&mut reader).deserialize_any(ObjectVisitor)?;
        reader.end()?;
        Ok(parsed)
    }

    /// The value of the member `name` (the last one when the name is
    /// repeated, as `serde_json` and most JSON readers take it).
    pub(crate) fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.members
            .iter()
            .rev()
            .find(|(key, _)| key.as_ref() == name.as_bytes())
            .map(|(_, value)| *value)
    }

    /// Whether a member is called `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The value of the last member written, `None` for `{}`.
    pub(crate) fn last_value(&self) -> Option<&'a RawValue> {
        self.members.last().map(|(_, value)| *value)
    }
}

/// Visits one JSON value: an object's members, anything else skipped.
struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Parsed<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            members.push((key, map.next_value::<&'de RawValue>()?));
        }
        Ok(Parsed::Object(Object { members }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Parsed::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Parsed::Other)
    }
}

/// A member name as bytes: decoded escapes, and a lone surrogate escape
/// as its WTF-8 bytes instead of an error, so no name can fail the read.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, [u8]>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_bytes(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, [u8]>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(bytes))
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
        Ok(Cow::Owned(bytes.to_vec()))
    }
}

/// The text of a JSON string value, `None` when `value` is not a string.
/// Each lone surrogate escape, which no `String` holds, becomes one U+FFFD
/// (so the text is lossy only for such strings).
pub(crate) fn lossy_string(value: &RawValue) -> Option<String> {
    if !value.get().starts_with('"') {
        return None;
    }
    if let Ok(text) = serde_json::from_str::<String>(value.get()) {
        return Some(text);
    }
    let mut reader = serde_json::Deserializer::from_str(value.get());
    let bytes = (&mut reader).deserialize_bytes(KeyVisitor).ok()?;
    Some(from_wtf8_lossy(&bytes))
}

/// WTF-8 bytes (UTF-8 that may hold encoded surrogates, 0xED 0xA0..=0xBF
/// 0x80..=0xBF) as text: each surrogate, and each other invalid sequence,
/// becomes one U+FFFD.
fn from_wtf8_lossy(mut bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                text.push_str(valid);
                return text;
            }
            Err(error) => {
                let (valid, rest) = bytes.split_at(error.valid_up_to());
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                text.push('\u{fffd}');
                let surrogate = matches!(rest, [0xED, 0xA0..=0xBF, 0x80..=0xBF, ..]).then_some(3);
                let skip = surrogate.or(error.error_len()).unwrap_or(rest.len());
                bytes = &rest[skip..];
            }
        }
    }
}

/// Where `inner`, a value read out of `outer`, starts in `outer`, in
/// bytes; `None` when it does not lie inside `outer`.
pub(crate) fn offset_in(outer: &str, inner: &RawValue) -> Option<usize> {
    let start = (inner.get().as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    (start + inner.get().len() <= outer.len()).then_some(start)
}

/// One text edit: the bytes `start..end` are replaced by `text` (an
/// insertion when `start == end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// First byte replaced.
    pub(crate) start: usize,
    /// One past the last byte replaced.
    pub(crate) end: usize,
    /// What goes there.
    pub(crate) text: String,
}

/// `text` with `edits` applied; `None` when an edit does not fall on
/// character boundaries inside `text`, or the edits overlap. The edits
/// may come in any order.
pub(crate) fn splice<'t>(text: &'t str, edits: &[Edit]) -> Option<Cow<'t, str>> {
    if edits.is_empty() {
        return Some(Cow::Borrowed(text));
    }
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|edit| (edit.start, edit.end));
    let added: usize = sorted.iter().map(|edit| edit.text.len()).sum();
    let mut out = String::with_capacity(text.len() + added);
    let mut copied = 0;
    for edit in sorted {
        if edit.start < copied || edit.end < edit.start {
            return None;
        }
        out.push_str(text.get(copied..edit.start)?);
        out.push_str(&edit.text);
        copied = edit.end;
    }
    out.push_str(text.get(copied..)?);
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Object<'_> {
        match Object::parse(text) {
            Ok(Parsed::Object(object)) => object,
            Ok(Parsed::Other) => panic!("not an object: {text}"),
            Err(error) => panic!("not JSON: {text}: {error}"),
        }
    }

    #[test]
    fn members_keep_their_exact_text() {
        let text = r#"{"b":1, "a" : 2,"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud800","o":{ "k" : [ 1 ] }}"#;
        let members = object(text);
        let spelled = |name: &str| members.get(name).map(RawValue::get);
        assert_eq!(spelled("b"), Some("1"));
        assert_eq!(spelled("a"), Some("2"));
        assert_eq!(spelled("n"), Some("12345678901234567890123"));
        assert_eq!(spelled("z"), Some("-0"));
        assert_eq!(spelled("e"), Some("1E2"));
        assert_eq!(spelled("s"), Some(r#""\u00e9\ud800""#));
        assert_eq!(spelled("o"), Some(r#"{ "k" : [ 1 ] }"#));
        assert_eq!(spelled("x"), None);
        assert_eq!(
            members.last_value().map(RawValue::get),
            Some(r#"{ "k" : [ 1 ] }"#)
        );
    }

    #[test]
    fn names_are_decoded_and_the_last_repeat_wins() {
        let members = object(r#"{"n\u0061me":"first","\ud800":3,"name":"second"}"#);
        assert_eq!(members.get("name").map(RawValue::get), Some(r#""second""#));
        assert_eq!(members.members.len(), 3);
        assert_eq!(members.members[1].0.as_ref(), b"\xED\xA0\x80");
        assert!(!members.has("\u{fffd}"));
        assert!(object("{}").last_value().is_none());
    }

    #[test]
    fn other_values_and_broken_text_are_told_apart() {
        for other in ["[1,{\"a\":2}]", "\"s\"", "7", "-0.5", "true", "null"] {
            assert!(matches!(Object::parse(other), Ok(Parsed::Other)), "{other}");
        }
        for broken in [
            "",
            "{",
            "{]",
            "[1,}",
            "{\"a\":1} x",
            "\"\\ud800\"",
            "<html>",
        ] {
            assert!(Object::parse(broken).is_err(), "{broken}");
        }
        assert!(matches!(
            Object::parse_slice(b" {\"a\":1} "),
            Ok(Parsed::Object(_))
        ));
    }

    #[test]
    fn strings_are_read_lossily_only_when_they_must_be() {
        let raw = |text: &str| RawValue::from_string(text.to_owned()).expect("raw");
        assert_eq!(lossy_string(&raw(r#""agents""#)).as_deref(), Some("agents"));
        assert_eq!(lossy_string(&raw(r#""\u00e9""#)).as_deref(), Some("é"));
        assert_eq!(
            lossy_string(&raw(r#""a\ud800b""#)).as_deref(),
            Some("a\u{fffd}b")
        );
        assert_eq!(
            lossy_string(&raw(r#""\udc00\ud800\ud83d\ude00""#)).as_deref(),
            Some("\u{fffd}\u{fffd}\u{1f600}")
        );
        assert_eq!(lossy_string(&raw("42")), None);
        assert_eq!(lossy_string(&raw("null")), None);
    }

    #[test]
    fn wtf8_is_read_with_one_replacement_per_bad_sequence() {
        assert_eq!(
            from_wtf8_lossy(b"a\xED\xA0\x80b\xFFc\xE2\x82"),
            "a\u{fffd}b\u{fffd}c\u{fffd}"
        );
        assert_eq!(from_wtf8_lossy("é".as_bytes()), "é");
    }

    #[test]
    fn offsets_point_into_the_outer_text() {
        let text = r#"{"a":[1],"b" : "x"}"#;
        let members = object(text);
        let b = members.get("b").expect("b");
        assert_eq!(offset_in(text, b), Some(15));
        assert_eq!(offset_in("elsewhere", b), None);
    }

    #[test]
    fn splices_apply_in_order_and_refuse_overlaps() {
        let edit = |start, end, text: &str| Edit {
            start,
            end,
            text: text.to_owned(),
        };
        assert_eq!(splice("abcdef", &[]).as_deref(), Some("abcdef"));
        assert_eq!(
            splice(
                "abcdef",
                &[edit(6, 6, "!"), edit(1, 3, "XY"), edit(0, 0, ">")]
            )
            .as_deref(),
            Some(">aXYdef!")
        );
        assert_eq!(splice("abcdef", &[edit(1, 3, ""), edit(2, 4, "")]), None);
        assert_eq!(splice("abcdef", &[edit(5, 9, "")]), None);
        assert_eq!(splice("é", &[edit(1, 1, "x")]), None);
    }
}
