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
    /// one line (no line feed or carriage return: the text is written into
    /// messages as it is, and stdio frames end at a line feed).
    ///
    /// # Errors
    /// `text` is not JSON, is JSON other than an object, or holds a line
    /// break. Text nested deeper than serde_json's recursion limit (128)
    /// passes here and reads as an empty object.
    pub fn from_static_json(text: &'static str) -> Result<Self, serde_json::Error> {
        if text.bytes().any(|b| b == b'\n' || b == b'\r') {
            return Err(serde_json::Error::custom(
                "a schema kept as text must be written on one line",
            ));
        }
        let raw: &'static RawValue = serde_json::from_str(text)?;
        if !raw.get().starts_with('{') {
            return Err(serde_json::Error::custom("a schema must be a JSON object"));
        }
        Ok(Self(Repr::Text {
            raw,
            parsed: OnceLock::new(),
        }))
    }

    /// The compiled-in text this schema is written as, when it is still
    /// kept as text (not made from a map, not changed since).
    pub fn as_static_json(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Text { raw, .. } => Some(raw.get()),
            Repr::Object(_) => None,
        }
    }

    /// The schema as an owned map (a copy; the schema is unchanged).
    pub fn to_object(&self) -> JsonObject {
        (**self).clone()
    }

    /// The schema as an owned map, parsing kept text.
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Object(map) => map,
            Repr::Text { raw, mut parsed } => parsed.take().unwrap_or_else(|| parse(raw)),
        }
    }
}

/// The object `raw` holds; an empty one where it cannot be read as one
/// (nesting past serde_json's recursion limit).
fn parse(raw: &RawValue) -> JsonObject {
    serde_json::from_str(raw.get()).unwrap_or_default()
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
/// same JSON.
fn writes_raw_values<S>() -> bool {
    std::any::type_name::<S>().contains("serde_json::ser::Serializer<")
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
        for bad in ["[1]", "\"s\"", "{", "{\"a\":\n1}", "{}\r", "", "{} {}"] {
            assert!(ObjectSchema::from_static_json(bad).is_err(), "{bad:?}");
        }
        assert!(ObjectSchema::from_static_json(" {} ").is_ok());
    }

    #[test]
    fn too_deep_text_reads_as_an_empty_object() {
        let deep: &'static str = Box::leak(
            format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200)).into_boxed_str(),
        );
        let schema = ObjectSchema::from_static_json(deep).unwrap();
        assert!(schema.is_empty());
        assert_eq!(schema.as_static_json(), Some(deep));
    }
}
