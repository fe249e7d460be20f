//! `tools/list` answered from the composition's memo: what goes on the
//! wire is the JSON of the result built as a `serde_json::Value` and
//! serialized in a `Message::Response` (handshake and 2026-07-28 eras; the
//! memo writes it straight from the tools, so members may come in another
//! order), a repeated request gets the same result bytes, and the memo is
//! dropped exactly when the door's list changes.

use std::time::Duration;

use mcp_door_client::DoorClient;
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_local_server::Composition;
use mcp_proto::{Message, RequestId, Response};
use serde_json::{Map, Value, json};

use crate::common::driver::{Connection, local_and_door};
use crate::common::stateless_meta_with;

/// A session of a server over the local tools and a door at `fake`.
async fn connect(fake: &FakeDoor, root: &std::path::Path) -> (Connection, DoorClient, Composition) {
    let (server, door, composition) =
        local_and_door(&fake.url(), "memo-test", root, Duration::from_secs(30));
    (Connection::open(server), door, composition)
}

/// Waits for the fetch the door source started on its own. (`fetch_now`
/// here would race it: if that fetch had already finished, a second one
/// would follow, and the fetch counts below would be off by one.)
async fn first_list(door: &DoorClient) {
    let snapshot = door.wait_first(Duration::from_secs(60)).await;
    assert!(snapshot.list.is_some(), "the fake door's list arrived");
}

/// The response line the server wrote before the memo: the result built as a
/// `Value` and serialized inside `Message::Response`.
fn expected_line(
    id: i64,
    composition_list: &mcp_local_server::SourceList,
    stateless: bool,
) -> String {
    let mut result = Map::new();
    result.insert("tools".into(), json!(composition_list.tools));
    if let Some(meta) = &composition_list.meta {
        result.insert("_meta".into(), Value::Object(meta.clone()));
    }
    if stateless {
        result.insert("ttlMs".into(), json!(60_000));
        result.insert("cacheScope".into(), json!("private"));
        result.insert("resultType".into(), json!("complete"));
    }
    let response = Response::success(RequestId::Number(id), Value::Object(result));
    serde_json::to_string(&Message::Response(response)).expect("serialize")
}

/// Asserts that `line` is the JSON message `expected` is.
fn assert_same_json(line: &str, expected: &str) {
    let got: Value = serde_json::from_str(line).expect("json");
    let want: Value = serde_json::from_str(expected).expect("json");
    assert_eq!(got, want);
}

/// The text of a response line from its `result` member on.
fn result_text(line: &str) -> &str {
    &line[line.find("\"result\":").expect("a result")..]
}

fn names(line: &str) -> Vec<String> {
    let message: Value = serde_json::from_str(line).expect("json");
    message["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_list_matches_the_value_path_and_repeats() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let (mut conn, door, composition) = connect(&fake, root.path()).await;
    first_list(&door).await;
    conn.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}))
        .await;
    conn.answer(1).await;
    conn.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;

    conn.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let first = conn.answer(2).await;
    let list = composition.list_tools().await;
    assert_same_json(&first, &expected_line(2, &list, false));
    assert!(names(&first).contains(&"agents".to_owned()), "{first}");

    conn.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}))
        .await;
    let again = conn.answer(3).await;
    assert_same_json(&again, &expected_line(3, &list, false));
    assert_eq!(result_text(&again), result_text(&first));
    assert_eq!(fake.lists_answered(), 1, "the repeat came from the cache");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_list_carries_ttl_cache_scope_and_result_type() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let (mut conn, door, composition) = connect(&fake, root.path()).await;
    first_list(&door).await;
    let meta = stateless_meta_with(json!({}));
    let mut lines = Vec::new();
    for id in [1, 2] {
        conn.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
            "params": {"_meta": meta}}))
            .await;
        let line = conn.answer(id).await;
        let list = composition.list_tools().await;
        assert_same_json(&line, &expected_line(id, &list, true));
        lines.push(line);
    }
    assert_eq!(result_text(&lines[0]), result_text(&lines[1]));
    // Both eras on one connection: each gets its own form of the same list.
    conn.send(json!({"jsonrpc": "2.0", "id": 3, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}))
        .await;
    conn.answer(3).await;
    conn.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    conn.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}))
        .await;
    let line = conn.answer(4).await;
    assert_same_json(
        &line,
        &expected_line(4, &composition.list_tools().await, false),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memo_is_dropped_exactly_when_the_door_list_changes() {
    let fake = FakeDoor::start(Behaviour::Changing).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let (mut conn, door, _composition) = connect(&fake, root.path()).await;
    first_list(&door).await;
    let meta = stateless_meta_with(json!({}));
    let list = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta}});

    conn.send(list(1)).await;
    let first = names(&conn.answer(1).await);
    assert!(first.contains(&"changing_1".to_owned()), "{first:?}");

    // The door's next list differs (changing_2): the next answer shows it.
    door.fetch_now().await;
    conn.send(list(2)).await;
    let second = names(&conn.answer(2).await);
    assert!(second.contains(&"changing_2".to_owned()), "{second:?}");
    assert!(!second.contains(&"changing_1".to_owned()), "{second:?}");
    assert_eq!(first.len(), second.len());

    // No new fetch: the same list, from the memo.
    conn.send(list(3)).await;
    assert_eq!(names(&conn.answer(3).await), second);
    assert_eq!(fake.lists_answered(), 2);
}
