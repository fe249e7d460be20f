//! One test per fake-door behaviour (HIP-0300 §2.2 and §4 for a local
//! server): list, merge, forwarded calls, and every failure mode.

use std::time::Duration;

use mcp_door_client::{
    CallOutcome, DoorClient, DoorClientError, DoorStatus, DropReason, DroppedTool, merge,
};
use mcp_fake_door::{Behaviour, FakeDoor, LONG_NAME_LEN, huge_tools, normal_meta};
use mcp_proto::{CallToolRequestParams, CallToolResult, ErrorObject, Tool};
use serde_json::{Value, json};

use crate::common::{
    CANARY, Captured, call_agents, capture_global_logs, config, config_for, names, params,
    result_text,
};

fn local_tool(name: &str, description: &str) -> Tool {
    Tool {
        name: name.into(),
        description: Some(description.into()),
        ..Tool::default()
    }
}

#[tokio::test]
async fn normal_list_in_door_order_with_meta_and_headers() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["describe", "agents", "billing", "git"]);
    let list = snapshot.list.expect("list");
    assert_eq!(list.meta.clone().map(Value::Object), Some(normal_meta()));
    assert_eq!(list.ttl, Duration::from_secs(300));
    assert_eq!(list.pages, 1);

    let requests = fake.requests_for("tools/list");
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(request.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(request.header("mcp-method"), Some("tools/list"));
    assert_eq!(request.header("mcp-name"), None);
    let expected_auth = format!("Bearer {CANARY}");
    assert_eq!(
        request.header("authorization"),
        Some(expected_auth.as_str())
    );
    let meta = &request.params().expect("params")["_meta"];
    assert_eq!(
        meta,
        &json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {
                "name": "mcp-door-client",
                "version": env!("CARGO_PKG_VERSION")
            }
        })
    );
}

#[tokio::test]
async fn merge_puts_local_first_and_local_git_wins() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    let local = [
        local_tool("fs", "local files"),
        local_tool("git", "the machine's git"),
    ];
    let merged = merge(&local, snapshot.list.as_deref());
    let merged_names: Vec<&str> = merged.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(merged_names, ["fs", "git", "describe", "agents", "billing"]);
    assert_eq!(
        merged.tools[1].description.as_deref(),
        Some("the machine's git")
    );
    assert_eq!(merged.page.meta.map(Value::Object), Some(normal_meta()));

    let local_only = merge(&local, None);
    let local_names: Vec<&str> = local_only.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(local_names, ["fs", "git"]);
    assert_eq!(local_only.page.meta, None);
}

#[tokio::test]
async fn call_is_forwarded_verbatim_with_headers() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let sent = json!({
        "name": "agents",
        "arguments": {"op": "list_agents", "input": {"limit": 3, "tags": ["a", "b"]}},
        "_meta": {"progressToken": "p-1"},
        "somethingNew": {"kept": true}
    });
    let result = door
        .call_tool(params(sent.clone()), None)
        .await
        .expect("a result");
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "called agents"}],
            "structuredContent": {
                "name": "agents",
                "arguments": {"op": "list_agents", "input": {"limit": 3, "tags": ["a", "b"]}}
            },
            "isError": false,
            "resultType": "complete"
        })
    );

    let calls = fake.requests_for("tools/call");
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    let body = call.json().expect("json body");
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["method"], "tools/call");
    let got = &body["params"];
    assert_eq!(got["name"], sent["name"]);
    assert_eq!(got["arguments"], sent["arguments"]);
    assert_eq!(got["somethingNew"], sent["somethingNew"]);
    assert_eq!(got["_meta"]["progressToken"], "p-1");
    assert_eq!(
        got["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        got["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({})
    );
    assert_eq!(
        got["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
        "mcp-door-client"
    );
    assert_eq!(call.header("content-type"), Some("application/json"));
    assert_eq!(
        call.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(call.header("mcp-method"), Some("tools/call"));
    assert_eq!(call.header("mcp-name"), Some("agents"));
    let expected_auth = format!("Bearer {CANARY}");
    assert_eq!(call.header("authorization"), Some(expected_auth.as_str()));
}

#[tokio::test]
async fn caller_meta_keys_are_not_overwritten() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let info = json!({"name": "claude-code", "version": "9.9"});
    let sent = json!({
        "name": "billing",
        "arguments": {"op": "get_balance"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": info
        }
    });
    door.call_tool(params(sent), None).await.expect("result");
    let body = fake.requests_for("tools/call")[0].json().expect("json");
    assert_eq!(
        body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"],
        info
    );
    assert_eq!(
        body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({})
    );
}

#[tokio::test]
async fn door_is_error_result_comes_back_unchanged() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let result = door
        .call_tool(
            params(json!({"name": "fail", "arguments": {"op": "x"}})),
            None,
        )
        .await
        .expect("a result");
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "operation failed"}],
            "structuredContent": {"name": "fail", "arguments": {"op": "x"}},
            "isError": true,
            "resultType": "complete"
        })
    );
}

