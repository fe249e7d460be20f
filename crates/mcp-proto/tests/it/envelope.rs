//! The JSON-RPC envelope: reading, writing, ids.

use mcp_proto::{
    ErrorObject, Message, Notification, Request, RequestId, Response, ResponsePayload, error_code,
    parse_message,
};
use serde_json::json;

use crate::common::to_json;

#[test]
fn request_with_string_id_round_trips() {
    let bytes = br#"{"jsonrpc":"2.0","id":"a-1","method":"tools/list","params":{"cursor":"c2"}}"#;
    let msg = parse_message(bytes).unwrap();
    assert_eq!(
        msg,
        Message::Request(Request::new(
            "a-1",
            "tools/list",
            Some(json!({"cursor": "c2"}))
        ))
    );
    assert_eq!(
        to_json(&msg),
        json!({"jsonrpc": "2.0", "id": "a-1", "method": "tools/list", "params": {"cursor": "c2"}})
    );
}

#[test]
fn notification_has_no_id() {
    let msg = parse_message(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    assert_eq!(
        msg,
        Message::Notification(Notification::new("notifications/initialized", None))
    );
}

#[test]
fn success_and_error_responses() {
    let msg = parse_message(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
    assert_eq!(
        msg,
        Message::Response(Response::success(RequestId::Number(3), json!({})))
    );

    let msg = parse_message(
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":[1]}}"#,
    )
    .unwrap();
    let Message::Response(resp) = msg else {
        panic!("response")
    };
    assert_eq!(resp.id, None);
    assert_eq!(
        resp.payload,
        ResponsePayload::Error(ErrorObject::parse_error("bad").with_data(json!([1])))
    );
    // Without an id, the id is left out (never written as null).
    assert_eq!(
        to_json(&resp),
        json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "bad", "data": [1]}})
    );
}

#[test]
fn error_codes_have_their_values() {
    assert_eq!(error_code::PARSE_ERROR, -32700);
    assert_eq!(error_code::INVALID_REQUEST, -32600);
    assert_eq!(error_code::METHOD_NOT_FOUND, -32601);
    assert_eq!(error_code::INVALID_PARAMS, -32602);
    assert_eq!(error_code::INTERNAL_ERROR, -32603);
    assert_eq!(error_code::RESOURCE_NOT_FOUND, -32002);
    assert_eq!(error_code::HEADER_MISMATCH, -32020);
    assert_eq!(error_code::MISSING_REQUIRED_CLIENT_CAPABILITY, -32021);
    assert_eq!(error_code::UNSUPPORTED_PROTOCOL_VERSION, -32022);
    assert_eq!(error_code::URL_ELICITATION_REQUIRED, -32042);
    assert_eq!(
        ErrorObject::method_not_found("x/y").message,
        "method not found: x/y"
    );
}

#[test]
fn unsupported_version_error_carries_supported_and_requested() {
    use mcp_proto::Revision;
    let e = ErrorObject::unsupported_protocol_version(
        "1900-01-01",
        &[Revision::V2026_07_28, Revision::V2025_11_25],
    );
    assert_eq!(e.code, -32022);
    assert_eq!(
        e.data,
        Some(json!({"supported": ["2026-07-28", "2025-11-25"], "requested": "1900-01-01"}))
    );
    assert_eq!(
        e.message,
        "Unsupported protocol version \"1900-01-01\"; supported: 2026-07-28, 2025-11-25"
    );
}

#[test]
fn parse_params_names_the_member() {
    let req = Request::new(1, "tools/call", Some(json!({"name": 5})));
    let err = req
        .parse_params::<mcp_proto::CallToolRequestParams>()
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert_eq!(
        err.message,
        "invalid params for tools/call: params.name must be a string, found a number"
    );
}

