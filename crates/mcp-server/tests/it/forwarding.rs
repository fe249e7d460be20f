//! A call the server only carries goes to the door and back byte for byte
//! (HIP-0300 §2.2): the caller's arguments reach the door as written, and
//! the door's result reaches the caller as written, over stdio and over
//! streamable HTTP. Then the bound on requests in flight: a slow door and a
//! client that does not read cost the server back-pressure, not memory.

use std::sync::Arc;
use std::time::Duration;

use mcp_door_client::{Bearer, BearerSource, DoorClient, DoorClientConfig};
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_local_server::door::DoorSource;
use mcp_local_server::http::HttpConfig;
use mcp_local_server::mcp_proto::Implementation;
use mcp_local_server::{Composition, Server, ServerConfig};
use reqwest::Method;
use serde_json::Value;

use crate::common::http::{JSON_ONLY, STATELESS, listen};
use crate::common::{behind_fake_door, serve_with_door};

/// Arguments whose text a decode and re-encode would change: key order,
/// an integer beyond 64 bits, `-0`, `1E2`, escapes.
const ARGUMENTS: &str =
    r#"{"b":1,"a":2,"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud83d\ude00"}"#;

/// A door result of the same kinds (with `resultType`, so no revision adds
/// one).
const RESULT: &str = r#"{"resultType":"complete","structuredContent":{"n":12345678901234567890123,"z":-0,"e":1E2,"b":1,"a":2},"content":[{"type":"text","text":"\u00e9\ud83d\ude00"}]}"#;

/// The body the door received for the one `tools/call` it got.
fn door_call_body(door: &FakeDoor) -> String {
    let calls = door.requests_for("tools/call");
    assert_eq!(calls.len(), 1, "one call reached the door");
    calls[0].body_text().expect("a UTF-8 body").to_owned()
}

/// That `answer` to the call with id 7 carries the door's result byte for
/// byte, and that the door got [`ARGUMENTS`] as written.
fn assert_byte_for_byte(answer: &str, door: &FakeDoor) {
    assert_eq!(
        answer,
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{RESULT}}}"#)
    );
    let body = door_call_body(door);
    assert!(
        body.contains(&format!(r#""arguments":{ARGUMENTS}"#)),
        "{body}"
    );
}

#[test]
fn over_stdio_arguments_and_result_travel_byte_for_byte() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::RawCallResult(RESULT.into()), &[]);
    let server = &mut setup.server;
    server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"billing","arguments":{ARGUMENTS}}}}}"#
    ));
    let line = server.response(7).to_owned();
    assert_byte_for_byte(&line, &door);
}

