//! The `Mcp-Param-*` headers of a `tools/call` (MCP 2026-07-28
//! streamable-http "Client Behavior" and "Value Encoding"): one for each
//! `x-mcp-header` annotation of the tool whose argument is there, its
//! value the argument's text, Base64 where a header cannot carry it.

use mcp_proto::param_header;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::value::RawValue;

use super::Transport;
use crate::raw::{Object, Parsed, lossy_string};

impl Transport {
    /// Adds `Mcp-Param-{name}` for each `x-mcp-header` annotation of
    /// `tool` whose argument is present and not `null` (MCP 2026-07-28
    /// streamable-http "Client Behavior"); values encoded by [`param_value`].
    /// Only the members on each annotation's path are read.
    pub(super) fn insert_param_headers(
        &self,
        headers: &mut HeaderMap,
        tool: &str,
        arguments: Option<&RawValue>,
    ) {
        let known = self
            .param_headers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (Some(annotations), Some(arguments)) = (known.get(tool), arguments) else {
            return;
        };
        let Ok(Parsed::Object(top)) = Object::parse(arguments.get()) else {
            return;
        };
        for annotation in annotations {
            let Some(text) = argument_at(&top, &annotation.path).and_then(param_value) else {
                continue;
            };
            let name = annotation.header_name();
            if let (Ok(name), Ok(value)) = (
                header::HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&text),
            ) {
                headers.insert(name, value);
            }
        }
    }
}

/// The member of `top` (a `tools/call`'s arguments) at `path`, a list of
/// member names from the arguments object down; `None` when a step is
/// missing or not an object.
fn argument_at<'a>(top: &Object<'a>, path: &[String]) -> Option<&'a RawValue> {
    let (first, rest) = path.split_first()?;
    let mut value = top.get(first)?;
    for name in rest {
        let Ok(Parsed::Object(members)) = Object::parse(value.get()) else {
            return None;
        };
        value = members.get(name)?;
    }
    Some(value)
}

/// An argument (its JSON text) as an `Mcp-Param-*` header value (MCP
/// 2026-07-28 streamable-http "Value Encoding"): a string as is (a lone
/// surrogate escape as U+FFFD), a number as the caller spelled it (so an
/// integer in decimal), a boolean as `true`/`false`; `=?base64?…?=`
/// (standard Base64 of the UTF-8 text) when the text has a character
/// outside 0x20..=0x7E, leading or trailing whitespace, or looks like that
/// sentinel. `None` for `null`, objects and arrays (never mirrored).
pub(crate) fn param_value(value: &RawValue) -> Option<String> {
    let written = value.get();
    let text = match written.as_bytes().first()? {
        b'"' => lossy_string(value)?,
        b'-' | b'0'..=b'9' | b't' | b'f' => written.to_owned(),
        _ => return None,
    };
    if param_header::needs_base64(&text) {
        Some(format!(
            "{}{}{}",
            param_header::BASE64_PREFIX,
            base64(text.as_bytes()),
            param_header::BASE64_SUFFIX
        ))
    } else {
        Some(text)
    }
}

/// Standard Base64 (RFC 4648 §4) with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn arguments_are_found_along_their_path() {
        let text = r#"{"region":"eu","target":{"tenant":" acme ","n":{"k":1E2}},"flat":3}"#;
        let Ok(Parsed::Object(top)) = Object::parse(text) else {
            panic!("an object");
        };
        let at = |path: &[&str]| {
            let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
            argument_at(&top, &path).map(|raw| raw.get().to_owned())
        };
        assert_eq!(at(&["region"]).as_deref(), Some(r#""eu""#));
        assert_eq!(at(&["target", "tenant"]).as_deref(), Some(r#"" acme ""#));
        assert_eq!(at(&["target", "n", "k"]).as_deref(), Some("1E2"));
        assert_eq!(at(&["flat", "x"]), None);
        assert_eq!(at(&["missing"]), None);
        assert_eq!(at(&[]), None);
    }

    fn param_value(value: Value) -> Option<String> {
        let raw = RawValue::from_string(value.to_string()).expect("raw");
        super::param_value(&raw)
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("raw")
    }

    #[test]
    fn param_values_keep_number_spellings_and_read_lone_surrogates_lossily() {
        assert_eq!(super::param_value(&raw("1E2")).as_deref(), Some("1E2"));
        assert_eq!(super::param_value(&raw("-0")).as_deref(), Some("-0"));
        assert_eq!(
            super::param_value(&raw("12345678901234567890123")).as_deref(),
            Some("12345678901234567890123")
        );
        assert_eq!(
            super::param_value(&raw(r#""a\ud800""#)).as_deref(),
            Some("=?base64?Ye+/vQ==?=")
        );
        assert_eq!(
            super::param_value(&raw(r#""\u0041""#)).as_deref(),
            Some("A")
        );
        assert_eq!(super::param_value(&raw("[1]")), None);
    }

    #[test]
    fn param_values_follow_the_spec_encoding_table() {
        // MCP 2026-07-28 streamable-http "Value Encoding" examples.
        assert_eq!(param_value(json!("us-west1")).as_deref(), Some("us-west1"));
        assert_eq!(
            param_value(json!("Hello, 世界")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
        assert_eq!(
            param_value(json!(" padded ")).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            param_value(json!("line1\nline2")).as_deref(),
            Some("=?base64?bGluZTEKbGluZTI=?=")
        );
        assert_eq!(
            param_value(json!("=?base64?literal?=")).as_deref(),
            Some("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
        );
        assert_eq!(param_value(json!(42)).as_deref(), Some("42"));
        assert_eq!(param_value(json!(-7)).as_deref(), Some("-7"));
        assert_eq!(param_value(json!(false)).as_deref(), Some("false"));
        assert_eq!(param_value(json!("")).as_deref(), Some(""));
        assert_eq!(
            param_value(json!("us west 1")).as_deref(),
            Some("us west 1")
        );
        assert_eq!(param_value(json!(null)), None);
        assert_eq!(param_value(json!({"a": 1})), None);
    }

    #[test]
    fn base64_pads_each_length() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
    }
}
