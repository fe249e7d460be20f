//! The bad-input table: each input with the error code and message it must
//! give. None may panic or hang.

use mcp_proto::framing::{FrameError, FrameReader};
use mcp_proto::recover::IdFinder;
use mcp_proto::{CallToolRequestParams, Message, RequestId, error_code, parse_message};

struct Case {
    name: &'static str,
    input: Vec<u8>,
    code: i64,
    message: &'static str,
    id: Option<RequestId>,
}

fn case(name: &'static str, input: &[u8], code: i64, message: &'static str) -> Case {
    Case {
        name,
        input: input.to_vec(),
        code,
        message,
        id: None,
    }
}

fn nested(depth: usize, open: &str, close: &str) -> Vec<u8> {
    let mut s = open.repeat(depth);
    s.push_str(&close.repeat(depth));
    s.into_bytes()
}

#[test]
fn bad_input_table() {
    let table = vec![
        case(
            "empty line",
            b"",
            error_code::PARSE_ERROR,
            "empty message: expected one JSON-RPC message object",
        ),
        case(
            "whitespace only",
            b" \t \r ",
            error_code::PARSE_ERROR,
            "empty message: expected one JSON-RPC message object",
        ),
        case(
            "{}",
            b"{}",
            error_code::INVALID_REQUEST,
            "jsonrpc must be \"2.0\", but it is missing",
        ),
        case(
            "[]",
            b"[]",
            error_code::INVALID_REQUEST,
            "batches are not supported since 2025-06-18",
        ),
        case(
            "one-element batch",
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            error_code::INVALID_REQUEST,
            "batches are not supported since 2025-06-18",
        ),
        Case {
            id: Some(RequestId::Number(1)),
            ..case(
                "jsonrpc 1.0",
                br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                error_code::INVALID_REQUEST,
                "jsonrpc must be \"2.0\", found \"1.0\"",
            )
        },
        case(
            "id null",
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            "id must be a string or an integer, found null",
        ),
        case(
            "id 1.5",
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            "id must be a string or an integer, found 1.5",
        ),
        case(
            "id object",
            br#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            "id must be a string or an integer, found an object",
        ),
        Case {
            id: Some(RequestId::String("m".into())),
            ..case(
                "method as a number",
                br#"{"jsonrpc":"2.0","id":"m","method":42}"#,
                error_code::INVALID_REQUEST,
                "method must be a string, found a number",
            )
        },
        Case {
            id: Some(RequestId::Number(9)),
            ..case(
                "tools/call params as an array",
                br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":["fs",{}]}"#,
                error_code::INVALID_REQUEST,
                "params must be an object, found an array",
            )
        },
        case(
            "a NUL byte",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"pi\0ng\"}",
            error_code::PARSE_ERROR,
            "message is not valid JSON: control character (\\u0000-\\u001F) found while parsing a string at line 1 column 29",
        ),
        case(
            "a NUL byte between tokens",
            b"{\"jsonrpc\":\"2.0\",\0\"method\":\"ping\"}",
            error_code::PARSE_ERROR,
            "message is not valid JSON: key must be a string at line 1 column 18",
        ),
        case(
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}",
            error_code::PARSE_ERROR,
            "message is not valid UTF-8: invalid byte at offset 27",
        ),
        case(
            "arrays nested 10,000 deep",
            &nested(10_000, "[", "]"),
            error_code::PARSE_ERROR,
            "message is not valid JSON: recursion limit exceeded at line 1 column 128",
        ),
        case(
            "objects nested 10,000 deep",
            &nested(10_000, "{\"a\":", "}"),
            error_code::PARSE_ERROR,
            // The innermost `{"a":}` is the first error: members are
            // skipped without recursion, so depth alone is no trouble.
            "message is not valid JSON: expected value at line 1 column 50001",
        ),
        // A reader that keeps the first id would answer 17, one that keeps
        // the last 18: neither is the id.
        case(
            "id written twice",
            br#"{"jsonrpc":"2.0","id":17,"id":18,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            "member \"id\" is written twice",
        ),
        Case {
            id: Some(RequestId::Number(4)),
            ..case(
                "method written twice",
                br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{},"method":"tools/call"}"#,
                error_code::INVALID_REQUEST,
                "member \"method\" is written twice",
            )
        },
        Case {
            id: Some(RequestId::String("p".into())),
            ..case(
                "params written twice",
                br#"{"params":{"name":"a"},"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"b"}}"#,
                error_code::INVALID_REQUEST,
                "member \"params\" is written twice",
            )
        },
    ];
    let mut failures = Vec::new();
    for c in &table {
        match parse_message(&c.input) {
            Ok(m) => failures.push(format!("{}: accepted as {m:?}", c.name)),
            Err(e) => {
                if (e.error.code, e.error.message.as_str(), &e.id) != (c.code, c.message, &c.id) {
                    failures.push(format!(
                        "{}: got {} {:?} id {:?}",
                        c.name, e.error.code, e.error.message, e.id
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ten_megabyte_line_is_discarded_and_reading_goes_on() {
    let mut input = vec![b'x'; 10 * 1024 * 1024];
    input.push(b'\n');
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n");
    let mut reader = FrameReader::new(&input[..]);
    let err = reader.read_line().unwrap_err();
    assert!(matches!(
        err,
        FrameError::LineTooLong {
            max: 8_388_608,
            len: 10_485_760,
            id: None
        }
    ));
    let answer = err.to_error_object().unwrap();
    assert_eq!(answer.code, error_code::INVALID_REQUEST);
    assert_eq!(
        answer.message,
        "message of 10485760 bytes exceeds the maximum line length of 8388608 bytes"
    );
    let next = reader.read_message().unwrap().unwrap().unwrap();
    assert!(matches!(next, Message::Notification(n) if n.method == "after"));
    assert!(reader.read_line().unwrap().is_none());
}

#[test]
fn an_over_long_line_keeps_the_id_its_start_names() {
    // Fed in small chunks, so the start arrives before the limit is seen.
    let start = br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"v":""#;
    let mut input = start.to_vec();
    input.resize(9 * 1024 * 1024, b'a');
    input.extend_from_slice(b"\"}}\n");
    let reader = std::io::BufReader::with_capacity(1000, &input[..]);
    let err = FrameReader::new(reader).read_line().unwrap_err();
    let FrameError::LineTooLong { id, len, .. } = err else {
        panic!("not LineTooLong: {err}");
    };
    assert_eq!(
        (id, len),
        (Some(RequestId::String("big-1".into())), input.len() - 1)
    );
}

#[test]
fn an_over_long_line_keeps_an_id_that_comes_after_its_params() {
    // The id after 9 MiB of params, with a nested `id` and escapes before it
    // that are not the message's.
    let start = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"v":"\"}\\"#;
    let mut input = start.to_vec();
    input.resize(9 * 1024 * 1024, b'a');
    input.extend_from_slice(br#""},"id" : 4711}"#);
    input.push(b'\n');
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n");
    let mut reader = FrameReader::new(std::io::BufReader::with_capacity(1000, &input[..]));
    let err = reader.read_line().unwrap_err();
    let FrameError::LineTooLong { id, .. } = err else {
        panic!("not LineTooLong: {err}");
    };
    assert_eq!(id, Some(RequestId::Number(4711)));
    let next = reader.read_message().unwrap().unwrap().unwrap();
    assert!(matches!(next, Message::Notification(n) if n.method == "after"));
}

#[test]
fn the_id_finder_reads_only_the_top_level_id() {
    let cases: [(&str, Option<RequestId>); 14] = [
        (r#"{"id":1}"#, Some(RequestId::Number(1))),
        (
            r#"{"a":{"id":2},"id":"x"}"#,
            Some(RequestId::String("x".into())),
        ),
        (
            r#"{"a":["id",{"id":3}],"id":-4}"#,
            Some(RequestId::Number(-4)),
        ),
        (r#"{"a":"\"id\":5","id":6}"#, Some(RequestId::Number(6))),
        (r#"{"\u0069d":7}"#, Some(RequestId::Number(7))),
        (
            "\u{feff} { \"id\" : \"sp ace\" }",
            Some(RequestId::String("sp ace".into())),
        ),
        (r#"{"id":8,"id":9}"#, Some(RequestId::Number(9))),
        (r#"{"id":8,"x":1,"id":null}"#, None),
        (r#"{"id":8,"x":{"id":1},"#, Some(RequestId::Number(8))),
        (r#"{"ids":1,"xid":2}"#, None),
        (r#"{"a":{"id":2}}"#, None),
        (r#"[{"id":1}]"#, None),
        (r#"{"id":1.5}"#, None),
        (r#"{"id":"cut"#, None),
    ];
    for (text, want) in cases {
        // Whole, and one byte at a time: the answer must not depend on
        // where the pieces break.
        let mut whole = IdFinder::new();
        whole.feed(text.as_bytes());
        let mut bytewise = IdFinder::new();
        for byte in text.as_bytes() {
            bytewise.feed(std::slice::from_ref(byte));
        }
        assert_eq!(whole.id(), want, "{text}");
        assert_eq!(bytewise.id(), want, "{text} (byte by byte)");
    }
}

#[test]
fn an_id_longer_than_a_kilobyte_is_not_recovered() {
    let mut finder = IdFinder::new();
    finder.feed(format!(r#"{{"id":"{}"}}"#, "i".repeat(2000)).as_bytes());
    assert_eq!(finder.id(), None);
    // The last id counts: an overlong one after a short one hides it, a
    // short one after an overlong one is read.
    let long = "i".repeat(2000);
    let mut finder = IdFinder::new();
    finder.feed(format!(r#"{{"id":1,"id":"{long}"}}"#).as_bytes());
    assert_eq!(finder.id(), None);
    let mut finder = IdFinder::new();
    finder.feed(format!(r#"{{"id":"{long}","id":2}}"#).as_bytes());
    assert_eq!(finder.id(), Some(RequestId::Number(2)));
}

#[test]
fn typed_params_errors_are_invalid_params() {
    let Message::Request(req) = parse_message(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
    )
    .unwrap() else {
        panic!("a request")
    };
    let err = req.parse_params::<CallToolRequestParams>().unwrap_err();
    assert_eq!(err.code, error_code::INVALID_PARAMS);
    assert_eq!(
        err.message,
        "invalid params for tools/call: params.name is required"
    );
}

#[test]
fn response_shapes_are_checked() {
    let cases: [(&[u8], &str); 4] = [
        (
            br#"{"jsonrpc":"2.0","id":1}"#,
            "a message must have method (request or notification), or result or error (response)",
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
            "a response must have result or error, not both",
        ),
        (
            br#"{"jsonrpc":"2.0","result":{}}"#,
            "id is required in a result response",
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
            "error.code must be an integer, found a string",
        ),
    ];
    for (input, message) in cases {
        let err = parse_message(input).unwrap_err();
        assert_eq!(
            (err.error.code, err.error.message.as_str()),
            (error_code::INVALID_REQUEST, message)
        );
    }
}
