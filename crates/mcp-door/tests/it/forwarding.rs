//! Forwarding (HIP-0300 §1.6) against a loopback REST service: the
//! operation's request, the caller's credential headers and nothing else
//! of the caller's, and the answer as the tool result.

use std::time::Duration;

use mcp_door::DoorConfig;
use serde_json::json;

use crate::common::{
    AfterAnswer, REST_DOC, call, door, post, spawn_counting_rest, spawn_door, spawn_rest,
};

async fn setup(
    config: DoorConfig,
) -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<crate::common::Seen>>>,
) {
    let (rest, seen) = spawn_rest().await;
    let addr = spawn_door(door(REST_DOC, &rest, config)).await;
    (format!("http://{addr}/v1/mcp"), seen)
}

const AUTH: (&str, &str) = ("authorization", "Bearer tok-1");

#[tokio::test]
async fn path_query_and_headers_map_onto_the_request() {
    let (url, seen) = setup(DoorConfig::default()).await;
    let input = json!({"name": "a/b c", "q": "x y&z", "tags": ["t1", "t2"], "X-Trace": "abc"});
    let r = post(
        &url,
        &call(1, "items", json!({"op": "get_item", "input": input})),
        &[
            AUTH,
            ("x-other", "leak"),
            ("cookie", "sid=9"),
            ("x-authorization", "xa"),
        ],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["id"], 1);
    let result = &r.body["result"];
    assert!(result.get("isError").is_none(), "{result}");
    assert_eq!(result["structuredContent"]["path"], "/items/a%2Fb%20c");
    assert_eq!(result["structuredContent"]["method"], "GET");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        result["structuredContent"]
    );

    let seen = seen.lock().unwrap();
    let req = &seen[0];
    assert_eq!(req.path, "/items/a%2Fb%20c");
    assert_eq!(req.query.as_deref(), Some("q=x%20y%26z&tags=t1&tags=t2"));
    assert_eq!(req.header("authorization"), Some("Bearer tok-1"));
    assert_eq!(req.header("cookie"), Some("sid=9"));
    assert_eq!(req.header("x-authorization"), Some("xa"));
    assert_eq!(req.header("x-trace"), Some("abc"));
    assert_eq!(req.header("x-other"), None);
    assert_eq!(req.header("mcp-protocol-version"), None);
}

#[tokio::test]
async fn the_body_is_the_input_left_after_parameters() {
    let (url, seen) = setup(DoorConfig::default()).await;
    let input = json!({"name": "n1", "size": 3, "note": "hi"});
    let r = post(
        &url,
        &call(2, "items", json!({"op": "update_item", "input": input})),
        &[AUTH],
    )
    .await;
    assert_eq!(
        r.body["result"]["structuredContent"]["body"],
        json!({"size": 3, "note": "hi"})
    );
    // A direct call by the op's own name takes the input as its arguments.
    let r = post(
        &url,
        &call(3, "add_tags", json!({"name": "n2", "body": ["x", "y"]})),
        &[AUTH],
    )
    .await;
    assert_eq!(
        r.body["result"]["structuredContent"]["body"],
        json!(["x", "y"])
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].method, "PUT");
    assert_eq!(seen[0].path, "/items/n1");
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[1].path, "/items/n2/tags");
    assert_eq!(seen[1].header("authorization"), Some("Bearer tok-1"));
}

