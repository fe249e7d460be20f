//! JSON read leniently: a `\u` escape of a lone UTF-16 surrogate, which no
//! JSON parser can turn into a string, is read as `\ufffd`, so a request
//! that carries one is still routed and echoed.

use serde_json::Value;

/// `body` as JSON, reading a `\u` escape of a lone UTF-16 surrogate as
/// `\ufffd`; `None` when it is not JSON (or not UTF-8).
pub(crate) fn parse_lenient(body: &[u8]) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice(body) {
        return Some(value);
    }
    let text = std::str::from_utf8(body).ok()?;
    serde_json::from_str(&without_lone_surrogates(text)).ok()
}

/// `text` with each `\uXXXX` escape inside a string that is a UTF-16
/// surrogate not part of a high-low pair replaced by `\ufffd`.
fn without_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let unit_at = |at: usize| {
        let digits = bytes.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| {
        if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u') {
            unit_at(at + 2)
        } else {
            None
        }
    };
    let (mut out, mut copied, mut at, mut in_string) = (String::new(), 0, 0, false);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                in_string = !in_string;
                at += 1;
            }
            b'\\' if in_string => match escape_at(at) {
                Some(0xD800..=0xDBFF) if matches!(escape_at(at + 6), Some(0xDC00..=0xDFFF)) => {
                    at += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.push_str(&text[copied..at]);
                    out.push_str("\\ufffd");
                    at += 6;
                    copied = at;
                }
                Some(_) => at += 6,
                None => at += 2,
            },
            _ => at += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(
            without_lone_surrogates(r#"{"v":"\ud800","w":"a\udc00b"}"#),
            r#"{"v":"\ufffd","w":"a\ufffdb"}"#
        );
        assert_eq!(
            without_lone_surrogates(r#"["\ud83d\ude00","\ud83d\u0041","\\ud800"]"#),
            r#"["\ud83d\ude00","\ufffd\u0041","\\ud800"]"#
        );
        assert_eq!(
            without_lone_surrogates(r#"{"\"\ud800":"\u00e9\ud800"}"#),
            r#"{"\"\ufffd":"\u00e9\ufffd"}"#
        );
    }

    #[test]
    fn a_body_with_a_lone_surrogate_is_read_leniently() {
        let body = br#"{"name":"billing","arguments":{"v":"\ud800"}}"#;
        assert_eq!(
            parse_lenient(body),
            Some(json!({"name": "billing", "arguments": {"v": "\u{fffd}"}}))
        );
        assert_eq!(parse_lenient(b"{]"), None);
    }
}
