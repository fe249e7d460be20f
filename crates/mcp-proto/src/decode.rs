//! Decoding of MCP types from an owned [`serde_json::Value`], with errors that
//! name the member at fault.
//!
//! Every wire type of this crate implements [`FromValue`]. Decoding moves the
//! parts of the value into the typed fields (no string is copied), so turning
//! an already parsed message into a typed result costs little next to the
//! JSON parse itself. The `Deserialize` impls of the wire types go through
//! the same code, so `serde_json::from_slice::<Tool>(..)` reports the same
//! member paths.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

/// A JSON object: the shape of `inputSchema`, `arguments`, capability
/// settings and other free-form members.
pub type JsonObject = Map<String, Value>;

/// One step of the path to the member at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// What was wrong with the member at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A required member is absent.
    Missing,
    /// The member has the wrong JSON type or value; `expected` says what it
    /// must be (for example `a string` or `"public" or "private"`), `found`
    /// names the JSON type that was there.
    Invalid {
        /// What the member must be, as a phrase.
        expected: &'static str,
        /// The JSON type that was found (`null`, `a boolean`, `a number`,
        /// `a string`, `an array`, `an object`).
        found: &'static str,
    },
}

/// A wire type could not be decoded from JSON: the path to the member at
/// fault (for example `tools[3].inputSchema`) and what was wrong.
///
/// `Display` gives one sentence such as
/// `tools[3].name must be a string, found a number`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Path segments, innermost first (they are pushed while unwinding).
    path: Vec<Segment>,
    kind: DecodeErrorKind,
}

impl DecodeError {
    /// An error for a value that is not what it must be. `expected` is a
    /// phrase such as `a string`; the found type is taken from `value`.
    pub fn invalid(expected: &'static str, value: &Value) -> Self {
        Self {
            path: Vec::new(),
            kind: DecodeErrorKind::Invalid {
                expected,
                found: json_type_name(value),
            },
        }
    }

    /// An error for an absent required member named `key`.
    pub fn missing(key: &str) -> Self {
        Self {
            path: vec![Segment::Key(key.to_owned())],
            kind: DecodeErrorKind::Missing,
        }
    }

    /// Prefixes the path with an object member name.
    #[must_use]
    pub fn at_key(mut self, key: &str) -> Self {
        self.path.push(Segment::Key(key.to_owned()));
        self
    }

    /// Prefixes the path with an array index.
    #[must_use]
    pub fn at_index(mut self, index: usize) -> Self {
        self.path.push(Segment::Index(index));
        self
    }

    /// What was wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.kind
    }

    /// The path to the member at fault, such as `tools[3].inputSchema`;
    /// empty when the value itself is at fault.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for segment in self.path.iter().rev() {
            match segment {
                Segment::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Segment::Index(index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        match (&self.kind, path.is_empty()) {
            (DecodeErrorKind::Missing, _) => write!(f, "{path} is required"),
            (DecodeErrorKind::Invalid { expected, found }, true) => {
                write!(f, "value must be {expected}, found {found}")
            }
            (DecodeErrorKind::Invalid { expected, found }, false) => {
                write!(f, "{path} must be {expected}, found {found}")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// The JSON type of `value` as a phrase: `null`, `a boolean`, `a number`,
/// `a string`, `an array` or `an object`.
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A type that can be built from an owned JSON value, moving its parts.
///
/// Implemented by every wire type of this crate and by the JSON primitives
/// they are made of. Errors name the member at fault (see [`DecodeError`]).
///
/// ```
/// use mcp_proto::{FromValue, Tool};
/// use serde_json::json;
///
/// let err = Tool::from_value(json!({"name": 7, "inputSchema": {"type": "object"}})).unwrap_err();
/// assert_eq!(err.to_string(), "name must be a string, found a number");
/// ```
pub trait FromValue: Sized {
    /// Builds `Self` from `value`.
    ///
    /// # Errors
    /// A [`DecodeError`] naming the member at fault when `value` does not
    /// have the shape of `Self`.
    fn from_value(value: Value) -> Result<Self, DecodeError>;
}

impl FromValue for Value {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        Ok(value)
    }
}

impl FromValue for String {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(DecodeError::invalid("a string", &other)),
        }
    }
}

impl FromValue for bool {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::Bool(b) => Ok(b),
            other => Err(DecodeError::invalid("a boolean", &other)),
        }
    }
}

