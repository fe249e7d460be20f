//! Tool parameters mirrored into HTTP headers (MCP 2026-07-28
//! basic/transports/streamable-http, "Custom Headers from Tool
//! Parameters"; SEP-2243).
//!
//! A tool's `inputSchema` may mark a property with `"x-mcp-header":
//! "<Name>"`; a client then sends that argument of a `tools/call` in the
//! header `Mcp-Param-<Name>` too, and the server checks that both agree.
//! This module holds the rules both sides share: which annotations are
//! valid ([`param_headers`]), the text of a value ([`plain_text`]), and
//! when that text travels Base64-wrapped ([`needs_base64`],
//! [`base64_payload`]). The Base64 coding itself is the caller's (this
//! crate has no Base64 dependency).

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::ObjectSchema;

/// The start of a Base64-wrapped header value: `=?base64?<standard Base64
/// with padding>?=`.
pub const BASE64_PREFIX: &str = "=?base64?";

/// The end of a Base64-wrapped header value.
pub const BASE64_SUFFIX: &str = "?=";

/// The prefix of every parameter header's name (lowercase, as
/// `http::HeaderName` stores names).
pub const HEADER_PREFIX: &str = "mcp-param-";

/// One `x-mcp-header` annotation of a tool's `inputSchema`: the argument
/// at `path` is mirrored into `Mcp-Param-{name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The name part of the header, as the schema spells it.
    pub name: String,
    /// Property names from the arguments object down to the value.
    pub path: Vec<String>,
}

impl ParamHeader {
    /// The full header name in lowercase: `mcp-param-<name>`.
    pub fn header_name(&self) -> String {
        format!("{HEADER_PREFIX}{}", self.name.to_ascii_lowercase())
    }

    /// The argument this annotation mirrors, found in `arguments` (a
    /// `tools/call`'s `params.arguments`) by [`ParamHeader::path`];
    /// `None` when any step is missing.
    pub fn argument<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.path
            .iter()
            .try_fold(arguments, |value, key| value.get(key))
    }
}

/// The `x-mcp-header` annotations of a tool's `inputSchema`, or why the
/// tool must be rejected (a client excludes such a tool from `tools/list`;
/// MCP 2026-07-28 streamable-http, "Schema Extension").
///
/// Annotations are looked for on property schemas reached through
/// `properties` from the root, at any depth. Each value must be a
/// non-empty RFC 9110 token (`1*tchar`: no space, colon, control or
/// non-ASCII character), unique ignoring case, on a property whose `type`
/// is `string`, `integer` or `boolean` (optionally with `"null"`). The
/// `Err` text names the property and the broken rule. A schema kept as
/// compiled-in text ([`ObjectSchema::as_static_json`], written by
/// serde_json, so the key is spelled plainly) that does not hold the key
/// has none, and is not parsed for it.
pub fn param_headers(schema: &ObjectSchema) -> Result<Vec<ParamHeader>, String> {
    if schema
        .as_static_json()
        .is_some_and(|text| !text.contains("x-mcp-header"))
    {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    let mut stack: Vec<(&Map<String, Value>, Vec<String>)> = vec![(schema, Vec::new())];
    while let Some((node, path)) = stack.pop() {
        let Some(Value::Object(properties)) = node.get("properties") else {
            continue;
        };
        for (key, property) in properties {
            let Value::Object(property) = property else {
                continue;
            };
            let mut here = path.clone();
            here.push(key.clone());
            if let Some(annotation) = property.get("x-mcp-header") {
                found.push(annotation_of(key, property, annotation, here.clone())?);
            }
            stack.push((property, here));
        }
    }
    let mut seen = HashSet::new();
    for annotation in &found {
        if !seen.insert(annotation.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header {:?} is used twice (ignoring case)",
                annotation.name
            ));
        }
    }
    Ok(found)
}

/// One checked annotation on property `key`.
fn annotation_of(
    key: &str,
    property: &Map<String, Value>,
    annotation: &Value,
    path: Vec<String>,
) -> Result<ParamHeader, String> {
    let Some(name) = annotation.as_str() else {
        return Err(format!("x-mcp-header of '{key}' is not a string"));
    };
    if name.is_empty() || !name.bytes().all(is_tchar) {
        return Err(format!(
            "x-mcp-header {name:?} of '{key}' is not an HTTP token"
        ));
    }
    if !has_primitive_type(property) {
        return Err(format!(
            "x-mcp-header {name:?} is on '{key}', which is not a string, integer or boolean"
        ));
    }
    Ok(ParamHeader {
        name: name.to_owned(),
        path,
    })
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// Whether a property schema's `type` allows an `x-mcp-header`: `string`,
/// `integer` or `boolean`, alone or with `"null"` in a type array.
fn has_primitive_type(property: &Map<String, Value>) -> bool {
    let allowed = |t: &str| matches!(t, "string" | "integer" | "boolean");
    match property.get("type") {
        Some(Value::String(t)) => allowed(t),
        Some(Value::Array(types)) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let real: Vec<&str> = named.iter().copied().filter(|t| *t != "null").collect();
            named.len() == types.len() && real.len() == 1 && allowed(real[0])
        }
        _ => false,
    }
}

