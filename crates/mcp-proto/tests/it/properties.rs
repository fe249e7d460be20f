//! Properties: valid messages round-trip; the SSE parser gives the same
//! events for every split of a stream; the framer never yields a partial
//! message, and names the id of every line too long to keep; the id read
//! from text that is not parsed is the one a parse keeps.

use std::io::{BufReader, Read};

use mcp_proto::framing::{FrameError, FrameReader, FrameWriter};
use mcp_proto::sse::{SseEvent, SseParser};
use mcp_proto::*;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Quarter steps are exact in binary, so they survive text.
        (-1000i32..1000).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z_/.]{1,10}", json_value(), 0..5)
        .prop_map(|m| m.into_iter().collect())
}

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        ".{0,16}".prop_map(RequestId::String),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    let params = || prop::option::of(json_object().prop_map(Value::Object));
    let method = "[a-zA-Z/_]{1,24}";
    prop_oneof![
        (request_id(), method, params())
            .prop_map(|(id, m, p)| Message::Request(Request::new(id, m, p))),
        (method, params()).prop_map(|(m, p)| Message::Notification(Notification::new(m, p))),
        (request_id(), json_value())
            .prop_map(|(id, v)| Message::Response(Response::success(id, v))),
        (
            prop::option::of(request_id()),
            any::<i64>(),
            ".{0,20}",
            prop::option::of(json_value())
        )
            .prop_map(|(id, code, msg, data)| {
                let mut e = ErrorObject::new(code, msg);
                e.data = data;
                Message::Response(Response::error(id, e))
            }),
    ]
}

fn content_block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        ".{0,20}".prop_map(ContentBlock::text),
        ("[A-Za-z0-9+/]{0,12}", "image/[a-z]{1,5}").prop_map(|(data, mime_type)| {
            ContentBlock::Image(ImageContent {
                data,
                mime_type,
                ..Default::default()
            })
        }),
        (
            "file:///[a-z]{1,8}",
            "[a-z]{1,8}",
            prop::option::of(any::<u32>())
        )
            .prop_map(|(uri, name, size)| {
                ContentBlock::ResourceLink(ResourceLink::from(Resource {
                    uri,
                    name,
                    size: size.map(u64::from),
                    ..Default::default()
                }))
            }),
    ]
}

/// Extra members whose names cannot clash with known ones.
fn extra() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("x-[a-z]{1,6}", json_value(), 0..3)
        .prop_map(|m| m.into_iter().collect())
}

fn call_tool_result() -> impl Strategy<Value = CallToolResult> {
    (
        prop::collection::vec(content_block(), 0..4),
        prop::option::of(json_value().prop_filter("null reads as absent", |v| !v.is_null())),
        prop::option::of(any::<bool>()),
        prop::option::of(Just("complete".to_owned())),
        extra(),
    )
        .prop_map(
            |(content, structured_content, is_error, result_type, extra)| CallToolResult {
                content,
                structured_content,
                is_error,
                result_type,
                meta: None,
                extra,
            },
        )
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        "[a-zA-Z0-9_.-]{1,20}",
        prop::option::of(".{0,20}"),
        json_object(),
        prop::option::of(any::<bool>()),
        extra(),
    )
        .prop_map(|(name, description, mut input_schema, read_only, extra)| {
            input_schema.insert("type".into(), Value::from("object"));
            Tool {
                name,
                description,
                input_schema: input_schema.into(),
                annotations: read_only.map(|r| ToolAnnotations {
                    read_only_hint: Some(r),
                    ..Default::default()
                }),
                extra,
                ..Default::default()
            }
        })
}

