//! [`ObjectSchema`]: a tool's `inputSchema`, which may stay the JSON text it
//! was compiled in as until something reads it.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use serde::de::Error as _;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::decode::{DecodeError, FromValue, JsonObject};

/// A JSON Schema object: `Tool.inputSchema` (MCP 2025-11-25
/// server/tools; `{"type": "object", "properties": …, "required": …}`).
///
/// It reads as a [`JsonObject`] (through `Deref`) and is written as one.
/// A schema made by [`ObjectSchema::from_static_json`] is kept as that
/// text: it is written out as it is, byte for byte, and parsed into a
/// map only the first time something reads it, so a server whose tool
/// definitions are compiled in holds no tree of them while it only lists
/// them. Changing it (through `DerefMut`) parses it first and drops the
/// text. Equality compares the parsed objects.
///
/// ```
/// use mcp_proto::ObjectSchema;
///
/// let schema = ObjectSchema::from_static_json(r#"{"type":"object"}"#).unwrap();
/// assert_eq!(serde_json::to_string(&schema).unwrap(), r#"{"type":"object"}"#);
/// assert_eq!(schema["type"], "object");
/// ```
#[derive(Clone)]
pub struct ObjectSchema(Repr);

#[derive(Clone)]
enum Repr {
    /// Compiled-in text, and its parsed form once something read it.
    Text {
        raw: &'static RawValue,
        parsed: OnceLock<JsonObject>,
    },
    /// A parsed (or changed) schema.
    Object(JsonObject),
}

impl ObjectSchema {
    /// A schema kept as `text`, which must be one JSON object written on
    /// one line (no line feed or carriage return inside it: the text is
    /// written into messages as it is, and stdio frames end at a line
    /// feed), nested at most [`ObjectSchema::MAX_DEPTH`] deep (what
    /// serde_json reads back). Whitespace around the object is dropped.
    ///
    /// # Errors
    /// `text` is not JSON, is JSON other than an object, holds a line
    /// break, or nests deeper than [`ObjectSchema::MAX_DEPTH`].
    pub fn from_static_json(text: &'static str) -> Result<Self, serde_json::Error> {
        Self::from_static_raw(serde_json::from_str(text)?)
    }

    /// [`ObjectSchema::from_static_json`] for text already read as one JSON
    /// value (a member of a compiled-in document that serde_json has read
    /// into [`RawValue`]s): the object, line and depth rules are checked,
    /// the JSON is not read again.
    ///
    /// # Errors
    /// `raw` is JSON other than an object, holds a line break, or nests
    /// deeper than [`ObjectSchema::MAX_DEPTH`].
    pub fn from_static_raw(raw: &'static RawValue) -> Result<Self, serde_json::Error> {
        let kept = raw.get();
        if !kept.starts_with('{') {
            return Err(serde_json::Error::custom("a schema must be a JSON object"));
        }
        let (depth, line_break) = shape(kept);
        if line_break {
            return Err(serde_json::Error::custom(
                "a schema kept as text must be written on one line",
            ));
        }
        if depth > Self::MAX_DEPTH {
            return Err(serde_json::Error::custom(format!(
                "a schema kept as text may nest at most {} arrays and objects deep",
                Self::MAX_DEPTH
            )));
        }
        Ok(Self(Repr::Text {
            raw,
            parsed: OnceLock::new(),
        }))
    }

    /// How deep [`ObjectSchema::from_static_json`] lets arrays and objects
    /// nest: serde_json's own limit when it parses text into a map.
    pub const MAX_DEPTH: usize = 127;

    /// The compiled-in text this schema is written as, when it is still
    /// kept as text (not made from a map, not changed since).
    pub fn as_static_json(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Text { raw, .. } => Some(raw.get()),
            Repr::Object(_) => None,
        }
    }

    /// The schema as an owned map. Kept text not read before is parsed
    /// for this copy only: the schema keeps no map of it.
    pub fn to_object(&self) -> JsonObject {
        match &self.0 {
            Repr::Text { raw, parsed } => parsed.get().cloned().unwrap_or_else(|| parse(raw)),
            Repr::Object(map) => map.clone(),
        }
    }

    /// The schema as an owned map, parsing kept text.
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Object(map) => map,
            Repr::Text { raw, mut parsed } => parsed.take().unwrap_or_else(|| parse(raw)),
        }
    }
}

/// The object `raw` holds ([`ObjectSchema::from_static_json`] checked
/// that serde_json reads it as one; an empty one otherwise).
fn parse(raw: &RawValue) -> JsonObject {
    serde_json::from_str(raw.get()).unwrap_or_default()
}