/// The text an argument is mirrored as, before any Base64 wrapping: a
/// string as is, a number in its JSON spelling, a boolean as
/// `true`/`false`. `None` for `null`, objects and arrays (never mirrored).
pub fn plain_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Whether `text` must travel Base64-wrapped ("Value Encoding"): it has a
/// character outside 0x20..=0x7E, leading or trailing whitespace, or looks
/// like the wrapper itself.
pub fn needs_base64(text: &str) -> bool {
    let unsafe_char = text.chars().any(|c| !(' '..='~').contains(&c));
    let padded = text.starts_with([' ', '\t']) || text.ends_with([' ', '\t']);
    unsafe_char || padded || base64_payload(text).is_some()
}

/// The Base64 text inside a wrapped header value (`=?base64?…?=`), or
/// `None` when the value is not wrapped and so is literal.
pub fn base64_payload(header: &str) -> Option<&str> {
    header
        .strip_prefix(BASE64_PREFIX)?
        .strip_suffix(BASE64_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> ObjectSchema {
        match value {
            Value::Object(map) => map.into(),
            other => panic!("not an object: {other}"),
        }
    }

    /// Kept text is read like a map when it holds the key, and has no
    /// annotation when it does not.
    #[test]
    fn param_headers_reads_kept_text() {
        let annotated = ObjectSchema::from_static_json(
            r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#,
        )
        .unwrap();
        let found = param_headers(&annotated).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "Region");
        let plain = ObjectSchema::from_static_json(
            r#"{"type":"object","properties":{"region":{"type":"string"}}}"#,
        )
        .unwrap();
        assert!(param_headers(&plain).unwrap().is_empty());
    }

    #[test]
    fn param_headers_reads_nested_annotations() {
        let found = param_headers(&schema(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
                "target": {"type": "object", "properties": {
                    "tenant": {"type": ["integer", "null"], "x-mcp-header": "Tenant-Id"}
                }}
            }
        })))
        .expect("valid annotations");
        let mut found: Vec<(String, Vec<String>)> =
            found.into_iter().map(|a| (a.name, a.path)).collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("Region".to_owned(), vec!["region".to_owned()]),
                (
                    "Tenant-Id".to_owned(),
                    vec!["target".to_owned(), "tenant".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn param_headers_rejects_each_broken_rule() {
        let one = |property: Value| {
            param_headers(&schema(
                json!({"type": "object", "properties": {"p": property}}),
            ))
        };
        let rejected = [
            json!({"type": "string", "x-mcp-header": ""}),
            json!({"type": "string", "x-mcp-header": "My Region"}),
            json!({"type": "string", "x-mcp-header": "Region:Primary"}),
            json!({"type": "string", "x-mcp-header": "Région"}),
            json!({"type": "string", "x-mcp-header": "Region\t1"}),
            json!({"type": "string", "x-mcp-header": 7}),
            json!({"type": "number", "x-mcp-header": "Score"}),
            json!({"type": "object", "x-mcp-header": "Data"}),
            json!({"type": "array", "x-mcp-header": "Items"}),
            json!({"type": "null", "x-mcp-header": "Nil"}),
            json!({"x-mcp-header": "Untyped"}),
        ];
        for property in rejected {
            assert!(one(property.clone()).is_err(), "accepted {property}");
        }
        let duplicate = param_headers(&schema(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "MyField"},
            "b": {"type": "string", "x-mcp-header": "myfield"}
        }})));
        assert_eq!(
            duplicate,
            Err("x-mcp-header \"myfield\" is used twice (ignoring case)".to_owned())
        );
        assert_eq!(
            one(json!({"type": "boolean", "x-mcp-header": "Verbose"})),
            Ok(vec![ParamHeader {
                name: "Verbose".into(),
                path: vec!["p".into()]
            }])
        );
    }

    #[test]
    fn header_names_and_arguments_follow_the_annotation() {
        let annotation = ParamHeader {
            name: "Tenant-Id".into(),
            path: vec!["target".into(), "tenant".into()],
        };
        assert_eq!(annotation.header_name(), "mcp-param-tenant-id");
        let arguments = json!({"target": {"tenant": 7}});
        assert_eq!(annotation.argument(&arguments), Some(&json!(7)));
        assert_eq!(annotation.argument(&json!({"target": {}})), None);
    }

    #[test]
    fn text_and_wrapping_follow_the_value_encoding_table() {
        assert_eq!(plain_text(&json!("us-west1")).as_deref(), Some("us-west1"));
        assert_eq!(plain_text(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(plain_text(&json!(false)).as_deref(), Some("false"));
        assert_eq!(plain_text(&json!(null)), None);
        assert_eq!(plain_text(&json!([1])), None);
        assert!(!needs_base64("us west 1"));
        assert!(needs_base64("Hello, 世界"));
        assert!(needs_base64(" padded "));
        assert!(needs_base64("line1\nline2"));
        assert!(needs_base64("=?base64?literal?="));
        assert_eq!(base64_payload("=?base64?SGVsbG8=?="), Some("SGVsbG8="));
        assert_eq!(base64_payload("=?base64?SGVsbG8="), None);
        assert_eq!(base64_payload("SGVsbG8="), None);
    }
}