/// The `isError` result the door client makes of a failure, saying `text`.
fn error_result(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// Forwards one call to a door that answers `result` to every call.
async fn call_answered_with(result: Value) -> (Value, String) {
    let fake = FakeDoor::start(Behaviour::CallResult(result)).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let answer = door
        .call_tool(params(json!({"name": "agents", "arguments": {}})), None)
        .await
        .expect("a result");
    (answer, door.address().to_owned())
}

#[tokio::test]
async fn door_result_that_is_a_string_becomes_an_is_error_result() {
    let (result, address) = call_answered_with(json!("a string")).await;
    assert_eq!(
        result,
        error_result(format!(
            "hanzo door {address}: answered a tools/call result that is not an object"
        ))
    );
}

#[tokio::test]
async fn door_result_that_is_null_or_an_array_becomes_an_is_error_result() {
    for answer in [
        Value::Null,
        json!([{"type": "text", "text": "hi"}]),
        json!(7),
    ] {
        let (result, address) = call_answered_with(answer).await;
        assert_eq!(
            result,
            error_result(format!(
                "hanzo door {address}: answered a tools/call result that is not an object"
            ))
        );
    }
}

#[tokio::test]
async fn door_result_whose_content_is_not_an_array_becomes_an_is_error_result() {
    let (result, address) =
        call_answered_with(json!({"content": "text", "resultType": "complete"})).await;
    assert_eq!(
        result,
        error_result(format!(
            "hanzo door {address}: answered a tools/call result whose content is not an array"
        ))
    );
}

#[tokio::test]
async fn door_objects_without_content_or_with_unknown_members_come_back_unchanged() {
    // MCP 2026-07-28 (SEP-2322): an input_required result has no content.
    let input_required = json!({
        "resultType": "input_required",
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {}}},
        "requestState": "opaque-state"
    });
    assert_eq!(
        call_answered_with(input_required.clone()).await.0,
        input_required
    );
    let unknown = json!({
        "content": [],
        "isError": true,
        "x-extra": {"kept": [1, 2]},
        "resultType": "complete"
    });
    assert_eq!(call_answered_with(unknown.clone()).await.0, unknown);
    assert_eq!(call_answered_with(json!({})).await.0, json!({}));
}

#[tokio::test]
async fn door_json_rpc_error_comes_back_as_that_error() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let error = door
        .call_tool(params(json!({"name": "explode"})), None)
        .await
        .expect_err("a JSON-RPC error");
    let mut expected = ErrorObject::new(-32603, "subsystem exploded");
    expected.data = Some(json!({"subsystem": "explode"}));
    assert_eq!(error, expected);
}

#[tokio::test]
async fn unauthorized_call_names_the_challenge_metadata_url_once() {
    let fake = FakeDoor::start(Behaviour::Unauthorized).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let result = door
        .call_tool(params(json!({"name": "agents", "arguments": {}})), None)
        .await
        .expect("a result");
    assert_eq!(result["isError"], true);
    assert_eq!(
        result_text(&result),
        format!(
            "hanzo door {}: sign-in required; run `hanzo auth login` (or set HANZO_API_KEY) \
             and try again (resource metadata: {})",
            fake.url(),
            fake.challenge_metadata_url()
        )
    );
    // No retry loop: one POST.
    assert_eq!(fake.requests().len(), 1);
}

