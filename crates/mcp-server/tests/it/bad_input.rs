//! A table of bad input lines, sent one by one to the
//! running binary: each line gets the right JSON-RPC error (code and id, or
//! id null when it cannot be known) and the next valid request is answered.

use serde_json::{Value, json};

use crate::common::{Proc, servetest};

/// A table row: name, the line sent, the expected error (code, id) if any.
type Case = (&'static str, Vec<u8>, Option<(i64, Value)>);

/// Sends `line`, expects `expected` (code, id) or nothing, then checks a
/// ping is still answered.
fn check(server: &mut Proc, ping_id: i64, name: &str, line: &[u8], expected: Option<(i64, Value)>) {
    server.send_raw(line);
    server.request(ping_id, "ping", json!({}));
    if let Some((code, id)) = expected {
        let error = server.recv();
        assert_eq!(error["jsonrpc"], "2.0", "{name}: {error}");
        assert_eq!(error["error"]["code"], code, "{name}: {error}");
        assert_eq!(error["id"], id, "{name}: {error}");
        assert!(
            error["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{name}: {error}"
        );
    }
    let pong = server.recv();
    assert_eq!(
        pong,
        json!({ "jsonrpc": "2.0", "id": ping_id, "result": {} }),
        "{name}"
    );
}

servetest!(
    every_bad_line_gets_its_error_and_the_connection_keeps_serving,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let mut huge = br#"{"jsonrpc":"2.0","id":77,"method":"ping","params":{"pad":""#.to_vec();
        huge.extend(std::iter::repeat_n(b'x', 10 * 1024 * 1024));
        huge.extend_from_slice(br#""}}"#);
        let table: Vec<Case> = vec![
        // Blank lines are not messages: skipped by the framing, no answer.
        ("empty line", b"".to_vec(), None),
        ("whitespace only", b"  \t ".to_vec(), None),
        ("empty object", b"{}".to_vec(), Some((-32600, Value::Null))),
        ("empty array", b"[]".to_vec(), Some((-32600, Value::Null))),
        (
            "one-element batch",
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_vec(),
            Some((-32600, Value::Null)),
        ),
        (
            "jsonrpc 1.0",
            br#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#.to_vec(),
            Some((-32600, json!(5))),
        ),
        (
            "id null",
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_vec(),
            Some((-32600, Value::Null)),
        ),
        (
            "id 1.5",
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_vec(),
            Some((-32600, Value::Null)),
        ),
        (
            "id object",
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.to_vec(),
            Some((-32600, Value::Null)),
        ),
        (
            "method as a number",
            br#"{"jsonrpc":"2.0","id":9,"method":5}"#.to_vec(),
            Some((-32600, json!(9))),
        ),
        (
            "tools/call params as an array",
            br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[1,2]}"#.to_vec(),
            // mcp-proto refuses positional params for every MCP method at
            // the envelope ("params must be an object, found an array").
            Some((-32600, json!(10))),
        ),
        (
            "a NUL byte",
            b"{\"jsonrpc\":\"2.0\",\"id\":11,\0\"method\":\"ping\"}".to_vec(),
            // The id comes before the break, so the error carries it.
            Some((-32700, json!(11))),
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"p\xff\xfeng\"}".to_vec(),
            Some((-32700, json!(12))),
        ),
        // Too long, but its start names its id.
        ("a 10 MB line", huge, Some((-32600, json!(77)))),
        ("nested 10,000 deep", nested.into_bytes(), Some((-32700, Value::Null))),
        ("not JSON", b"hello".to_vec(), Some((-32700, Value::Null))),
        (
            "unknown method",
            br#"{"jsonrpc":"2.0","id":13,"method":"no/such"}"#.to_vec(),
            Some((-32601, json!(13))),
        ),
        (
            "tools/call without a name",
            br#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"arguments":{}}}"#.to_vec(),
            Some((-32602, json!(14))),
        ),
        (
            "tools/call with arguments not an object",
            br#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"fs","arguments":3}}"#.to_vec(),
            Some((-32602, json!(15))),
        ),
        (
            "string id kept",
            br#"{"jsonrpc":"2.0","id":"s-16","method":"no/such"}"#.to_vec(),
            Some((-32601, json!("s-16"))),
        ),
    ];
        for (i, (name, line, expected)) in table.into_iter().enumerate() {
            check(&mut server, 1000 + i as i64, name, &line, expected);
        }
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    an_unterminated_last_line_is_answered_before_exit,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        server.send_unterminated(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
        server.close_stdin();
        assert_eq!(
            server.drain(),
            vec![json!({ "jsonrpc": "2.0", "id": 3, "result": {} })]
        );
        assert_eq!(server.wait().code(), Some(0));
    }
);

#[test]
fn empty_input_exits_zero_and_writes_nothing() {
    let mut server = Proc::spawn(&["serve", "--no-door"]);
    server.close_stdin();
    assert!(server.drain().is_empty());
    assert_eq!(server.wait().code(), Some(0));
}

servetest!(
    a_64_mib_line_is_streamed_past_without_holding_it,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        // 64 MiB in 1 MiB writes, no newline until the end: eight times the
        // 8 MiB line limit.
        let chunk = vec![b'x'; 1024 * 1024];
        for _ in 0..64 {
            server.send_unterminated(&chunk);
        }
        server.send_raw(b"");
        let error = server.recv();
        assert_eq!(error["error"]["code"], -32600, "{error}");
        assert_eq!(error["id"], Value::Null);
        let pong = server.call(1, "ping", json!({}));
        assert_eq!(pong["result"], json!({}));
        // Holding the line would take 64 MiB; the bounded reader keeps at most
        // the 8 MiB limit plus a read buffer.
        let peak_mib = server.peak_rss_kib() / 1024;
        assert!(peak_mib < 40, "peak RSS {peak_mib} MiB");
        assert_eq!(server.wait().code(), Some(0));
    }
);

servetest!(
    a_9_mib_line_is_refused_to_its_id_wherever_the_id_is,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        let head = br#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"fs","arguments":{"v":""#;
        let mut line = head.to_vec();
        line.resize(9 * 1024 * 1024, b'a');
        line.extend_from_slice(br#""}}}"#);
        server.send_raw(&line);
        let error = server.recv();
        assert_eq!(error["error"]["code"], -32600, "{error}");
        assert_eq!(error["id"], "big-1", "{error}");
        // The id after the 9 MiB of params, as a serializer that writes
        // members in insertion order may put it.
        let mut line =
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fs","arguments":{"v":""#
                .to_vec();
        line.resize(9 * 1024 * 1024, b'a');
        line.extend_from_slice(br#""}},"id":"big-2"}"#);
        server.send_raw(&line);
        let error = server.recv();
        assert_eq!(error["error"]["code"], -32600, "{error}");
        assert_eq!(error["id"], "big-2", "{error}");
        assert_eq!(server.call(2, "ping", json!({}))["result"], json!({}));
    }
);

servetest!(
    a_lone_surrogate_is_answered_to_its_id,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        // Node's JSON.stringify writes this for a string holding half a
        // pair; a local tool reads it as U+FFFD.
        server.send_raw(
            br#"{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"fs","arguments":{"action":"help","topic":"\ud800"}}}"#,
        );
        let answer = server.recv();
        assert_eq!(answer["id"], "c3", "{answer}");
        assert!(answer.get("result").is_some(), "{answer}");
    }
);

servetest!(a_megabyte_name_is_quoted_in_part, [], |server, _root| {
    server.initialize("2025-11-25");
    let name = "t".repeat(1 << 20);
    let unknown = server.call(1, "tools/call", json!({ "name": name, "arguments": {} }));
    let message = unknown["error"]["message"].as_str().expect("a message");
    assert_eq!(
        message,
        format!("unknown tool: \"{}… (1048576 bytes)\"", "t".repeat(256))
    );
    assert_eq!(
        unknown["error"]["data"]["tool"],
        format!("{}… (1048576 bytes)", "t".repeat(256))
    );

    let field = "f".repeat(1 << 20);
    let mut arguments = serde_json::Map::new();
    arguments.insert("action".into(), json!("help"));
    arguments.insert(field, json!(1));
    let refused = server.call(
        2,
        "tools/call",
        json!({ "name": "fs", "arguments": arguments }),
    );
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .expect("a text");
    assert!(refused["result"]["isError"] == true, "{refused}");
    assert!(text.len() < 5000, "{} bytes", text.len());
    assert!(text.contains("… (10"), "{text:.300}");
});