#[test]
fn over_stdio_a_lone_surrogate_is_forwarded_as_written_and_answered() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::RawCallResult(RESULT.into()), &[]);
    let server = &mut setup.server;
    server.send_line(
        r#"{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"billing","arguments":{"v":"\ud800"}}}"#,
    );
    let answer: Value = serde_json::from_str(server.any_response()).expect("JSON");
    assert_eq!(answer["id"], "c3", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "é😀");
    let body = door_call_body(&door);
    assert!(body.contains(r#""arguments":{"v":"\ud800"}"#), "{body}");
}

/// A server whose only source is the door at `url`, with a fixed bearer.
fn door_server(url: &str) -> Arc<Server> {
    let mut config = DoorClientConfig::new(url);
    config.bearer = BearerSource::Fixed(Bearer::new("forwarding-test").expect("bearer"));
    let door = DoorClient::new(config).expect("door");
    let source = DoorSource::start(door, Duration::from_secs(5));
    Arc::new(Server::new(
        Composition::new(vec![Arc::new(source)]),
        ServerConfig::new(Implementation::new("forwarding", "0.0.1")),
    ))
}

/// POSTs a stateless `tools/call` of `billing` with id 7 and `arguments`
/// (JSON text) to `listening`; the answer's status and body.
async fn post_call(listening: &crate::common::http::Listening, arguments: &str) -> (u16, String) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"billing","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let headers = [
        ("content-type", "application/json"),
        ("accept", JSON_ONLY),
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/call"),
        ("mcp-name", "billing"),
    ];
    let response = listening
        .client()
        .send(Method::POST, &headers, Some(body.into_bytes()))
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_arguments_and_result_travel_byte_for_byte() {
    let door = FakeDoor::start(Behaviour::RawCallResult(RESULT.into())).expect("fake door");
    let listening = listen(door_server(&door.url()), HttpConfig::default()).await;
    let (status, text) = post_call(&listening, ARGUMENTS).await;
    assert_eq!(status, 200);
    assert_byte_for_byte(&text, &door);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_lone_surrogate_is_forwarded_as_written_and_answered() {
    let door = FakeDoor::start(Behaviour::RawCallResult(RESULT.into())).expect("fake door");
    let listening = listen(door_server(&door.url()), HttpConfig::default()).await;
    let (status, text) = post_call(&listening, r#"{"v":"\ud800"}"#).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        text,
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{RESULT}}}"#)
    );
    let body = door_call_body(&door);
    assert!(body.contains(r#""arguments":{"v":"\ud800"}"#), "{body}");
}

/// `count` pipelined `tools/call`s of the door tool `billing`, ids 100 on.
fn pipelined_calls(count: u64) -> String {
    (0..count)
        .map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"billing","arguments":{{"i":{i}}}}}}}"#,
                100 + i
            ) + "\n"
        })
        .collect()
}

#[test]
fn a_slow_door_meets_the_in_flight_bound_and_every_call_is_answered() {
    // Each answer is 256 KiB; 40 held calls would be 10 MiB of results.
    let text = "x".repeat(256 * 1024);
    let result = format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]}}"#);
    let door = FakeDoor::start(Behaviour::HeldRawCallResult(result)).expect("fake door");
    let mut setup = serve_with_door(&door.url(), &["--max-in-flight", "4", "--door-wait", "0.1"]);
    let server = &mut setup.server;
    server.initialize("2025-11-25");
    server.send_raw(pipelined_calls(40).as_bytes());
    // The server takes four calls, forwards them, and reads no more input
    // while the door holds them.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while door.requests_for("tools/call").len() < 4 {
        assert!(
            std::time::Instant::now() < deadline,
            "four calls reach the door"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        door.requests_for("tools/call").len(),
        4,
        "at most four in flight"
    );
    // Once the door answers, every call is answered, each to its own id.
    door.release();
    let mut answered: Vec<u64> = (0..40)
        .map(|_| {
            let answer: Value = serde_json::from_str(server.any_response()).expect("JSON");
            assert_eq!(
                answer["result"]["content"][0]["text"]
                    .as_str()
                    .map(str::len),
                Some(256 * 1024),
                "{}",
                answer["id"]
            );
            answer["id"].as_u64().expect("an integer id")
        })
        .collect();
    answered.sort_unstable();
    assert_eq!(answered, (100..140).collect::<Vec<u64>>());
    assert_eq!(door.requests_for("tools/call").len(), 40);
}

#[test]
fn over_stdio_line_ends_in_a_door_result_become_spaces() {
    // Pretty-printed JSON: its line ends lie between tokens only.
    let pretty = "{\n  \"content\": [\r\n    {\"type\": \"text\", \"text\": \"a\\nb\"}\n  ]\n}";
    let (_door, mut setup, _) = behind_fake_door(Behaviour::RawCallResult(pretty.into()), &[]);
    let server = &mut setup.server;
    server.send_line(
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"billing","arguments":{}}}"#,
    );
    let line = server.response(9).to_owned();
    let one_line = "{   \"content\": [      {\"type\": \"text\", \"text\": \"a\\nb\"}   ] }";
    assert_eq!(
        line,
        format!(r#"{{"jsonrpc":"2.0","id":9,"result":{one_line}}}"#)
    );
}