/// A client of any door: `DoorClientConfig::new` names no Hanzo command,
/// and an embedder's own words reach the result.
#[tokio::test]
async fn the_sign_in_result_speaks_of_the_door_as_configured() {
    let fake = FakeDoor::start(Behaviour::Unauthorized).expect("fake door");
    let metadata = fake.challenge_metadata_url();
    let mut config = config_for(&fake);
    config.wording = mcp_door_client::Wording::generic();
    let text = result_text(&call_agents(&DoorClient::new(config).expect("door")).await);
    assert_eq!(
        text,
        format!(
            "door {}: sign-in required; give this client a credential the door accepts (its \
             resource metadata names the authorization server) and try again (resource \
             metadata: {metadata})",
            fake.url()
        )
    );
    assert_eq!(
        mcp_door_client::DoorClientConfig::new(fake.url()).wording,
        mcp_door_client::Wording::generic()
    );
    let mut config = config_for(&fake);
    config.wording = mcp_door_client::Wording::new("acme gateway", "run `acme login`");
    let text = result_text(&call_agents(&DoorClient::new(config).expect("door")).await);
    assert!(
        text.starts_with(&format!(
            "acme gateway {}: sign-in required; run `acme login` and try again",
            fake.url()
        )),
        "{text}"
    );
}

#[tokio::test]
async fn unauthorized_without_metadata_falls_back_to_the_origin() {
    let fake = FakeDoor::start(Behaviour::UnauthorizedBare).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let result = call_agents(&door).await;
    assert!(
        result_text(&result).ends_with(&format!(
            "(resource metadata: {}/.well-known/oauth-protected-resource)",
            fake.origin()
        )),
        "{result}"
    );
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::SignInRequired {
            resource_metadata: fake.default_metadata_url()
        }
    );
    assert_eq!(snapshot.list, None);
}

#[tokio::test]
async fn no_bearer_call_gets_the_sign_in_result() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(mcp_door_client::DoorClientConfig::new(fake.url())).expect("door");
    // The list needs no credential (HIP-0300 §1.3).
    assert_eq!(door.fetch_now().await.status, DoorStatus::Ready);
    assert_eq!(
        fake.requests_for("tools/list")[0].header("authorization"),
        None
    );
    let result = call_agents(&door).await;
    assert_eq!(result["isError"], true);
    assert!(
        result_text(&result).contains(&fake.challenge_metadata_url()),
        "{result}"
    );
}

#[tokio::test]
async fn sse_answers_are_read_and_progress_is_passed_on() {
    let fake = FakeDoor::start(Behaviour::Sse).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["describe", "agents", "billing", "git"]);

    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let result = door
        .call_tool(
            params(json!({
                "name": "agents",
                "arguments": {"op": "list_agents"},
                "_meta": {"progressToken": "tok-9"}
            })),
            Some(sender),
        )
        .await
        .expect("a result");
    assert_eq!(result["content"][0]["text"], "called agents");
    assert_eq!(result["isError"], false);
    assert_eq!(
        receiver.recv().await,
        Some(json!({"progressToken": "tok-9", "progress": 1, "total": 2}))
    );
    assert_eq!(receiver.recv().await, None);
}

#[tokio::test]
async fn html_502_is_local_only_and_a_one_line_call_error() {
    let fake = FakeDoor::start(Behaviour::Html502).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::Unavailable {
            reason: "answered an HTML page (HTTP 502), not JSON-RPC".into()
        }
    );
    assert_eq!(snapshot.list, None);
    let result = call_agents(&door).await;
    assert_eq!(
        result,
        error_result(format!(
            "tool 'agents' is not a local tool, and the door ({}) failed: \
                 answered an HTML page (HTTP 502), not JSON-RPC",
            fake.url()
        ))
    );
}

