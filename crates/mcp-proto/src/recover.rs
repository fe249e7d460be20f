//! What can still be read from imperfect input, so that a message we cannot
//! take whole is still answered to its own id.
//!
//! - [`replace_lone_surrogates`]: JSON text may escape a lone UTF-16
//!   surrogate (`"\ud800"`; JavaScript's `JSON.stringify` writes one for a
//!   string holding half a pair). RFC 8259 §8.2 leaves such text's meaning
//!   open and Rust strings cannot hold it, so where it must be decoded it
//!   reads as U+FFFD; where it is only carried (a forwarded call's
//!   arguments) it stays as written.
//! - [`salvage_id`]: the `id` of a message that cannot be parsed (broken
//!   JSON), read from the start of its text, so the error answering it
//!   carries the id (JSON-RPC 2.0 §5.1: the id is null only when it cannot
//!   be detected).
//! - [`IdFinder`]: the same for a line too long to be held: it is fed the
//!   text as it streams past and keeps only the id, wherever in the
//!   top-level object it comes.

use std::borrow::Cow;

use crate::id::RequestId;

/// `text` with every escaped lone surrogate (`\uD800` to `\uDFFF` not part
/// of a high-low pair) replaced by `\uFFFD`; borrowed when there is none.
///
/// Only escapes are touched: a backslash always starts a two-character
/// escape or a `\uXXXX` one, so the scan never mistakes escaped text for
/// an escape.
///
/// ```
/// use mcp_proto::recover::replace_lone_surrogates;
///
/// assert_eq!(replace_lone_surrogates(r#"{"v":"\ud800x"}"#), r#"{"v":"\uFFFDx"}"#);
/// // A valid pair and an escaped backslash stay as they are.
/// assert!(matches!(replace_lone_surrogates(r#""\ud83d\ude00 \\ud800""#), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = code_unit(bytes, i) else {
            // `\"`, `\\`, `\n`, … (or a broken escape, left for the parser).
            i += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && code_unit(bytes, i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..i]);
            out.push_str("\\uFFFD");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The UTF-16 code unit of the `\uXXXX` escape starting at `at`, if there
/// is one.
fn code_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u32::from_str_radix(hex, 16).ok()
}

/// Decodes `text` as `T`, reading escaped lone surrogates as U+FFFD when
/// the text holds any; the flag says whether it did.
///
/// # Errors
/// serde_json's error for text that does not decode even then.
pub fn from_str_lossy<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<(T, bool), serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok((value, false)),
        Err(error) => match replace_lone_surrogates(text) {
            Cow::Borrowed(_) => Err(error),
            Cow::Owned(replaced) => serde_json::from_str(&replaced).map(|value| (value, true)),
        },
    }
}

/// The request id of the JSON object whose text starts with `text`: the
/// value of the last top-level `id` member before the text ends or
/// breaks (the member a parse of the whole message keeps), when it is a
/// string or an integer within i64 and whole; `None` when that last one
/// is of another kind (`null`, `1.5`) or cut off. Other members are
/// skipped whatever they hold; the key may be spelled with escapes
/// (`"\u0069d"`); a UTF-8 byte order mark and whitespace are allowed.
///
/// ```
/// use mcp_proto::recover::salvage_id;
/// use mcp_proto::RequestId;
///
/// let cut = br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"aaaa"#;
/// assert_eq!(salvage_id(cut), Some(RequestId::String("big-1".into())));
/// assert_eq!(salvage_id(br#"{"params":{"id":1},"id":7,"#), Some(RequestId::Number(7)));
/// assert_eq!(salvage_id(br#"{"id":7,"id":8,"params":"#), Some(RequestId::Number(8)));
/// assert_eq!(salvage_id(br#"{"method":"ping","#), None);
/// ```
pub fn salvage_id(text: &[u8]) -> Option<RequestId> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut scan = Scan { text, at: 0 };
    let mut found = None;
    scan.expect(b'{')?;
    // Each step stops at the end of the text or at anything unexpected,
    // and then the id read so far is the answer.
    let mut member = || -> Option<bool> {
        let key = scan.string()?;
        scan.expect(b':')?;
        if is_id_key(key) {
            let start = scan.at;
            found = scan.id();
            if found.is_none() {
                scan.at = start;
                scan.skip_value()?;
            }
        } else {
            scan.skip_value()?;
        }
        Some(scan.next_byte()? == b',')
    };
    while let Some(true) = member() {}
    found
}

/// True for a key token (quotes included) that means `id`, spelled with
/// escapes or not.
fn is_id_key(token: &[u8]) -> bool {
    token == br#""id""#
        || (token.len() <= MAX_KEY_BYTES
            && token.contains(&b'\\')
            && std::str::from_utf8(token)
                .ok()
                .and_then(|text| serde_json::from_str::<String>(text).ok())
                .is_some_and(|key| key == "id"))
}

/// The most bytes of an `id` value [`IdFinder`] keeps: longer ids are not
/// recovered (a JSON-RPC id is a string or a number, not a document).
const MAX_ID_BYTES: usize = 1024;

