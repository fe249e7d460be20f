//! One pass over a `tools/call`'s params ([`scan`]): the tool's name, its
//! arguments (the object a forwarded call is built from), the revision
//! `_meta` names, and the checks the door makes on them, all read at once
//! from the params' text, the arguments built as the JSON value they are
//! and nothing else kept.
//!
//! The pass answers only for plain params: those the door's full reading
//! (the params decoded as JSON, counted, their revision checked, their
//! repeated keys looked for, then decoded as `tools/call` params, each in
//! turn) takes as they are, with the very same name, arguments and
//! revision. Anything else (a key written twice or in another case, a
//! member of the wrong type, text that does not read) is left to that
//! reading, which answers it in its own words.

use std::borrow::Cow;
use std::fmt;

use mcp_proto::{JsonObject, meta};
use serde::de::{self, DeserializeSeed, Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// What [`scan`] reads from plain `tools/call` params.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scanned {
    /// `name`: the tool called.
    pub name: String,
    /// `arguments`, `None` when absent or `null`.
    pub arguments: Option<JsonObject>,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]` when it is a
    /// string.
    pub revision: Option<String>,
}

/// Reads `params`, a `tools/call`'s params as written, in one pass;
/// `None` unless they are plain (see the module docs): an object whose
/// `name` is a string, whose `arguments` are absent, `null` or an object
/// and whose `_meta` is absent, `null` or an object, with no key the door
/// reads (`name`, `arguments`, `_meta`) written twice or in another case
/// (as [`mcp_proto::read_as`] reads them), no key of the arguments written
/// twice (`op` and `input` as `read_as` reads them) nor any key of any
/// object inside them, nothing deeper than serde_json reads, and no
/// object key serde_json's own value reader treats specially. Escaped
/// lone surrogates read as U+FFFD, as everywhere else in the door.
pub(crate) fn scan(params: &str) -> Option<Scanned> {
    let text = mcp_proto::recover::replace_lone_surrogates(params);
    let mut de = serde_json::Deserializer::from_str(&text);
    let scanned = de.deserialize_any(Params).ok()?;
    de.end().ok()?;
    Some(scanned)
}

/// [`scan`] as a part of a larger pass: the params read where they stand
/// in a message's text, as written (a string holding an escaped lone
/// surrogate, which `scan` would read as U+FFFD, is not plain here).
pub(crate) struct PlainParams;

impl<'de> DeserializeSeed<'de> for PlainParams {
    type Value = Scanned;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Scanned, D::Error> {
        d.deserialize_any(Params)
    }
}

/// The error that ends a pass over params that are not plain: the full
/// reading answers them (its text is never shown).
fn not_plain<E: de::Error>() -> E {
    E::custom("not plain")
}

/// Object keys that serde_json's value reader takes as markers rather
/// than keys (its raw values and, with `arbitrary_precision`, numbers).
fn special(key: &str) -> bool {
    key.starts_with("$serde_json::private::")
}

/// An object key, borrowed from the text when it has no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
        if special(key) {
            return Err(not_plain());
        }
        Ok(Key(Cow::Borrowed(key)))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key<'de>, E> {
        if special(key) {
            return Err(not_plain());
        }
        Ok(Key(Cow::Owned(key.to_owned())))
    }
}

/// The params object.
struct Params;

impl<'de> Visitor<'de> for Params {
    type Value = Scanned;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scanned, A::Error> {
        let mut name: Option<String> = None;
        let mut arguments: Option<Option<JsonObject>> = None;
        let mut revision: Option<Option<String>> = None;
        while let Some(Key(key)) = map.next_key()? {
            // The members as written skip the case-folding comparison.
            let read = match &*key {
                "name" => Some("name"),
                "arguments" => Some("arguments"),
                "_meta" => None,
                other => mcp_proto::read_as(other, &["name", "arguments"]),
            };
            match read {
                // `Name`: a reader ignoring case sees a second `name`.
                Some(member) if member != key => return Err(not_plain()),
                Some("name") => {
                    if name.is_some() {
                        return Err(not_plain());
                    }
                    name = Some(map.next_value_seed(Name)?);
                }
                Some(_) => {
                    if arguments.is_some() {
                        return Err(not_plain());
                    }
                    arguments = Some(map.next_value_seed(Arguments)?);
                }
                None if key == "_meta" => {
                    if revision.is_some() {
                        return Err(not_plain());
                    }
                    revision = Some(map.next_value_seed(MetaObject)?);
                }
                None => map.next_value_seed(Skip)?,
            }
        }
        Ok(Scanned {
            name: name.ok_or_else(not_plain)?,
            arguments: arguments.flatten(),
            revision: revision.flatten(),
        })
    }
}

/// `name`: a string.
struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        Ok(value.to_owned())
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<String, E> {
        Ok(value)
    }
}

/// `_meta`: `null`, or an object whose protocol version, the last one
/// written, is kept when it is a string.
struct MetaObject;

impl<'de> DeserializeSeed<'de> for MetaObject {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MetaObject {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let mut revision = None;
        while let Some(Key(key)) = map.next_key()? {
            if key == meta::PROTOCOL_VERSION {
                revision = map.next_value_seed(StringOrSkip)?;
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        Ok(revision)
    }
}

/// A value read whole, kept when it is a string.
struct StringOrSkip;

impl<'de> DeserializeSeed<'de> for StringOrSkip {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StringOrSkip {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Option<String>, E> {
        Ok(Some(value.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<String>, A::Error> {
        Skip.visit_seq(seq).map(|()| None)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<String>, A::Error> {
        Skip.visit_map(map).map(|()| None)
    }
}

/// A value read whole and dropped: read as strictly as a JSON value is
/// (numbers in range, nesting within serde_json's limit), keys checked
/// for [`special`] ones.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(_)) = map.next_key()? {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// `arguments`: `null`, or an object built as serde_json builds it, each
/// key once (`op` and `input` as [`mcp_proto::read_as`] reads them), each
/// value an [`Input`].
struct Arguments;

impl<'de> DeserializeSeed<'de> for Arguments {
    type Value = Option<JsonObject>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<JsonObject>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Arguments {
    type Value = Option<JsonObject>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<JsonObject>, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<JsonObject>, A::Error> {
        let mut object = JsonObject::new();
        let (mut op, mut input) = (false, false);
        while let Some(Key(key)) = map.next_key()? {
            let read = match &*key {
                "op" => Some("op"),
                "input" => Some("input"),
                other => mcp_proto::read_as(other, &["op", "input"]),
            };
            let seen = match read {
                Some("op") => Some(&mut op),
                Some(_) => Some(&mut input),
                None => None,
            };
            if let Some(seen) = seen {
                if *seen {
                    return Err(not_plain());
                }
                *seen = true;
            }
            let value = map.next_value_seed(Input)?;
            if object.insert(key.into_owned(), value).is_some() {
                return Err(not_plain());
            }
        }
        Ok(Some(object))
    }
}

/// Anything inside the arguments, built as serde_json's value reader
/// builds it, with every key of every object once, compared as written.
struct Input;

impl<'de> DeserializeSeed<'de> for Input {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Input {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Input)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = JsonObject::new();
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(Input)?;
            if object.insert(key.into_owned(), value).is_some() {
                return Err(not_plain());
            }
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_params_are_read_as_the_full_reading_reads_them() {
        let params = r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one","n":[1,-2,3.5,1e300,true,null,{"a":"\u00e9\ud800"}]}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":{}},"task":[{"y":1}]}"#;
        let scanned = scan(params).unwrap();
        let full: Value = mcp_proto::recover::from_str_lossy(params).unwrap().0;
        assert_eq!(scanned.name, "items");
        assert_eq!(Value::Object(scanned.arguments.unwrap()), full["arguments"]);
        assert_eq!(scanned.revision.as_deref(), Some("2026-07-28"));
        let bare = scan(r#"{"name":"describe","arguments":null,"_meta":null}"#).unwrap();
        assert_eq!((bare.arguments, bare.revision), (None, None));
        // The last protocol version written; a non-string is none.
        let last = scan(r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}"#).unwrap();
        assert_eq!(last.revision.as_deref(), Some("b"));
        let number = scan(r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":7}}"#).unwrap();
        assert_eq!(number.revision, None);
        // Repeated keys elsewhere in the params are no concern of the door.
        assert!(scan(r#"{"name":"t","task":1,"task":2}"#).is_some());
        // Case variants inside the input are other keys.
        assert!(scan(r#"{"name":"t","arguments":{"op":"o","input":{"id":1,"ID":2}}}"#).is_some());
    }

    #[test]
    fn anything_else_is_left_to_the_full_reading() {
        let deep = format!(
            r#"{{"name":"t","_meta":{{"x":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for params in [
            r#"{}"#,
            r#"{"name":7}"#,
            r#"{"name":"t","name":"u"}"#,
            r#"{"name":"t","Name":"u"}"#,
            r#"{"Name":"t"}"#,
            r#"{"name":"t","arguments":[]}"#,
            r#"{"name":"t","arguments":{},"arguments":{}}"#,
            r#"{"name":"t","argumentſ":{}}"#,
            r#"{"name":"t","_meta":[]}"#,
            r#"{"name":"t","_meta":{},"_meta":{}}"#,
            r#"{"name":"t","arguments":{"op":"a","Op":"b"}}"#,
            r#"{"name":"t","arguments":{"x":1,"x":2}}"#,
            r#"{"name":"t","arguments":{"op":"o","input":{"b":[{"r":1,"r":2}]}}}"#,
            r#"{"name":"t","arguments":{"op":"o","input":{"$serde_json::private::RawValue":"1"}}}"#,
            r#"{"name":"t","x":1e999}"#,
            deep.as_str(),
        ] {
            assert_eq!(scan(params), None, "{params}");
        }
    }
}