#[tokio::test]
async fn garbage_is_local_only() {
    let fake = FakeDoor::start(Behaviour::Garbage).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::Unavailable {
            reason: "answered a body that is not a JSON-RPC response: not JSON".into()
        }
    );
    let result = call_agents(&door).await;
    assert_eq!(
        result_text(&result),
        format!(
            "tool 'agents' is not a local tool, and the door ({}) failed: \
             answered a body that is not a JSON-RPC response: not JSON",
            fake.url()
        )
    );
}

#[tokio::test]
async fn hang_times_out_to_local_only() {
    let fake = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let mut config = config_for(&fake);
    config.timeouts.list = Duration::from_millis(200);
    config.timeouts.call = Duration::from_millis(300);
    let door = DoorClient::new(config).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::Unavailable {
            reason: "no answer within 0.2 s".into()
        }
    );
    let result = call_agents(&door).await;
    assert_eq!(
        result_text(&result),
        format!(
            "tool 'agents' is not a local tool, and the door ({}) could not be reached: \
             no answer within 0.3 s",
            fake.url()
        )
    );
}

#[tokio::test]
async fn wait_first_gives_up_on_a_hanging_door() {
    let fake = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let mut config = config_for(&fake);
    config.timeouts.list = Duration::from_secs(30);
    let door = DoorClient::new(config).expect("door");
    door.start();
    let snapshot = door.wait_first(Duration::from_millis(50)).await;
    assert_eq!(snapshot.status, DoorStatus::Pending);
    assert_eq!(snapshot.list, None);
    assert_eq!(snapshot.generation, 0);
}

#[tokio::test]
async fn slow_door_within_the_limit_is_fine() {
    let fake = FakeDoor::start(Behaviour::Slow(Duration::from_millis(50))).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    door.start();
    let snapshot = door.wait_first(Duration::from_secs(5)).await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(snapshot.generation, 1);
    assert_eq!(names(&snapshot), ["describe", "agents", "billing", "git"]);
}

#[tokio::test]
async fn door_down_is_local_only() {
    let address = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    let url = format!("http://{address}/v1/mcp");
    let door = DoorClient::new(config(&url)).expect("door");
    let snapshot = door.fetch_now().await;
    match &snapshot.status {
        DoorStatus::Unavailable { reason } => {
            assert!(reason.starts_with("could not connect: "), "{reason}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    let result = door
        .call_tool(params(json!({"name": "fsx"})), None)
        .await
        .expect("a result");
    assert_eq!(result["isError"], true);
    let text = result_text(&result);
    assert!(
        text.starts_with(&format!(
            "tool 'fsx' is not a local tool, and the door ({url}) could not be reached: "
        )),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
    if cfg!(target_os = "linux") {
        assert_eq!(
            text,
            format!(
                "tool 'fsx' is not a local tool, and the door ({url}) could not be reached: \
                 Connection refused (os error 111)"
            )
        );
    }
}

#[tokio::test]
async fn a_listed_tool_the_door_fails_keeps_the_door_line() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    assert_eq!(door.fetch_now().await.status, DoorStatus::Ready);
    fake.set_behaviour(Behaviour::Html502);
    let call = |name: &str| door.call_tool(params(json!({"name": name})), None);
    let listed = call("agents").await.expect("a result");
    assert_eq!(
        result_text(&listed),
        format!(
            "hanzo door {}: answered an HTML page (HTTP 502), not JSON-RPC",
            fake.url()
        )
    );
    let unlisted = call("fsx").await.expect("a result");
    assert_eq!(
        result_text(&unlisted),
        format!(
            "tool 'fsx' is not a local tool, and the door ({}) failed: \
             answered an HTML page (HTTP 502), not JSON-RPC",
            fake.url()
        )
    );
}

#[tokio::test]
async fn an_odd_unlisted_name_is_escaped_and_bounded_in_the_failure_line() {
    let address = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr")
    };
    let url = format!("http://{address}/v1/mcp");
    let door = DoorClient::new(config(&url)).expect("door");
    let name = format!("it's\n{}", "x".repeat(200));
    let result = door
        .call_tool(params(json!({"name": name})), None)
        .await
        .expect("a result");
    let text = result_text(&result);
    let shown = format!("it\\'s\\n{}…", "x".repeat(123));
    assert!(
        text.starts_with(&format!(
            "tool '{shown}' is not a local tool, and the door ({url}) "
        )),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
}

#[tokio::test]
async fn legacy_path_308_is_followed_with_method_and_body() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config(&fake.legacy_url())).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    let result = door
        .call_tool(
            params(json!({"name": "agents", "arguments": {"op": "x"}})),
            None,
        )
        .await
        .expect("a result");
    assert_eq!(result["content"][0]["text"], "called agents");
    let requests = fake.requests();
    let paths: Vec<(&str, &str)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            ("POST", "/mcp"),
            ("POST", "/v1/mcp"),
            ("POST", "/mcp"),
            ("POST", "/v1/mcp")
        ]
    );
    assert_eq!(requests[0].body, requests[1].body);
    assert_eq!(requests[2].body, requests[3].body);
    // Same origin: the bearer stays.
    let expected_auth = format!("Bearer {CANARY}");
    assert_eq!(
        requests[3].header("authorization"),
        Some(expected_auth.as_str())
    );
}