#[tokio::test]
async fn missing_input_is_an_error_result_without_a_request() {
    let (url, seen) = setup(DoorConfig::default()).await;
    let r = post(
        &url,
        &call(
            4,
            "items",
            json!({"op": "update_item", "input": {"size": 1}}),
        ),
        &[AUTH],
    )
    .await;
    assert_eq!(r.body["result"]["isError"], true);
    assert_eq!(
        r.body["result"]["content"][0]["text"],
        "op update_item: missing required input \"name\" (a path parameter)"
    );
    let r = post(
        &url,
        &call(5, "items", json!({"op": "get_item", "input": 3})),
        &[AUTH],
    )
    .await;
    assert_eq!(
        r.body["error"]["message"],
        "tool \"items\": \"input\" must be an object"
    );
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn upstream_errors_are_error_results() {
    let (url, _) = setup(DoorConfig::default()).await;
    let r = post(
        &url,
        &call(6, "errors", json!({"op": "get_missing"})),
        &[AUTH],
    )
    .await;
    let result = &r.body["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "GET /missing: HTTP 404 Not Found: {\"message\":\"Not Found\"}"
    );
    assert_eq!(
        result["structuredContent"],
        json!({"status": 404, "body": {"message": "Not Found"}})
    );

    let r = post(
        &url,
        &call(7, "errors", json!({"op": "trigger_boom"})),
        &[AUTH],
    )
    .await;
    let result = &r.body["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "POST /boom: HTTP 500 Internal Server Error: upstream exploded"
    );
}

#[tokio::test]
async fn a_hanging_upstream_is_bounded_by_the_timeout() {
    let config = DoorConfig {
        timeout: Duration::from_millis(300),
        ..DoorConfig::default()
    };
    let (url, seen) = setup(config).await;
    let r = post(&url, &call(8, "slow", json!({"op": "get_hang"})), &[AUTH]).await;
    assert_eq!(r.body["id"], 8);
    assert_eq!(r.body["result"]["isError"], true);
    assert_eq!(
        r.body["result"]["content"][0]["text"],
        "GET /hang: the upstream did not answer within 300 ms"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn text_and_oversized_answers() {
    let config = DoorConfig {
        max_body_bytes: 1000,
        ..DoorConfig::default()
    };
    let (url, _) = setup(config).await;
    let r = post(&url, &call(9, "slow", json!({"op": "get_text"})), &[AUTH]).await;
    assert_eq!(r.body["result"]["content"][0]["text"], "plain words");
    assert!(r.body["result"].get("structuredContent").is_none());
    let r = post(&url, &call(10, "slow", json!({"op": "get_big"})), &[AUTH]).await;
    let text = r.body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.ends_with("\n[answer cut at 1000 bytes; application/json]"),
        "{text}"
    );
    assert_eq!(
        text.len(),
        1000 + "\n[answer cut at 1000 bytes; application/json]".len()
    );
    // The cut answer's connection, its body unread, is not used again:
    // the next call gets its own answer, not the rest of that body.
    let r = post(&url, &call(11, "slow", json!({"op": "get_text"})), &[AUTH]).await;
    assert_eq!(r.body["result"]["content"][0]["text"], "plain words");
}

#[tokio::test]
async fn an_unreachable_upstream_is_an_error_result() {
    // Port 9 (discard) on loopback: nothing listens there in the test machine.
    let addr = spawn_door(door(REST_DOC, "http://127.0.0.1:9", DoorConfig::default())).await;
    let r = post(
        &format!("http://{addr}/v1/mcp"),
        &call(11, "errors", json!({"op": "get_missing"})),
        &[AUTH],
    )
    .await;
    assert_eq!(r.body["result"]["isError"], true);
    assert_eq!(
        r.body["result"]["content"][0]["text"],
        "GET /missing: cannot connect to the upstream"
    );
}

/// Calls `get_item` `calls` times, one after the other with `pause`
/// between, through a door in front of a [`spawn_counting_rest`] upstream
/// behaving as `after`; asserts each call got its own answer (`n` = k for
/// the k-th request the upstream read) and returns how many
/// connections the upstream accepted.
async fn calls_in_turn(after: AfterAnswer, calls: i64, pause: Duration) -> usize {
    use std::sync::atomic::Ordering;
    let (rest, connections) = spawn_counting_rest(after).await;
    let addr = spawn_door(door(REST_DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    for n in 1..=calls {
        let r = post(
            &url,
            &call(
                n,
                "items",
                json!({"op": "get_item", "input": {"name": "a"}}),
            ),
            &[AUTH],
        )
        .await;
        assert_eq!(
            r.body["result"]["structuredContent"],
            json!({"n": n, "path": "/items/a"}),
            "{after:?}, call {n}: {}",
            r.body
        );
        tokio::time::sleep(pause).await;
    }
    connections.load(Ordering::SeqCst)
}

#[tokio::test]
async fn a_plain_http_upstream_connection_serves_call_after_call() {
    // One after the other, the calls take one connection.
    assert_eq!(
        calls_in_turn(AfterAnswer::KeepOpen, 5, Duration::ZERO).await,
        1
    );
}

#[tokio::test]
async fn a_connection_the_upstream_closed_while_idle_is_replaced() {
    // Closed at once (seen while the answer is read) or a while later,
    // when the connection lies idle: each next call found it closed, wrote
    // nothing on it, and made a new one.
    assert_eq!(
        calls_in_turn(AfterAnswer::Close(Duration::ZERO), 4, Duration::ZERO).await,
        4
    );
    assert_eq!(
        calls_in_turn(
            AfterAnswer::Close(Duration::from_millis(50)),
            4,
            Duration::from_millis(200)
        )
        .await,
        4
    );
}

#[tokio::test]
async fn an_answer_nobody_asked_for_is_never_taken_for_the_next_call() {
    // Sent with the answer (so read with it), or a while after it (so
    // waiting in the socket): either way the connection is dropped before
    // the next request, which goes on a new one and gets its own answer.
    assert_eq!(
        calls_in_turn(AfterAnswer::ExtraAnswer, 4, Duration::ZERO).await,
        4
    );
    assert_eq!(
        calls_in_turn(
            AfterAnswer::LateAnswer(Duration::from_millis(50)),
            4,
            Duration::from_millis(200)
        )
        .await,
        4
    );
}

#[tokio::test]
async fn a_key_in_a_header_parameter_keeps_connections_apart_like_a_bearer() {
    // One bearer, two API keys sent as the operation's header parameter:
    // connections are kept per key as they are per bearer, so an answer
    // one key's request brought in never reaches the other key's call.
    use std::sync::atomic::Ordering;
    let doc = r#"
openapi: 3.1.0
info: {title: items, version: "1"}
paths:
  /items/{name}:
    get:
      operationId: getItem
      tags: [items]
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
        - {name: X-Api-Key, in: header, schema: {type: string}}
"#;
    let (rest, connections) = spawn_counting_rest(AfterAnswer::KeepOpen).await;
    let addr = spawn_door(door(doc, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    for n in 1..=6 {
        let key = if n % 2 == 0 { "key-a" } else { "key-b" };
        let r = post(
            &url,
            &call(
                n,
                "items",
                json!({"op": "get_item", "input": {"name": "a", "X-Api-Key": key}}),
            ),
            &[AUTH],
        )
        .await;
        assert_eq!(r.body["result"]["structuredContent"]["n"], n, "{}", r.body);
    }
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn callers_that_never_come_back_do_not_keep_the_pool_full() {
    // 300 one-off bearers fill every place of the pool (256); a caller
    // after them still has its connection kept between its calls: the one
    // idle the longest makes room.
    use std::sync::atomic::Ordering;
    let (rest, connections) = spawn_counting_rest(AfterAnswer::KeepOpen).await;
    let addr = spawn_door(door(REST_DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let get = |bearer: String| {
        let url = url.clone();
        async move {
            let message = call(
                1,
                "items",
                json!({"op": "get_item", "input": {"name": "a"}}),
            );
            let r = post(&url, &message, &[("authorization", bearer.as_str())]).await;
            assert!(
                r.body["result"]["structuredContent"]["n"].is_number(),
                "{}",
                r.body
            );
        }
    };
    for n in 0..300 {
        get(format!("Bearer one-off-{n}")).await;
    }
    let before = connections.load(Ordering::SeqCst);
    assert_eq!(before, 300);
    for _ in 0..3 {
        get("Bearer regular".to_owned()).await;
    }
    assert_eq!(connections.load(Ordering::SeqCst), before + 1);
}

/// Twelve callers, each with a bearer of its own, making 20 calls each at
/// once through a door in front of an upstream behaving as `after`; the
/// answers each caller got that were not the one to its call: those made
/// for another caller's request, and the others (unasked ones, or those
/// to its own other requests).
async fn callers_at_once(after: AfterAnswer) -> (Vec<String>, Vec<String>) {
    let (rest, _) = spawn_counting_rest(after).await;
    let addr = spawn_door(door(REST_DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let mut callers = tokio::task::JoinSet::new();
    for caller in 0..12 {
        let url = url.clone();
        callers.spawn(async move {
            let bearer = format!("Bearer caller-{caller}");
            let (mut theirs, mut other) = (Vec::new(), Vec::new());
            for n in 0..20 {
                let name = format!("c{caller}n{n}");
                let r = post(
                    &url,
                    &call(
                        n,
                        "items",
                        json!({"op": "get_item", "input": {"name": name}}),
                    ),
                    &[("authorization", bearer.as_str())],
                )
                .await;
                let got = &r.body["result"]["structuredContent"]["path"];
                if *got == json!(format!("/items/{name}")) {
                    continue;
                }
                let mine = got
                    .as_str()
                    .is_some_and(|p| p.starts_with(&format!("/items/c{caller}n")));
                if got.is_string() && !mine {
                    theirs.push(r.body.to_string());
                } else {
                    other.push(r.body.to_string());
                }
            }
            (theirs, other)
        });
    }
    let (mut theirs, mut other) = (Vec::new(), Vec::new());
    for (t, o) in callers.join_all().await {
        theirs.extend(t);
        other.extend(o);
    }
    (theirs, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_at_once_each_get_their_own_answer_whatever_the_upstream_adds() {
    // An extra answer sent with the real one, and a close after each
    // answer: found before reuse, so every call gets its own answer.
    for after in [
        AfterAnswer::ExtraAnswer,
        AfterAnswer::Close(Duration::from_millis(1)),
    ] {
        let (theirs, other) = callers_at_once(after).await;
        assert!(
            theirs.is_empty() && other.is_empty(),
            "{after:?}: {theirs:?} {other:?}"
        );
    }
    // An unasked answer 1 ms late often arrives after the next request
    // went out on that connection and is taken for its answer (HTTP/1.1
    // pairs them by order alone); a connection carries one caller's
    // requests only, so a caller may get such an answer, never one made
    // for another caller.
    let (theirs, _) = callers_at_once(AfterAnswer::LateAnswer(Duration::from_millis(1))).await;
    assert!(theirs.is_empty(), "{theirs:?}");
}