/// Finds the top-level `id` member of a JSON object fed to it in pieces,
/// in constant memory (at most 1 KiB of the id's text is kept): for a
/// message too long to hold, whose id may come after megabytes of
/// `params`. Other members are skipped whatever they hold; nested
/// objects' `id` members are not the message's. The last top-level `id`
/// counts, as in [`salvage_id`]: text that is not an object, or whose
/// last `id` is cut off or too long, finds nothing.
///
/// ```
/// use mcp_proto::recover::IdFinder;
/// use mcp_proto::RequestId;
///
/// let mut finder = IdFinder::new();
/// finder.feed(br#"{"jsonrpc":"2.0","params":{"id":1,"blob":"aaaa"#);
/// finder.feed(br#"aaaa"},"id":"late-7","method":"tools/call"}"#);
/// assert_eq!(finder.id(), Some(RequestId::String("late-7".into())));
/// ```
#[derive(Debug, Clone, Default)]
pub struct IdFinder {
    state: FindState,
    /// Nesting depth: 1 inside the top-level object.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The current top-level key's text, quotes included, while it is
    /// short enough to be `"id"` (spelled with escapes or not).
    key: Vec<u8>,
    key_fits: bool,
    /// The id value's text, while it is read.
    value: Vec<u8>,
    /// False once the value being read passed [`MAX_ID_BYTES`].
    value_fits: bool,
    /// The text of the last id value read whole (empty when it was too
    /// long).
    found: Vec<u8>,
}

/// Where an [`IdFinder`] is in the top-level object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum FindState {
    /// Before the opening `{`.
    #[default]
    Start,
    /// Reading a member's key (or before it).
    Key,
    /// After a key, before its `:`.
    Colon,
    /// Skipping a member's value.
    Skip,
    /// Reading an `id` member's value.
    Id,
    /// Done: the object ended, or the text is no object.
    Done,
}

/// The longest key text that can still mean `id`: `"\u0069\u0064"`.
const MAX_KEY_BYTES: usize = 14;

impl IdFinder {
    /// A finder that has seen nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next piece of the text.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.state == FindState::Done {
                return;
            }
            self.step(byte);
        }
    }

    /// The last top-level id whose whole value has been fed (`None`
    /// before, while a later `id` is being read, and when the text has no
    /// readable top-level `id`).
    pub fn id(&self) -> Option<RequestId> {
        if self.state == FindState::Id || self.found.is_empty() {
            return None;
        }
        let mut text = Vec::with_capacity(self.found.len() + 7);
        text.extend_from_slice(br#"{"id":"#);
        text.extend_from_slice(&self.found);
        text.push(b'}');
        salvage_id(&text)
    }

    fn step(&mut self, byte: u8) {
        if self.in_string {
            self.keep(byte);
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                if self.state == FindState::Key && self.depth == 1 {
                    self.state = FindState::Colon;
                }
            }
            return;
        }
        if byte.is_ascii_whitespace() {
            return;
        }
        match self.state {
            FindState::Start => match byte {
                // A UTF-8 byte order mark may come first.
                0xEF | 0xBB | 0xBF => {}
                b'{' => self.enter_key(),
                _ => self.state = FindState::Done,
            },
            FindState::Key => match byte {
                b'"' => {
                    self.key.clear();
                    self.key_fits = true;
                    self.in_string = true;
                    self.keep(byte);
                }
                _ => self.state = FindState::Done,
            },
            FindState::Colon => match byte {
                b':' if self.key_fits && self.key_is_id() => {
                    self.value.clear();
                    self.value_fits = true;
                    self.state = FindState::Id;
                }
                b':' => self.state = FindState::Skip,
                _ => self.state = FindState::Done,
            },
            FindState::Skip | FindState::Id => self.value_byte(byte),
            FindState::Done => {}
        }
    }

    /// One byte (outside strings) of a member's value.
    fn value_byte(&mut self, byte: u8) {
        match byte {
            b',' | b'}' if self.depth == 1 => {
                if self.state == FindState::Id {
                    self.found = if self.value_fits {
                        std::mem::take(&mut self.value)
                    } else {
                        Vec::new()
                    };
                }
                if byte == b',' {
                    self.enter_key();
                } else {
                    self.state = FindState::Done;
                }
                return;
            }
            b'{' | b'[' => self.depth += 1,
            // A `]` closing the top-level object: not JSON.
            b'}' | b']' if self.depth == 1 => {
                self.state = FindState::Done;
                return;
            }
            b'}' | b']' => self.depth -= 1,
            b'"' => self.in_string = true,
            _ => {}
        }
        self.keep(byte);
    }

    fn enter_key(&mut self) {
        self.depth = 1;
        self.state = FindState::Key;
    }

    /// Keeps `byte` of the key or of the id value being read.
    fn keep(&mut self, byte: u8) {
        match self.state {
            FindState::Key if self.key.len() < MAX_KEY_BYTES => self.key.push(byte),
            FindState::Key => self.key_fits = false,
            FindState::Id if self.value.len() < MAX_ID_BYTES => self.value.push(byte),
            // Too long to be an id worth answering to.
            FindState::Id => self.value_fits = false,
            _ => {}
        }
    }

    fn key_is_id(&self) -> bool {
        is_id_key(&self.key)
    }
}