#[tokio::test]
async fn redirect_to_another_origin_drops_the_bearer() {
    let other = FakeDoor::start(Behaviour::Normal).expect("other door");
    let fake = FakeDoor::start(Behaviour::RedirectTo(other.url())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    assert_eq!(door.fetch_now().await.status, DoorStatus::Ready);
    let result = call_agents(&door).await;
    // The other origin challenges the call that arrived without a bearer.
    assert!(
        result_text(&result).contains(&other.challenge_metadata_url()),
        "{result}"
    );
    let expected_auth = format!("Bearer {CANARY}");
    for request in fake.requests() {
        assert_eq!(
            request.header("authorization"),
            Some(expected_auth.as_str())
        );
    }
    let forwarded = other.requests();
    assert_eq!(forwarded.len(), 2);
    for request in forwarded {
        assert_eq!(request.header("authorization"), None);
        assert!(!request.to_text().contains(CANARY));
    }
}

#[tokio::test]
async fn redirect_loop_stops_after_five_hops() {
    let fake = FakeDoor::start(Behaviour::RedirectLoop).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::Unavailable {
            reason: "bad redirect: more than 5 redirects".into()
        }
    );
    assert_eq!(fake.requests().len(), 6);
}

#[tokio::test]
async fn three_pages_are_all_read() {
    let fake = FakeDoor::start(Behaviour::ThreePages).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        names(&snapshot),
        ["describe", "agents", "billing", "git", "kms", "storage"]
    );
    assert_eq!(snapshot.list.as_ref().map(|l| l.pages), Some(3));
    let cursors: Vec<Option<String>> = fake
        .requests_for("tools/list")
        .iter()
        .map(|r| {
            r.params()
                .and_then(|p| p.get("cursor").and_then(Value::as_str).map(str::to_owned))
        })
        .collect();
    assert_eq!(
        cursors,
        [None, Some("page-2".to_owned()), Some("page-3".to_owned())]
    );
}

#[tokio::test]
async fn page_cap_bounds_the_pages_read() {
    let logs = capture_global_logs();
    let fake = FakeDoor::start(Behaviour::ThreePages).expect("fake door");
    let mut config = config_for(&fake);
    config.max_pages = 2;
    let door = DoorClient::new(config).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(names(&snapshot), ["describe", "agents", "billing", "git"]);
    assert_eq!(fake.requests_for("tools/list").len(), 2);
    assert_eq!(logs.lines_with("has more than 2 pages").len(), 1);
}

#[tokio::test]
async fn cursor_that_never_advances_stops_the_loop() {
    let logs = capture_global_logs();
    let fake = FakeDoor::start(Behaviour::CursorLoop).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["describe", "agents"]);
    assert_eq!(snapshot.list.as_ref().map(|l| l.pages), Some(2));
    assert_eq!(fake.requests_for("tools/list").len(), 2);
    assert_eq!(logs.lines_with("repeated a tools/list cursor").len(), 1);
}