/// A reader that hands out its bytes in the given chunk sizes.
struct Chunked {
    data: Vec<u8>,
    pos: usize,
    sizes: Vec<usize>,
    turn: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.sizes[self.turn % self.sizes.len()].max(1);
        self.turn += 1;
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// One SSE event in a generated stream: its lines and what it must yield.
#[derive(Debug, Clone)]
struct Ev {
    event: Option<String>,
    data: Vec<String>,
    id: Option<String>,
    comment: bool,
}

fn sse_event() -> impl Strategy<Value = Ev> {
    (
        prop::option::of("[a-z]{1,8}"),
        prop::collection::vec("[ -~]{0,20}", 1..4),
        prop::option::of("[a-z0-9]{1,6}"),
        any::<bool>(),
    )
        .prop_map(|(event, data, id, comment)| Ev {
            event,
            data,
            id,
            comment,
        })
}

fn encode_sse(events: &[Ev], endings: &[&str]) -> Vec<u8> {
    let mut out = String::new();
    let mut n = 0;
    let mut end = |out: &mut String| {
        out.push_str(endings[n % endings.len()]);
        n += 1;
    };
    for ev in events {
        if ev.comment {
            out.push_str(": keep-alive");
            end(&mut out);
        }
        if let Some(e) = &ev.event {
            out.push_str("event: ");
            out.push_str(e);
            end(&mut out);
        }
        if let Some(id) = &ev.id {
            out.push_str("id:");
            out.push_str(id);
            end(&mut out);
        }
        for d in &ev.data {
            out.push_str("data: ");
            out.push_str(d);
            end(&mut out);
        }
        end(&mut out);
    }
    out.into_bytes()
}

fn expected_events(events: &[Ev]) -> Vec<SseEvent> {
    let mut last_id = None;
    events
        .iter()
        .map(|ev| {
            if ev.id.is_some() {
                last_id.clone_from(&ev.id);
            }
            SseEvent {
                event: ev.event.clone().unwrap_or_else(|| "message".into()),
                data: ev.data.join("\n"),
                id: last_id.clone(),
            }
        })
        .collect()
}

fn split_feed(bytes: &[u8], cuts: &[usize]) -> Vec<Result<SseEvent, sse::SseError>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([bytes.len()]) {
        out.extend(parser.feed(&bytes[start..cut]));
        start = cut;
    }
    out
}

/// One member of a top-level object for the id properties: `id` as
/// written, `id` spelled with escapes, or another name; and its value.
fn id_members() -> impl Strategy<Value = Vec<(u8, String, Value)>> {
    let value = prop_oneof![
        any::<i64>().prop_map(Value::from),
        ".{0,6}".prop_map(Value::String),
        json_value(),
    ];
    prop::collection::vec((0u8..3, "[a-z]{1,4}", value), 0..6)
}

/// The object text of `members`, and the id a parse of it keeps: the last
/// `id` member's value, when it is a string or an i64.
fn id_object(members: &[(u8, String, Value)]) -> (String, Option<RequestId>) {
    let mut text = String::from("{");
    let mut id = None;
    for (i, (kind, name, value)) in members.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let key = match kind {
            0 => "\"id\"".to_owned(),
            1 => "\"\\u0069d\"".to_owned(),
            _ => serde_json::to_string(name).unwrap(),
        };
        text.push_str(&format!("{key}:{value}"));
        if *kind < 2 || name == "id" {
            id = match value {
                Value::String(s) => Some(RequestId::String(s.clone())),
                Value::Number(n) => n.as_i64().map(RequestId::Number),
                _ => None,
            };
        }
    }
    text.push('}');
    (text, id)
}

/// A request's members as written: an id token (integers of every size,
/// `-0`, floats, `null`, strings with and without escapes), a method
/// token, a params token, and whether a `result` is written too.
fn request_members() -> impl Strategy<Value = (String, String, Option<String>, bool)> {
    let id = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("9223372036854775808".to_owned()),
        Just("-9223372036854775809".to_owned()),
        Just("1.0".to_owned()),
        Just("1e3".to_owned()),
        Just("null".to_owned()),
        "[a-z0-9 é-]{0,8}".prop_map(|s| format!("\"{s}\"")),
        "[a-z]{0,4}".prop_map(|s| format!("\"{s}\\u0041\\n\"")),
    ];
    let method = prop_oneof![
        "[a-z/_]{1,16}".prop_map(|s| format!("\"{s}\"")),
        "[a-z]{1,6}".prop_map(|s| format!("\"{s}\\/call\"")),
        Just("7".to_owned()),
    ];
    let params = prop::option::of(prop_oneof![
        json_object().prop_map(|m| serde_json::to_string(&m).unwrap()),
        Just("null".to_owned()),
        Just("[1]".to_owned()),
        Just("\"x\"".to_owned()),
    ]);
    (id, method, params, any::<bool>())
}