/// [`FromValue`] for the number types, through `Value`'s accessor for
/// each; `expected` names the number the accessor takes.
macro_rules! number_from_value {
    ($($ty:ty: $accessor:ident, $expected:literal;)*) => {$(
        impl FromValue for $ty {
            fn from_value(value: Value) -> Result<Self, DecodeError> {
                value
                    .$accessor()
                    .ok_or_else(|| DecodeError::invalid($expected, &value))
            }
        }
    )*};
}

number_from_value! {
    u64: as_u64, "a non-negative integer";
    i64: as_i64, "an integer";
    f64: as_f64, "a number";
}

impl FromValue for JsonObject {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::Object(map) => Ok(map),
            other => Err(DecodeError::invalid("an object", &other)),
        }
    }
}

impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| T::from_value(item).map_err(|e| e.at_index(i)))
                .collect(),
            other => Err(DecodeError::invalid("an array", &other)),
        }
    }
}

impl<T: FromValue> FromValue for BTreeMap<String, T> {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::Object(map) => map
                .into_iter()
                .map(|(k, v)| match T::from_value(v) {
                    Ok(t) => Ok((k, t)),
                    Err(e) => Err(e.at_key(&k)),
                })
                .collect(),
            other => Err(DecodeError::invalid("an object", &other)),
        }
    }
}

/// Takes the required member `key` out of `map` and decodes it.
///
/// # Errors
/// [`DecodeErrorKind::Missing`] when absent; the member's own decode error
/// (with `key` on its path) otherwise.
pub fn take_required<T: FromValue>(map: &mut JsonObject, key: &str) -> Result<T, DecodeError> {
    match map.remove(key) {
        Some(value) => T::from_value(value).map_err(|e| e.at_key(key)),
        None => Err(DecodeError::missing(key)),
    }
}

/// Takes the optional member `key` out of `map` and decodes it. An absent
/// member and an explicit `null` both give `None` (peers in the wild write
/// `null` for "not set").
///
/// # Errors
/// The member's own decode error (with `key` on its path).
pub fn take_optional<T: FromValue>(
    map: &mut JsonObject,
    key: &str,
) -> Result<Option<T>, DecodeError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => T::from_value(value).map(Some).map_err(|e| e.at_key(key)),
    }
}

/// Implements [`FromValue`] and `serde::Deserialize` for a wire struct.
///
/// Fields are listed as `required field: "wireName",` or
/// `optional field: "wireName",`, the wire name any `&str` expression;
/// `extra` receives every member not listed.
///
/// A struct that embeds another wire struct's members (flattened into it on
/// the wire, such as a list result and its [`crate::PaginatedResult`]) ends
/// the list with `..field`: that field is decoded, with [`FromValue`], from
/// the members left once the listed ones are taken, so it picks its own
/// members out of the same object and keeps the unknown ones in its
/// `extra`. Nothing is copied, and errors name the member as it stands in
/// the outer object.
macro_rules! wire_struct_decode {
    ($ty:ident { $($kind:ident $field:ident : $key:expr,)* }) => {
        $crate::decode::wire_struct_decode!(@impl $ty, map, { $($kind $field: $key,)* } extra: map);
    };
    ($ty:ident { $($kind:ident $field:ident : $key:expr,)* ..$rest:ident $(,)? }) => {
        $crate::decode::wire_struct_decode!(@impl $ty, map, { $($kind $field: $key,)* }
            $rest: $crate::decode::FromValue::from_value(::serde_json::Value::Object(map))?);
    };
    (@impl $ty:ident, $map:ident, { $($kind:ident $field:ident : $key:expr,)* }
        $rest:ident : $rest_value:expr) => {
        impl $crate::decode::FromValue for $ty {
            fn from_value(
                value: ::serde_json::Value,
            ) -> ::std::result::Result<Self, $crate::decode::DecodeError> {
                #[allow(unused_mut)]
                let mut $map: $crate::decode::JsonObject =
                    $crate::decode::FromValue::from_value(value)?;
                Ok(Self {
                    $($field: $crate::decode::wire_struct_decode!(@take $kind $map, $key),)*
                    $rest: $rest_value,
                })
            }
        }
        $crate::decode::wire_deserialize!($ty);
    };
    (@take required $map:ident, $key:expr) => {
        $crate::decode::take_required(&mut $map, $key)?
    };
    (@take optional $map:ident, $key:expr) => {
        $crate::decode::take_optional(&mut $map, $key)?
    };
}