#[tokio::test]
async fn invalid_names_are_dropped_with_one_warning() {
    let logs = capture_global_logs();
    let fake = FakeDoor::start(Behaviour::InvalidNames).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(names(&snapshot), ["describe", "git", "agents"]);
    let list = snapshot.list.expect("list");
    assert_eq!(
        list.dropped,
        [
            DroppedTool {
                name: "a.b:c".to_owned(),
                reason: DropReason::InvalidName
            },
            DroppedTool {
                name: "x".repeat(LONG_NAME_LEN),
                reason: DropReason::InvalidName
            }
        ]
    );
    let warnings = door_lines(&logs, &fake, "break the MCP tool rules");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("WARN"));
    let long = format!("{:?}…", "x".repeat(40));
    let expected = format!(
        "the door listed 2 tool(s) that break the MCP tool rules; dropped: \"a.b:c\" (name), {long} (name)"
    );
    assert!(warnings[0].contains(&expected), "{warnings:?}");

    // The same invalid names again: no second warning.
    door.fetch_now().await;
    assert_eq!(
        door_lines(&logs, &fake, "break the MCP tool rules").len(),
        1
    );

    let merged = merge(&[local_tool("git", "local")], Some(&list));
    let merged_names: Vec<&str> = merged.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(merged_names, ["git", "describe", "agents"]);
}

#[tokio::test]
async fn a_tool_without_input_schema_is_dropped_with_its_reason() {
    let logs = capture_global_logs();
    let fake = FakeDoor::start(Behaviour::MissingSchema).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(names(&snapshot), ["describe", "git"]);
    let list = snapshot.list.expect("list");
    assert_eq!(
        list.dropped,
        [
            DroppedTool {
                name: "a.b:c".to_owned(),
                reason: DropReason::InvalidName
            },
            DroppedTool {
                name: "noschema".to_owned(),
                reason: DropReason::NoInputSchema
            }
        ]
    );
    let warnings = door_lines(&logs, &fake, "break the MCP tool rules");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "the door listed 2 tool(s) that break the MCP tool rules; \
             dropped: \"a.b:c\" (name), \"noschema\" (no inputSchema object)"
        ),
        "{warnings:?}"
    );
    assert!(!warnings[0].contains("tool-name rule"), "{warnings:?}");
}

#[tokio::test]
async fn twelve_hundred_tools_of_about_a_megabyte() {
    let size = serde_json::to_vec(&huge_tools()).expect("json").len();
    assert!(
        (900_000..1_200_000).contains(&size),
        "fixture is {size} bytes"
    );
    let fake = FakeDoor::start(Behaviour::Huge).expect("fake door");
    let mut config = config_for(&fake);
    config.timeouts.list = Duration::from_secs(5);
    let door = DoorClient::new(config).expect("door");
    let snapshot = door.fetch_now().await;
    let names = names(&snapshot);
    assert_eq!(names.len(), 1_200);
    assert_eq!(names.first().map(String::as_str), Some("op_0000"));
    assert_eq!(names.last().map(String::as_str), Some("op_1199"));
}

#[tokio::test]
async fn answer_over_the_size_limit_is_refused() {
    let fake = FakeDoor::start(Behaviour::Huge).expect("fake door");
    let mut config = config_for(&fake);
    config.max_body_bytes = 100_000;
    let door = DoorClient::new(config).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(
        snapshot.status,
        DoorStatus::Unavailable {
            reason: "answer larger than 100000 bytes".into()
        }
    );
}

#[tokio::test]
async fn door_ttl_is_honoured_within_bounds() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    for (ttl_ms, expected) in [
        (None, 300),
        (Some(1), 10),
        (Some(120_000), 120),
        (Some(36_000_000), 3_600),
    ] {
        fake.set_ttl_ms(ttl_ms);
        let snapshot = door.fetch_now().await;
        assert_eq!(
            snapshot.list.map(|l| l.ttl),
            Some(Duration::from_secs(expected)),
            "ttlMs {ttl_ms:?}"
        );
    }
}