proptest! {
    #[test]
    fn a_plainly_written_request_reads_as_its_escaped_spelling(
        (id, method, params, result) in request_members(),
    ) {
        // `"2\u002e0"` is "2.0" decoded: the general path reads every
        // member; the plain spelling may be read straight from the text.
        let text = |jsonrpc: &str| {
            let mut text = format!(r#"{{"jsonrpc":{jsonrpc},"id":{id},"method":{method}"#);
            if let Some(params) = &params {
                text.push_str(&format!(r#","params":{params}"#));
            }
            if result {
                text.push_str(r#","result":{}"#);
            }
            text.push('}');
            text
        };
        let plain = text(r#""2.0""#);
        let escaped = text(r#""2\u002e0""#);
        prop_assert_eq!(
            parse_message(plain.as_bytes()),
            parse_message(escaped.as_bytes()),
            "{}",
            plain
        );
    }

    #[test]
    fn the_salvaged_id_is_the_one_a_parse_keeps(
        members in id_members(),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let (text, id) = id_object(&members);
        // serde_json keeps the last of a repeated member, too.
        if let Ok(Value::Object(parsed)) = serde_json::from_str::<Value>(&text) {
            let kept = match parsed.get("id") {
                Some(Value::String(s)) => Some(RequestId::String(s.clone())),
                Some(Value::Number(n)) => n.as_i64().map(RequestId::Number),
                _ => None,
            };
            prop_assert_eq!(&kept, &id);
        }
        prop_assert_eq!(recover::salvage_id(text.as_bytes()), id.clone(), "{}", text);
        let bytes = text.as_bytes();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut finder = recover::IdFinder::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            finder.feed(&bytes[start..cut]);
            start = cut;
        }
        prop_assert_eq!(finder.id(), id, "{}", text);
    }

    #[test]
    fn any_valid_message_round_trips(msg in message()) {
        let bytes = serde_json::to_vec(&msg).unwrap();
        prop_assert_eq!(parse_message(&bytes).unwrap(), msg);
    }

    #[test]
    fn call_tool_result_round_trips(result in call_tool_result()) {
        let v = serde_json::to_value(&result).unwrap();
        prop_assert_eq!(CallToolResult::from_value(v).unwrap(), result);
    }

    #[test]
    fn tool_round_trips(tool in tool()) {
        let bytes = serde_json::to_vec(&tool).unwrap();
        prop_assert_eq!(serde_json::from_slice::<Tool>(&bytes).unwrap(), tool);
    }

    #[test]
    fn sse_same_events_for_every_split(
        events in prop::collection::vec(sse_event(), 0..6),
        ending in 0usize..4,
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let endings: &[&str] = match ending {
            0 => &["\n"],
            1 => &["\r"],
            2 => &["\r\n"],
            // Never "\r" then "\n": that pair is one CRLF line end.
            _ => &["\r\n", "\r", "\r\n", "\n"],
        };
        let bytes = encode_sse(&events, endings);
        let whole: Vec<_> = split_feed(&bytes, &[]);
        let expected: Vec<_> = expected_events(&events).into_iter().map(Ok).collect();
        prop_assert_eq!(&whole, &expected);
        prop_assert_eq!(split_feed(&bytes, &cuts), whole.clone());
        // Byte by byte too.
        let mut parser = SseParser::new();
        let one_by_one: Vec<_> = bytes.iter().flat_map(|b| parser.feed(std::slice::from_ref(b))).collect();
        prop_assert_eq!(one_by_one, whole);
    }

    #[test]
    fn framer_never_yields_a_partial_message(
        messages in prop::collection::vec(message(), 0..8),
        sizes in prop::collection::vec(1usize..64, 1..8),
        capacity in 1usize..32,
        max in 16usize..400,
    ) {
        let mut buf = Vec::new();
        let mut writer = FrameWriter::new(&mut buf);
        for m in &messages {
            writer.write_message(m).unwrap();
        }
        let lines: Vec<Vec<u8>> = buf.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(<[u8]>::to_vec).collect();
        prop_assert_eq!(lines.len(), messages.len());

        let source = Chunked { data: buf.clone(), pos: 0, sizes, turn: 0 };
        let mut reader = FrameReader::with_max_line_len(BufReader::with_capacity(capacity, source), max);
        for (m, line) in messages.iter().zip(&lines) {
            match reader.read_line() {
                Ok(Some(got)) => {
                    prop_assert!(line.len() <= max);
                    prop_assert_eq!(&parse_message(&got).unwrap(), m);
                }
                Err(FrameError::LineTooLong { len, id, .. }) => {
                    prop_assert!(line.len() > max);
                    prop_assert_eq!(len, line.len());
                    // The discarded line is still answered to its id.
                    let whole: Value = serde_json::from_slice(line).unwrap();
                    let want = match &whole["id"] {
                        Value::String(s) => Some(RequestId::String(s.clone())),
                        Value::Number(n) => n.as_i64().map(RequestId::Number),
                        _ => None,
                    };
                    prop_assert_eq!(id, want);
                }
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }
        prop_assert!(reader.read_line().unwrap().is_none());
    }
}