/// How deep arrays and objects nest in `json` (valid JSON text), brackets
/// counted outside strings, and whether it holds a line break, in one
/// pass (valid JSON has raw line breaks only outside strings).
fn shape(json: &str) -> (usize, bool) {
    let (mut depth, mut deepest, mut line_break) = (0usize, 0usize, false);
    let (mut in_string, mut escaped) = (false, false);
    for b in json.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'\n' | b'\r' => line_break = true,
            _ => {}
        }
    }
    (deepest, line_break)
}

impl Default for ObjectSchema {
    /// An empty object (`{}`).
    fn default() -> Self {
        Self(Repr::Object(JsonObject::new()))
    }
}

impl From<JsonObject> for ObjectSchema {
    fn from(map: JsonObject) -> Self {
        Self(Repr::Object(map))
    }
}

impl From<ObjectSchema> for JsonObject {
    fn from(schema: ObjectSchema) -> Self {
        schema.into_object()
    }
}

impl From<ObjectSchema> for Value {
    fn from(schema: ObjectSchema) -> Self {
        Value::Object(schema.into_object())
    }
}

impl Deref for ObjectSchema {
    type Target = JsonObject;

    fn deref(&self) -> &JsonObject {
        match &self.0 {
            Repr::Text { raw, parsed } => parsed.get_or_init(|| parse(raw)),
            Repr::Object(map) => map,
        }
    }
}

impl DerefMut for ObjectSchema {
    fn deref_mut(&mut self) -> &mut JsonObject {
        if let Repr::Text { raw, parsed } = &mut self.0 {
            let map = parsed.take().unwrap_or_else(|| parse(raw));
            self.0 = Repr::Object(map);
        }
        match &mut self.0 {
            Repr::Object(map) => map,
            Repr::Text { .. } => unreachable!("made an object just above"),
        }
    }
}

impl PartialEq for ObjectSchema {
    fn eq(&self, other: &Self) -> bool {
        match (self.as_static_json(), other.as_static_json()) {
            (Some(a), Some(b)) if a == b => true,
            _ => **self == **other,
        }
    }
}

impl PartialEq<JsonObject> for ObjectSchema {
    fn eq(&self, other: &JsonObject) -> bool {
        **self == *other
    }
}

impl fmt::Debug for ObjectSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text { raw, .. } => f.debug_tuple("ObjectSchema").field(raw).finish(),
            Repr::Object(map) => f.debug_tuple("ObjectSchema").field(map).finish(),
        }
    }
}

impl serde::Serialize for ObjectSchema {
    /// Kept text is written as it is by serde_json's serializer (as its
    /// raw value); every other serializer is given the parsed map, as it
    /// is given a map of a schema that was never text.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Text { raw, .. } if writes_raw_values::<S>() => raw.serialize(s),
            _ => (**self).serialize(s),
        }
    }
}

/// Whether `S` is serde_json's text serializer, the one that writes a
/// raw value's text as it is (others would see serde_json's private raw
/// value token as a struct). Told by the type's name: should that name
/// ever read otherwise, the schema is written from its parsed map, the
/// same JSON value.
fn writes_raw_values<S>() -> bool {
    std::any::type_name::<S>().starts_with("&mut serde_json::ser::Serializer<")
}

impl<'de> serde::Deserialize<'de> for ObjectSchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(d).map(Self::from)
    }
}

impl FromValue for ObjectSchema {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        JsonObject::from_value(value).map(Self::from)
    }
}