#[tokio::test]
async fn changing_list_is_refetched_after_the_ttl_and_announced() {
    let fake = FakeDoor::start(Behaviour::Changing).expect("fake door");
    fake.set_ttl_ms(Some(0));
    let mut config = config_for(&fake);
    config.cache.min_ttl = Duration::ZERO;
    let door = DoorClient::new(config).expect("door");
    let mut changes = door.subscribe();
    door.start();
    changes.changed().await.expect("first list");
    let first = changes.borrow_and_update().clone();
    assert_eq!(first.generation, 1);
    assert_eq!(names(&first), ["describe", "changing_1"]);

    // The list is stale at once (ttlMs 0): a read serves the old list and
    // refreshes in the background.
    let served = door.snapshot();
    assert_eq!(names(&served), ["describe", "changing_1"]);
    changes.changed().await.expect("second list");
    let second = changes.borrow_and_update().clone();
    assert_eq!(second.generation, 2);
    assert_eq!(names(&second), ["describe", "changing_2"]);
}

#[tokio::test]
async fn unchanged_list_keeps_its_generation() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let changes = door.subscribe();
    assert_eq!(door.fetch_now().await.generation, 1);
    assert_eq!(door.fetch_now().await.generation, 1);
    assert_eq!(fake.requests_for("tools/list").len(), 2);
    assert_eq!(changes.borrow().generation, 1);
    // A door that goes down makes the list local-only: a change.
    fake.set_behaviour(Behaviour::Garbage);
    let down = door.fetch_now().await;
    assert_eq!(down.generation, 2);
    assert_eq!(down.list, None);
}

#[tokio::test]
async fn never_two_fetches_at_once() {
    let fake = FakeDoor::start(Behaviour::Slow(Duration::from_millis(100))).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let started: Vec<bool> = (0..5).map(|_| door.refresh()).collect();
    assert_eq!(started, [true, false, false, false, false]);
    // fetch_now joins the fetch in flight instead of starting another.
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(fake.lists_answered(), 1);
    assert_eq!(fake.requests_for("tools/list").len(), 1);
}

#[tokio::test]
async fn one_stderr_line_per_outage() {
    let logs = capture_global_logs();
    let fake = FakeDoor::start(Behaviour::Html502).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    for _ in 0..3 {
        door.fetch_now().await;
        call_agents(&door).await;
    }
    assert_eq!(door_lines(&logs, &fake, "door unavailable").len(), 1);
    fake.set_behaviour(Behaviour::Normal);
    assert_eq!(door.fetch_now().await.status, DoorStatus::Ready);
    assert_eq!(door_lines(&logs, &fake, "the door answers again").len(), 1);
    fake.set_behaviour(Behaviour::Garbage);
    door.fetch_now().await;
    door.fetch_now().await;
    let lines = door_lines(&logs, &fake, "door unavailable");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("answered an HTML page (HTTP 502)"));
    assert!(lines[1].contains("not JSON"));
    assert!(!logs.text().contains("<html"));
}

#[test]
fn owns_every_valid_name() {
    let door = DoorClient::new(config("http://127.0.0.1:9/v1/mcp")).expect("door");
    assert!(door.owns("agents"));
    assert!(door.owns("deploy_project"));
    assert!(!door.owns("a.b:c"));
    assert!(!door.owns(""));
}