/// A cursor over JSON text for [`salvage_id`]; every step returns `None`
/// at the end of the text or at anything unexpected.
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn next_byte(&mut self) -> Option<u8> {
        while let Some(&b) = self.text.get(self.at) {
            self.at += 1;
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
        }
        None
    }

    fn expect(&mut self, wanted: u8) -> Option<()> {
        (self.next_byte()? == wanted).then_some(())
    }

    /// A whole string token, quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.at - 1;
        self.rest_of_string()?;
        Some(&self.text[start..self.at])
    }

    /// Moves past the closing quote of a string whose opening quote was read.
    fn rest_of_string(&mut self) -> Option<()> {
        loop {
            match *self.text.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    fn id(&mut self) -> Option<RequestId> {
        let first = self.next_byte()?;
        self.at -= 1;
        if first == b'"' {
            let token = self.string()?;
            let text = std::str::from_utf8(token).ok()?;
            let (id, _) = from_str_lossy::<String>(text).ok()?;
            return Some(RequestId::String(id));
        }
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
        {
            self.at += 1;
        }
        // A number cut off by the end of the text may be longer than read.
        let end = *self.text.get(self.at)?;
        if end.is_ascii_alphanumeric() || end == b'.' {
            return None;
        }
        let digits = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        digits.parse::<i64>().ok().map(RequestId::Number)
    }

    /// Moves past one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.next_byte()? {
                b'"' => self.rest_of_string()?,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.checked_sub(1)?,
                b',' | b':' if depth > 0 => {}
                b',' | b':' => return None,
                _ => {
                    // A number, true, false or null: up to its end.
                    while self.text.get(self.at).is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
                    }) {
                        self.at += 1;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_of_each_kind_are_replaced() {
        let cases = [
            (r#""\ud800""#, r#""\uFFFD""#),
            (r#""\uDFFF""#, r#""\uFFFD""#),
            (r#""\ud800\ud800""#, r#""\uFFFD\uFFFD""#),
            (r#""\udc00\ud800""#, r#""\uFFFD\uFFFD""#),
            (r#""a\ud800\u0041""#, r#""a\uFFFD\u0041""#),
            (r#""\ud83d\ude00\ud800""#, r#""\ud83d\ude00\uFFFD""#),
        ];
        for (text, want) in cases {
            assert_eq!(replace_lone_surrogates(text), want, "{text}");
        }
    }

    #[test]
    fn text_without_lone_surrogates_is_borrowed() {
        for text in [
            r#""\ud83d\ude00""#,
            r#""\\ud800""#,
            r#""\u00e9\n""#,
            "[1,2]",
        ] {
            assert!(
                matches!(replace_lone_surrogates(text), Cow::Borrowed(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn lossy_decoding_reports_the_replacement() {
        let (value, replaced) = from_str_lossy::<String>(r#""x\ud800""#).unwrap();
        assert_eq!((value.as_str(), replaced), ("x\u{FFFD}", true));
        let (value, replaced) = from_str_lossy::<String>(r#""\u00e9""#).unwrap();
        assert_eq!((value.as_str(), replaced), ("é", false));
        assert!(from_str_lossy::<String>(r#""\ud800"#).is_err());
    }

    #[test]
    fn ids_are_salvaged_from_the_start_of_broken_text() {
        let cases: [(&[u8], Option<RequestId>); 14] = [
            (
                br#"{"jsonrpc":"2.0","id":"big-1","params":{"#,
                Some("big-1".into()),
            ),
            (br#"  {"id" : -42 , "method""#, Some(RequestId::Number(-42))),
            (b"\xEF\xBB\xBF{\"id\":\"b\\u00e9\"}", Some("bé".into())),
            (
                br#"{"a":[{"id":1},"}"],"b":{"c":"\""},"id":3,"#,
                Some(RequestId::Number(3)),
            ),
            (br#"{"id":"\ud800"}"#, Some("\u{FFFD}".into())),
            (br#"{"jsonrpc":"2.0","id":12"#, None),
            (br#"{"id":1.5,"#, None),
            (br#"{"id":null,"#, None),
            (br#"[{"id":1}]"#, None),
            (
                br#"{"id":1,"method":"x","id":"two","params":{"#,
                Some("two".into()),
            ),
            (br#"{"\u0069d":5,"#, Some(RequestId::Number(5))),
            (br#"{"id":1,"id":null,"#, None),
            (br#"{"id":1,"id":"cu"#, None),
            (br#"{"id":1,"idx":2,"#, Some(RequestId::Number(1))),
        ];
        for (text, want) in cases {
            assert_eq!(salvage_id(text), want, "{}", String::from_utf8_lossy(text));
        }
    }
}