#[test]
fn large_integer_id_outside_i64_is_refused() {
    let err = parse_message(br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#)
        .unwrap_err();
    assert_eq!(
        err.error.message,
        "id must be a string or an integer within the signed 64-bit range, found 18446744073709551615"
    );
}

#[test]
fn minus_zero_id_is_the_integer_zero() {
    // An integer token as JSON writes it; serde_json alone reads it as -0.0.
    let message = parse_message(br#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#).unwrap();
    let Message::Request(request) = message else {
        panic!("a request: {message:?}")
    };
    assert_eq!(request.id, RequestId::Number(0));
    // -0.0 is written as a fraction: no integer.
    let err = parse_message(br#"{"jsonrpc":"2.0","id":-0.0,"method":"ping"}"#).unwrap_err();
    assert_eq!(
        err.error.message,
        "id must be a string or an integer, found -0.0"
    );
}

#[test]
fn integer_ids_just_outside_i64_are_named_as_written() {
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            "id must be a string or an integer within the signed 64-bit range, found 9223372036854775808",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"ping", "id" : -9223372036854775809}"#,
            "id must be a string or an integer within the signed 64-bit range, found -9223372036854775809",
        ),
        (
            r#"{"jsonrpc":"2.0","params":{"id":1},"id":1e300,"method":"ping"}"#,
            "id must be a string or an integer, found 1e300",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            "id must be a string or an integer, found 1.5",
        ),
    ];
    for (line, expected) in cases {
        let err = parse_message(line.as_bytes()).unwrap_err();
        assert_eq!(err.error.code, -32600, "{line}");
        assert_eq!(err.error.message, expected, "{line}");
        assert_eq!(err.id, None, "{line}");
    }
    // Without the text, the value serde_json read is all there is.
    let value: serde_json::Value =
        serde_json::from_str(r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#)
            .unwrap();
    assert_eq!(
        mcp_proto::message_from_value(value)
            .unwrap_err()
            .error
            .message,
        "id must be a string or an integer within the signed 64-bit range, found -9.223372036854776e+18"
    );
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let msg =
        parse_message(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}").unwrap();
    let mcp_proto::Message::Request(request) = msg else {
        panic!("a request, got {msg:?}");
    };
    assert_eq!(request.id, mcp_proto::RequestId::Number(7));
    assert_eq!(request.method, "ping");
    // Only one, and only at the start.
    let twice = parse_message(b"\xEF\xBB\xBF\xEF\xBB\xBF{}").unwrap_err();
    assert_eq!(twice.error.code, -32700);
    let inside = parse_message(b"{\xEF\xBB\xBF}").unwrap_err();
    assert_eq!(inside.error.code, -32700);
}

#[test]
fn request_params_keep_the_text_they_arrived_as() {
    let params = r#"{"name":"billing","arguments":{"b":1,"a":2,"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud83d\ude00"}}"#;
    let line = format!(r#"{{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{params}}}"#);
    let Message::Request(request) = parse_message(line.as_bytes()).unwrap() else {
        panic!("a request");
    };
    assert_eq!(request.params.as_ref().map(|p| p.get()), Some(params));
    // Written out again, the params are the same bytes.
    let written = serde_json::to_string(&Message::Request(request)).unwrap();
    assert_eq!(written, line);
}

#[test]
fn a_lone_surrogate_in_params_is_carried_and_decodes_as_replacement() {
    let line = br#"{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"billing","arguments":{"v":"\ud800"}}}"#;
    let Message::Request(request) = parse_message(line).unwrap() else {
        panic!("a request");
    };
    assert_eq!(request.id, RequestId::String("c3".into()));
    assert_eq!(
        request.params.as_ref().unwrap().get(),
        r#"{"name":"billing","arguments":{"v":"\ud800"}}"#
    );
    assert!(request.has_lone_surrogates());
    let value = request.params_value().unwrap().unwrap();
    assert_eq!(value["arguments"]["v"], "\u{FFFD}");
}

#[test]
fn a_lone_surrogate_in_a_notification_or_a_member_reads_as_replacement() {
    let Message::Notification(note) = parse_message(
        br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\udc00"}}"#,
    )
    .unwrap() else {
        panic!("a notification");
    };
    assert_eq!(note.params.unwrap()["data"], "\u{FFFD}");
    let Message::Request(request) =
        parse_message(br#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#).unwrap()
    else {
        panic!("a request");
    };
    assert_eq!(request.id, RequestId::String("\u{FFFD}".into()));
}

#[test]
fn unparsable_text_is_answered_with_the_id_its_start_names() {
    let err = parse_message(br#"{"jsonrpc":"2.0","id":"p-1","method":"tools/call","params":{"#)
        .unwrap_err();
    assert_eq!(err.id, Some(RequestId::String("p-1".into())));
    assert_eq!(err.error.code, error_code::PARSE_ERROR);
    let err = parse_message(b"{\"id\":9,\"method\":\"\xff\"}").unwrap_err();
    assert_eq!(
        (err.id, err.error.code),
        (Some(RequestId::Number(9)), error_code::PARSE_ERROR)
    );
}

#[test]
fn members_are_read_by_name_once_each_and_a_repeated_one_is_refused() {
    // A repeated member: parsers that keep the first and parsers that keep
    // the last would read two messages, so it is refused, an escaped name
    // counting as the same member.
    let err =
        parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping","\u0069d":2}"#).unwrap_err();
    assert_eq!(
        (err.id, err.error.code, err.error.message.as_str()),
        (
            None,
            error_code::INVALID_REQUEST,
            "member \"id\" is written twice"
        )
    );
    let err = parse_message(
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1},"params":{"b":2}}"#,
    )
    .unwrap_err();
    assert_eq!(
        (err.id, err.error.message.as_str()),
        (
            Some(RequestId::Number(1)),
            "member \"params\" is written twice"
        )
    );
    // Inside params a repeated key is the tool's business (its own
    // arguments reader refuses them), not the envelope's.
    let Message::Request(request) =
        parse_message(br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":1,"a":2}}"#)
            .unwrap()
    else {
        panic!("a request");
    };
    assert_eq!(
        request.params.as_ref().map(|p| p.get()),
        Some(r#"{"a":1,"a":2}"#)
    );
    // Names may be escaped; members the envelope does not read are skipped
    // whatever they hold, and a name with a lone surrogate is no envelope
    // member.
    let Message::Request(request) = parse_message(
        br#"{"\u006asonrpc":"2.0","\u0069d":"x","extra":{"deep":[1,{"a":null}]},"\ud800":1,"method":"ping"}"#,
    )
    .unwrap() else {
        panic!("a request");
    };
    assert_eq!(
        (request.id, request.method.as_str()),
        (RequestId::String("x".into()), "ping")
    );
    // A member that is not JSON is a parse error that still names the id.
    let err =
        parse_message(br#"{"jsonrpc":"2.0","id":5,"method":"ping","extra":[1,}"#).unwrap_err();
    assert_eq!(
        (err.id, err.error.code),
        (Some(RequestId::Number(5)), error_code::PARSE_ERROR)
    );
}

#[test]
fn the_revision_a_request_names_in_its_meta_is_read_from_the_params_as_written() {
    let version = |params: &str| {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#);
        let Message::Request(request) = parse_message(text.as_bytes()).unwrap() else {
            panic!("a request");
        };
        request.meta_protocol_version().map(|v| v.into_owned())
    };
    let named = r#"{"cursor":"c","_meta":{"x":[1,{"y":2}],"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
    assert_eq!(version(named).as_deref(), Some("2026-07-28"));
    // Escaped, and next to a lone surrogate only the lenient reading takes.
    let escaped =
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-2\u0038"},"a":"\ud800"}"#;
    assert_eq!(version(escaped).as_deref(), Some("2026-07-28"));
    for absent in [
        "{}",
        r#"{"_meta":null}"#,
        r#"{"_meta":"2026-07-28"}"#,
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}"#,
        r#"{"_meta":{"protocolVersion":"2026-07-28"}}"#,
    ] {
        assert_eq!(version(absent), None, "{absent}");
    }
}