#[test]
fn bad_addresses_are_errors() {
    for address in ["not a url", "ftp://example.com/v1/mcp", "file:///tmp/x"] {
        match DoorClient::new(config(address)) {
            Err(DoorClientError::InvalidAddress { address: got, .. }) => assert_eq!(got, address),
            other => panic!("{address}: expected InvalidAddress, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn list_within_waits_only_for_the_first_list() {
    let fake = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let mut config = config_for(&fake);
    config.timeouts.list = Duration::from_secs(30);
    let door = DoorClient::new(config).expect("door");
    // Not started: list_within starts the fetch itself, then gives up.
    let snapshot = door.list_within(Duration::from_millis(50)).await;
    assert_eq!(snapshot.status, DoorStatus::Pending);
    assert_eq!(snapshot.list, None);
    // The fetch it started reaches the door (and hangs there).
    for _ in 0..600 {
        if !fake.requests_for("tools/list").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(fake.requests_for("tools/list").len(), 1);

    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let snapshot = door.list_within(Duration::from_secs(5)).await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["describe", "agents", "billing", "git"]);
    // Later calls serve the cache: no second fetch.
    let again = door.list_within(Duration::from_secs(5)).await;
    assert_eq!(again, snapshot);
    assert_eq!(fake.requests_for("tools/list").len(), 1);
}

#[tokio::test]
async fn generations_change_once_per_new_list() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let mut generations = door.generations();
    assert_eq!(*generations.borrow_and_update(), 0);
    door.fetch_now().await;
    assert!(generations.has_changed().expect("open"));
    assert_eq!(*generations.borrow_and_update(), 1);
    door.fetch_now().await;
    assert!(!generations.has_changed().expect("open"));
    fake.set_behaviour(Behaviour::Changing);
    door.fetch_now().await;
    assert!(generations.has_changed().expect("open"));
    assert_eq!(*generations.borrow_and_update(), 2);
}

#[tokio::test]
async fn merged_tools_memo_follows_the_generation() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let memo = mcp_door_client::MergedTools::new(vec![local_tool("git", "local git")]);
    let local_only = memo.get(&door.snapshot());
    let local_names: Vec<&str> = local_only.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(local_names, ["git"]);

    let first = memo.get(&door.fetch_now().await);
    let first_names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(first_names, ["git", "describe", "agents", "billing"]);
    // Same generation: the very same merged result.
    let again = memo.get(&door.fetch_now().await);
    assert!(std::sync::Arc::ptr_eq(&first, &again));

    fake.set_behaviour(Behaviour::Changing);
    let changed = memo.get(&door.fetch_now().await);
    let changed_names: Vec<&str> = changed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(changed_names, ["git", "describe", "changing_3"]);
}

/// The captured lines that contain `needle` and name `fake`'s address: the
/// global capture also holds the lines of the tests running beside this one.
fn door_lines(logs: &Captured, fake: &FakeDoor, needle: &str) -> Vec<String> {
    let address = fake.url();
    logs.lines_with(needle)
        .into_iter()
        .filter(|line| line.contains(&address))
        .collect()
}

/// The typed call of a door answering `result`.
async fn typed_call_answered_with(result: Value) -> Result<CallOutcome, ErrorObject> {
    let fake = FakeDoor::start(Behaviour::CallResult(result)).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let params = CallToolRequestParams {
        name: "agents".into(),
        ..CallToolRequestParams::default()
    };
    door.call(&params, None).await
}

#[tokio::test]
async fn a_typed_call_tells_a_complete_result_from_one_that_needs_input() {
    let complete = typed_call_answered_with(json!({
        "content": [{"type": "text", "text": "two agents"}],
        "resultType": "complete"
    }))
    .await;
    let mut expected = CallToolResult::text("two agents");
    expected.result_type = Some("complete".into());
    assert_eq!(complete, Ok(CallOutcome::Complete(expected)));

    let input = typed_call_answered_with(json!({
        "resultType": "input_required",
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {}}},
        "requestState": "opaque-state"
    }))
    .await;
    let Ok(CallOutcome::InputRequired(input)) = input else {
        panic!("input required: {input:?}");
    };
    assert_eq!(input.request_state.as_deref(), Some("opaque-state"));
    assert_eq!(
        input
            .input_requests
            .as_ref()
            .map(|r| r.contains_key("confirm")),
        Some(true)
    );

    // A member of the wrong type is named.
    let wrong = typed_call_answered_with(json!({"content": [], "isError": "yes"})).await;
    let error = wrong.expect_err("does not decode");
    assert_eq!(error.code, -32603);
    assert!(
        error.message.contains("result.isError"),
        "{}",
        error.message
    );
}