/// Defines wire structs and their decoding, each from one list of fields:
/// the struct, deriving `Debug`, `Clone`, `PartialEq`, `Serialize` and
/// `JsonSchema`, and its [`FromValue`] and `Deserialize` through
/// [`wire_struct_decode!`]. One invocation takes any number of structs.
///
/// Each field is written `pub field: Type as "wireName",`, in the order the
/// members are written. A field of type `Option<_>` is an optional member:
/// absent or `null` reads as `None`, and `None` is left out when written.
/// Any other field is a required member. The macro adds
/// `pub extra: JsonObject` last, for the members not listed, kept as they
/// came. A struct that embeds the members of another wire struct ends
/// instead with `pub field: Type as ..,`: that field is flattened and takes
/// every member not listed, its own and the unknown ones.
///
/// A line `use Base;` in the body stands for the members of one of the MCP
/// schema's base interfaces (`BaseMetadata`, `Icons`, `Annotated`,
/// `RequestParams`, `NotificationParams`, `Result`, `CacheableResult`,
/// `PaginatedResult`; see `types::bases`): their fields, docs and all,
/// become fields of the struct at that place. `use MetaObject;` stands
/// likewise for the `_meta` member of other objects.
///
/// Attributes on the struct (doc comments, `#[derive(Default)]`) and on the
/// fields (doc comments, `#[serde(serialize_with = "..")]`) are kept.
///
/// ```text
/// wire_struct! {
///     /// A root the client exposes (MCP 2025-11-25 client/roots).
///     #[derive(Default)]
///     pub struct Root {
///         /// The root's URI.
///         pub uri: String as "uri",
///         /// Display name.
///         pub name: Option<String> as "name",
///         /// Metadata.
///         pub meta: Option<Meta> as "_meta",
///     }
///
///     /// The result of `roots/list` (MCP 2025-11-25 client/roots).
///     #[derive(Default)]
///     pub struct ListRootsResult {
///         /// The client's roots.
///         pub roots: Vec<Root> as "roots",
///         use Result;
///     }
/// }
/// ```
macro_rules! wire_struct {
    ($($(#[$attr:meta])* pub struct $name:ident { $($body:tt)* })*) => {$(
        $crate::decode::wire_struct!(@field [$(#[$attr])* pub struct $name] [] [] $($body)*);
    )*};
    // A base of the MCP schema: its fields, in place.
    (@field $head:tt $fields:tt $decode:tt use $base:ident; $($rest:tt)*) => {
        $crate::types::bases::wire_base!($base $head $fields $decode $($rest)*);
    };
    // The embedded struct: flattened, it takes the members not listed.
    (@field $head:tt [$($fields:tt)*] [$($decode:tt)*]
        $(#[$fattr:meta])* pub $field:ident : $ty:ty as .. $(,)?) => {
        $crate::decode::wire_struct!(@emit $head
            [$($fields)* $(#[$fattr])* #[serde(flatten)] pub $field: $ty,]
            [$($decode)* ..$field]);
    };
    (@field $head:tt [$($fields:tt)*] [$($decode:tt)*]
        $(#[$fattr:meta])* pub $field:ident : Option<$ty:ty> as $key:literal, $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head
            [$($fields)* $(#[$fattr])*
                #[serde(rename = $key, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$ty>,]
            [$($decode)* optional $field: $key,]
            $($rest)*);
    };
    (@field $head:tt [$($fields:tt)*] [$($decode:tt)*]
        $(#[$fattr:meta])* pub $field:ident : $ty:ty as $key:literal, $($rest:tt)*) => {
        $crate::decode::wire_struct!(@field $head
            [$($fields)* $(#[$fattr])* #[serde(rename = $key)] pub $field: $ty,]
            [$($decode)* required $field: $key,]
            $($rest)*);
    };
    // Every field listed: the unknown members go to `extra`.
    (@field $head:tt [$($fields:tt)*] [$($decode:tt)*]) => {
        $crate::decode::wire_struct!(@emit $head
            [$($fields)*
                #[doc = "Members not known to this crate, kept as they came."]
                #[serde(flatten)]
                pub extra: $crate::decode::JsonObject,]
            [$($decode)*]);
    };
    (@emit [$(#[$attr:meta])* pub struct $name:ident] [$($fields:tt)*] [$($decode:tt)*]) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::schemars::JsonSchema)]
        pub struct $name {
            $($fields)*
        }
        $crate::decode::wire_struct_decode!($name { $($decode)* });
    };
}

/// Defines a wire enum: a value that is one of a fixed set of strings, such
/// as a [`crate::Role`] or a [`crate::Revision`]. Each variant is written
/// `Variant as "wireName",`; `expecting` gives what the decode error says the
/// value must be.
///
/// The enum derives `Debug`, `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash`,
/// `Serialize` and `JsonSchema` (more may be derived by an attribute) and
/// gets `ALL`, every variant in the order written, `as_str`, the wire name,
/// `parse`, its inverse, and [`FromValue`] and `Deserialize` through it.
///
/// ```text
/// wire_enum! {
///     /// Who a message or datum is for (MCP 2025-11-25 `Role`).
///     pub enum Role {
///         /// The human user.
///         User as "user",
///         /// The model.
///         Assistant as "assistant",
///     }
///     expecting r#""user" or "assistant""#
/// }
/// ```
macro_rules! wire_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $($(#[$variant_attr:meta])* $variant:ident as $wire:literal,)*
        }
        expecting $expected:expr
    ) => {
        $(#[$attr])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::schemars::JsonSchema,
        )]
        pub enum $name {
            $($(#[$variant_attr])* #[serde(rename = $wire)] $variant,)*
        }

        impl $name {
            /// Every variant, in the order written.
            pub const ALL: [Self; [$($wire),*].len()] = [$(Self::$variant),*];

            /// The name on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)*
                }
            }

            /// The variant named `s` on the wire exactly, or `None`.
            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|v| v.as_str() == s)
            }
        }

        impl $crate::decode::FromValue for $name {
            fn from_value(
                value: ::serde_json::Value,
            ) -> ::std::result::Result<Self, $crate::decode::DecodeError> {
                value
                    .as_str()
                    .and_then(Self::parse)
                    .ok_or_else(|| $crate::decode::DecodeError::invalid($expected, &value))
            }
        }

        $crate::decode::wire_deserialize!($name);
    };
}

/// Implements `serde::Deserialize` through [`FromValue`], so serde users get
/// the same member-naming errors.
macro_rules! wire_deserialize {
    ($ty:ty) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                let value =
                    <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                <$ty as $crate::decode::FromValue>::from_value(value)
                    .map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    };
}

pub(crate) use wire_deserialize;
pub(crate) use wire_enum;
pub(crate) use wire_struct;
pub(crate) use wire_struct_decode;

/// Serializes an `f64` as a JSON integer when it has no fractional part and
/// fits exactly, so `50` read from the wire is written back as `50`, not
/// `50.0`.
pub(crate) fn serialize_number<S: serde::Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() < EXACT {
        // The range check above makes the cast exact.
        #[allow(clippy::cast_possible_truncation)]
        let i = *n as i64;
        s.serialize_i64(i)
    } else {
        s.serialize_f64(*n)
    }
}

/// [`serialize_number`] for an optional field.
pub(crate) fn serialize_opt_number<S: serde::Serializer>(
    n: &Option<f64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => serialize_number(n, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_names_nested_member() {
        let err = Vec::<String>::from_value(json!(["a", 1]))
            .map_err(|e| e.at_key("names"))
            .unwrap_err();
        assert_eq!(err.path(), "names[1]");
        assert_eq!(err.to_string(), "names[1] must be a string, found a number");
    }

    #[test]
    fn missing_member_is_named() {
        let mut map = JsonObject::new();
        let err = take_required::<String>(&mut map, "name").unwrap_err();
        assert_eq!(err.to_string(), "name is required");
    }

    #[test]
    fn null_optional_is_none() {
        let mut map = json!({"cursor": null}).as_object().cloned().unwrap();
        assert_eq!(take_optional::<String>(&mut map, "cursor"), Ok(None));
    }
}