impl schemars::JsonSchema for ObjectSchema {
    fn inline_schema() -> bool {
        JsonObject::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        JsonObject::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        JsonObject::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        JsonObject::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_written_as_it_is_and_read_as_a_map() {
        let text = r#"{"type":"object","properties":{"n":{"type":"number","default":1.50}}}"#;
        let schema = ObjectSchema::from_static_json(text).unwrap();
        assert_eq!(serde_json::to_string(&schema).unwrap(), text);
        assert_eq!(schema["properties"]["n"]["type"], "number");
        // Reading it does not change what is written.
        assert_eq!(serde_json::to_string(&schema).unwrap(), text);
        assert_eq!(schema.as_static_json(), Some(text));
    }

    #[test]
    fn other_serializers_are_given_the_map() {
        let text = r#"{"type":"object","required":["a"]}"#;
        let schema = ObjectSchema::from_static_json(text).unwrap();
        assert!(writes_raw_values::<&mut serde_json::Serializer<Vec<u8>>>());
        assert!(!writes_raw_values::<serde_json::value::Serializer>());
        // serde_json's value serializer, which is not its text one.
        assert_eq!(
            serde_json::to_value(&schema).unwrap(),
            json!({"type": "object", "required": ["a"]})
        );
        // insta's, which knows nothing of serde_json's raw values.
        insta::assert_json_snapshot!(schema, @r#"
        {
          "required": [
            "a"
          ],
          "type": "object"
        }
        "#);
    }

    #[test]
    fn members_of_a_read_document_keep_the_same_rules() {
        static DOCUMENT: &str = "{\"kept\": {\"type\":\"object\"}, \"list\": [1], \
                                 \"lines\": {\"type\":\n\"object\"}}";
        let members: std::collections::HashMap<&'static str, &'static RawValue> =
            serde_json::from_str(DOCUMENT).unwrap();
        let kept = ObjectSchema::from_static_raw(members["kept"]).unwrap();
        assert_eq!(kept.as_static_json(), Some(r#"{"type":"object"}"#));
        assert_eq!(kept["type"], "object");
        let refused = |name: &str| ObjectSchema::from_static_raw(members[name]).unwrap_err();
        assert!(
            refused("list")
                .to_string()
                .contains("must be a JSON object")
        );
        assert!(refused("lines").to_string().contains("on one line"));
        let deep: &'static str = Box::leak(
            format!(
                "{{\"s\":{}{}}}",
                "[".repeat(ObjectSchema::MAX_DEPTH),
                "]".repeat(ObjectSchema::MAX_DEPTH)
            )
            .into_boxed_str(),
        );
        let raw: &'static RawValue = serde_json::from_str(deep).unwrap();
        let error = ObjectSchema::from_static_raw(raw).unwrap_err();
        assert!(error.to_string().contains("at most 127"), "{error}");
    }

    #[test]
    fn a_change_drops_the_text() {
        let mut schema = ObjectSchema::from_static_json(r#"{"type":"object"}"#).unwrap();
        schema.insert("required".into(), json!(["a"]));
        assert_eq!(schema.as_static_json(), None);
        assert_eq!(
            serde_json::to_value(&schema).unwrap(),
            json!({"type": "object", "required": ["a"]})
        );
    }

    #[test]
    fn equality_is_of_the_objects() {
        let a = ObjectSchema::from_static_json(r#"{"a":1,"b":2}"#).unwrap();
        let b = ObjectSchema::from_static_json(r#"{"b":2, "a":1}"#).unwrap();
        let c = ObjectSchema::from(json!({"a": 1, "b": 2}).as_object().unwrap().clone());
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_ne!(a, ObjectSchema::default());
    }

    #[test]
    fn only_one_line_objects_are_kept_as_text() {
        for bad in ["[1]", "\"s\"", "{", "{\"a\":\n1}", "{\r}", "", "{} {}"] {
            assert!(ObjectSchema::from_static_json(bad).is_err(), "{bad:?}");
        }
        // A file's last line end is around the object, not in it.
        let schema = ObjectSchema::from_static_json(" {\"a\":\"[{\\\"\"}\n").unwrap();
        assert_eq!(schema.as_static_json(), Some("{\"a\":\"[{\\\"\"}"));
        assert_eq!(schema["a"], "[{\"");
    }

    /// Text nested deeper than serde_json reads back is refused, so what
    /// is written is always what is read; brackets in strings do not count.
    #[test]
    fn nesting_is_bounded_by_what_serde_json_reads() {
        let nested = |depth: usize| -> &'static str {
            Box::leak(
                format!(
                    "{{\"a\":{}1{}}}",
                    "[".repeat(depth - 1),
                    "]".repeat(depth - 1)
                )
                .into_boxed_str(),
            )
        };
        let deepest = ObjectSchema::from_static_json(nested(ObjectSchema::MAX_DEPTH)).unwrap();
        assert!(deepest.contains_key("a"));
        assert!(ObjectSchema::from_static_json(nested(ObjectSchema::MAX_DEPTH + 1)).is_err());
        assert!(serde_json::from_str::<JsonObject>(nested(ObjectSchema::MAX_DEPTH + 1)).is_err());
        let quoted: &'static str =
            Box::leak(format!("{{\"a\":\"{}\"}}", "[".repeat(500)).into_boxed_str());
        assert!(ObjectSchema::from_static_json(quoted).is_ok());
    }

    #[test]
    fn a_copy_leaves_the_text_unread() {
        let schema = ObjectSchema::from_static_json(r#"{"a":1}"#).unwrap();
        assert_eq!(schema.to_object()["a"], 1);
        let Repr::Text { parsed, .. } = &schema.0 else {
            panic!("kept as text")
        };
        assert!(parsed.get().is_none());
    }
}
