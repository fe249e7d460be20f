//! HIP-0300 §4 cloud conformance over HTTP on loopback, and the JSON-RPC
//! surface of `POST /v1/mcp` (2026-07-28 stateless, and `initialize` for
//! 2025-era clients).

use mcp_door::{Answer, Credentials, Door, DoorConfig, OpenApiSource};
use mcp_proto::methods::{
    CallTool, Initialize, ListPrompts, ListTools, Method as _, Ping, ServerDiscover,
};
use mcp_proto::{CallToolRequestParams, InitializeRequestParams, Request};
use serde_json::{Value, json};

use crate::common::{
    REST_DOC, call, get, github_bytes, list, post, spawn_door, spawn_rest, tool_names,
};

async fn github_door() -> String {
    let source = OpenApiSource::from_bytes("github", github_bytes(), Some("http://127.0.0.1:9"));
    let config = DoorConfig {
        issuer: Some("https://hanzo.id".into()),
        ..DoorConfig::default()
    };
    let addr = spawn_door(Door::new(vec![source], config).unwrap()).await;
    format!("http://{addr}")
}

#[tokio::test]
async fn list_needs_no_credential_and_stays_under_the_cap() {
    let base = github_door().await;
    let r = post(&format!("{base}/v1/mcp"), &list(1), &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["id"], 1);
    let result = &r.body["result"];
    let tools = result["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 47);
    assert_eq!(tools[0]["name"], "describe");
    for t in tools {
        assert!(
            !t["description"].as_str().unwrap().trim().is_empty(),
            "{}",
            t["name"]
        );
    }
    assert_eq!(result["ttlMs"], 300_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(result["_meta"]["hanzo.ai/refused"]["count"], 92);
    assert!(result["_meta"].get("hanzo.ai/unavailable").is_none());
}

#[tokio::test]
async fn a_call_without_credential_is_challenged_at_the_edge() {
    let base = github_door().await;
    let url = format!("{base}/v1/mcp");
    let r = post(
        &url,
        &call(7, "repos", json!({"op": "get_repo", "input": {}})),
        &[],
    )
    .await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.headers["www-authenticate"],
        format!("Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource\"")
            .as_str()
    );
    assert_eq!(r.body["id"], 7);
    assert_eq!(r.body["error"]["code"], mcp_door::UNAUTHORIZED);

    // `describe` and `tools/list` never need one.
    let r = post(&url, &call(8, "describe", json!({"op": "get_repo"})), &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["result"]["structuredContent"]["path"],
        "/repos/{owner}/{repo}"
    );
    assert!(r.headers.get("www-authenticate").is_none());

    // Any of the three credential carriers is enough to pass the edge.
    for header in [
        ("authorization", "Bearer t"),
        ("x-authorization", "t"),
        ("cookie", "s=1"),
    ] {
        let r = post(&url, &call(9, "nope", json!({})), &[header]).await;
        assert_eq!(r.status, 200, "{header:?}");
        assert_eq!(r.body["error"]["message"], "unknown tool \"nope\"");
    }
}

#[tokio::test]
async fn the_metadata_names_the_issuer() {
    let base = github_door().await;
    let r = get(&format!("{base}/.well-known/oauth-protected-resource")).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["authorization_servers"], json!(["https://hanzo.id"]));
    assert_eq!(r.body["resource"], base.as_str());
    let r = get(&format!(
        "{base}/.well-known/oauth-protected-resource/v1/mcp"
    ))
    .await;
    assert_eq!(r.body["authorization_servers"], json!(["https://hanzo.id"]));
    assert_eq!(r.body["resource"], format!("{base}/v1/mcp").as_str());
}

#[tokio::test]
async fn mcp_redirects_permanently_to_the_door() {
    let base = github_door().await;
    let r = post(&format!("{base}/mcp"), &list(1), &[]).await;
    assert_eq!(r.status, 308);
    assert_eq!(r.headers["location"], "/v1/mcp");
    assert_eq!(get(&format!("{base}/mcp")).await.status, 308);
    assert_eq!(get(&format!("{base}/v1/mcp")).await.status, 405);
}

#[tokio::test]
async fn speaks_both_eras() {
    let base = github_door().await;
    let url = format!("{base}/v1/mcp");
    let init = json!({"jsonrpc": "2.0", "id": "a", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = post(&url, &init, &[]).await;
    assert_eq!(r.body["id"], "a");
    assert_eq!(r.body["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r.body["result"]["serverInfo"]["name"], "mcp-door");

    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&url, &note, &[]).await.status, 202);

    let discover = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}});
    let r = post(&url, &discover, &[("mcp-protocol-version", "2026-07-28")]).await;
    let result = &r.body["result"];
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-door"
    );

    let r = post(&url, &list(3), &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(r.body["error"]["code"], -32022);
    assert_eq!(r.body["error"]["data"]["requested"], "1999-01-01");

    let r = post(
        &url,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/list"}),
        &[],
    )
    .await;
    assert_eq!(r.body["error"]["code"], -32601);
    assert_eq!(r.body["id"], 4);

    let r = post(&url, &json!([list(5)]), &[]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["error"]["code"], -32600);

    let cursor =
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"cursor": "x"}});
    let r = post(&url, &cursor, &[]).await;
    assert_eq!(r.body["error"]["code"], -32602);
    assert_eq!(r.body["id"], 6);
}

#[tokio::test]
async fn a_withheld_name_answers_like_one_that_never_existed() {
    let base = github_door().await;
    let url = format!("{base}/v1/mcp");
    let auth = [("authorization", "Bearer t")];
    let answer = |r: &Value, from: &str| r["error"]["message"].as_str().unwrap().replace(from, "X");
    let withheld = post(
        &url,
        &call(1, "get_repo_secret_in_actions", json!({})),
        &auth,
    )
    .await;
    let never = post(&url, &call(1, "get_unicorn", json!({})), &auth).await;
    assert_eq!(withheld.body["error"]["code"], never.body["error"]["code"]);
    assert_eq!(
        answer(&withheld.body, "get_repo_secret_in_actions"),
        answer(&never.body, "get_unicorn")
    );
    let args =
        |op: &str| json!({"op": op, "input": {"owner": "o", "repo": "r", "secret_name": "s"}});
    let withheld = post(
        &url,
        &call(2, "actions", args("get_repo_secret_in_actions")),
        &auth,
    )
    .await;
    let never = post(&url, &call(2, "actions", args("get_unicorn")), &auth).await;
    assert_eq!(
        answer(&withheld.body, "get_repo_secret_in_actions"),
        answer(&never.body, "get_unicorn")
    );
    assert_eq!(
        never.body["error"]["message"],
        "tool \"actions\" has no op \"get_unicorn\""
    );
    let withheld = post(
        &url,
        &call(3, "describe", json!({"op": "get_repo_secret_in_actions"})),
        &[],
    )
    .await;
    let never = post(
        &url,
        &call(3, "describe", json!({"op": "get_unicorn"})),
        &[],
    )
    .await;
    assert_eq!(
        answer(&withheld.body, "get_repo_secret_in_actions"),
        answer(&never.body, "get_unicorn")
    );
}

#[tokio::test]
async fn unavailable_sources_are_listed() {
    let good = OpenApiSource::from_bytes(
        "good.yaml",
        b"openapi: 3.1.0\npaths:\n  /v1/things: {get: {operationId: listThings}}\n",
        Some("http://127.0.0.1:9"),
    );
    let bad = OpenApiSource::from_bytes("bad.json", b"{nope", None);
    let down = OpenApiSource::from_bytes(
        "down.yaml",
        b"openapi: 3.0.0\npaths:\n  /v1/bills: {get: {operationId: listBills, tags: [billing]}}\n",
        Some("http://127.0.0.1:9"),
    );
    let door = Door::new(vec![good, bad, down], DoorConfig::default()).unwrap();
    assert!(door.set_available("down.yaml", false));
    assert!(!door.set_available("missing", false));
    let addr = spawn_door(door).await;
    let r = post(&format!("http://{addr}/v1/mcp"), &list(1), &[]).await;
    let result = &r.body["result"];
    assert_eq!(tool_names(result), ["describe", "things"]);
    let unavailable = &result["_meta"]["hanzo.ai/unavailable"];
    assert_eq!(unavailable[0]["source"], "bad.json");
    assert!(
        unavailable[0]["reason"]
            .as_str()
            .unwrap()
            .contains("is not JSON or YAML")
    );
    assert_eq!(
        unavailable[1],
        json!({"source": "down.yaml", "reason": "upstream marked unavailable", "subsystems": ["billing"]})
    );
}

#[tokio::test]
async fn a_shortened_list_says_so() {
    let mut doc = String::from("openapi: 3.1.0\npaths:\n");
    for i in 0..5 {
        doc.push_str(&format!("  /v1/t{i}: {{get: {{tags: [t{i}]}}}}\n"));
    }
    let config = DoorConfig {
        projection: mcp_door::ProjectionConfig {
            max_tools: 3,
            ..Default::default()
        },
        ..DoorConfig::default()
    };
    let door = crate::common::door(&doc, "http://127.0.0.1:9", config);
    let p = door.projection();
    let names: Vec<&str> = p.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["describe", "t0", "t1"]);
    assert_eq!(
        p.list_meta()["hanzo.ai/shortened"],
        json!({"listed": 2, "total": 5, "dropped": ["t2", "t3", "t4"]})
    );
}

/// Definition `def` of the official 2026-07-28 schema (kept by mcp-proto's tests).
fn check_2026(def: &str, instance: &Value) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../mcp-proto/tests/fixtures/2026-07-28/schema.json"
    );
    let mut root: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let defs = if root.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(root[defs].get(def).is_some(), "no definition {def}");
    root["$ref"] = Value::from(format!("#/{defs}/{def}"));
    let validator = jsonschema::validator_for(&root).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{def}: {}", errors.join("; "));
}

#[tokio::test]
async fn results_validate_against_the_2026_07_28_schema() {
    let base = github_door().await;
    let url = format!("{base}/v1/mcp");
    let header = [("mcp-protocol-version", "2026-07-28")];
    let r = post(&url, &list(1), &header).await;
    check_2026("ListToolsResult", &r.body["result"]);
    let discover = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}});
    let r = post(&url, &discover, &header).await;
    check_2026("DiscoverResult", &r.body["result"]);
    let r = post(
        &url,
        &call(3, "describe", json!({"op": "create_issue"})),
        &header,
    )
    .await;
    check_2026("CallToolResult", &r.body["result"]);
    let auth = [("authorization", "Bearer t"), header[0]];
    let r = post(
        &url,
        &call(4, "repos", json!({"op": "get_repo", "input": {}})),
        &auth,
    )
    .await;
    assert_eq!(r.body["result"]["isError"], true);
    check_2026("CallToolResult", &r.body["result"]);
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let r = post(&url, &ping, &header).await;
    assert_eq!(r.body["result"], json!({"resultType": "complete"}));
}

/// What `door` answers `request` with: whether it is a challenge, and the
/// JSON-RPC response as sent.
async fn answered(door: &Door, request: &Request, credentials: &Credentials) -> (bool, Value) {
    let (challenged, response) = match door.answer(request, credentials, None).await {
        Answer::Response(r) => (false, r),
        Answer::Challenge(r) => (true, r),
    };
    (challenged, serde_json::to_value(response).unwrap())
}

#[tokio::test]
async fn every_method_is_answered_through_the_router() {
    let (rest, seen) = spawn_rest().await;
    let door = crate::common::door(REST_DOC, &rest, DoorConfig::default());
    let none = Credentials::default();
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("authorization", "Bearer t".parse().unwrap());
    let bearer = Credentials::from_headers(&headers);

    let init = InitializeRequestParams {
        protocol_version: "2025-06-18".into(),
        ..InitializeRequestParams::default()
    };
    let request = Request::typed::<Initialize>("a", &init).unwrap();
    let (_, r) = answered(&door, &request, &none).await;
    assert_eq!(r["id"], "a");
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["serverInfo"]["name"], "mcp-door");
    assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], false);
    // `initialize` belongs to the revisions without `resultType`.
    assert!(r["result"].get("resultType").is_none(), "{r}");

    let request = Request::typed::<Ping>(2, &Default::default()).unwrap();
    let (_, r) = answered(&door, &request, &none).await;
    assert_eq!(
        r,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete"}})
    );

    let request = Request::typed::<ServerDiscover>(3, &Default::default()).unwrap();
    let (_, r) = answered(&door, &request, &none).await;
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(r["result"]["ttlMs"], 300_000);
    assert_eq!(r["result"]["cacheScope"], "public");
    assert_eq!(r["result"]["resultType"], "complete");

    let request = Request::typed::<ListTools>(4, &Default::default()).unwrap();
    let (_, r) = answered(&door, &request, &none).await;
    assert_eq!(
        tool_names(&r["result"]),
        ["describe", "errors", "items", "slow"]
    );
    assert_eq!(
        r["result"]["tools"][2]["inputSchema"]["properties"]["op"]["enum"],
        json!(["get_item", "update_item", "add_tags"])
    );
    assert_eq!(r["result"]["resultType"], "complete");

    let describe = CallToolRequestParams {
        name: "describe".into(),
        arguments: json!({"op": "get_item"}).as_object().cloned(),
        ..CallToolRequestParams::default()
    };
    let request = Request::typed::<CallTool>(5, &describe).unwrap();
    let (challenged, r) = answered(&door, &request, &none).await;
    assert!(!challenged);
    assert_eq!(r["result"]["structuredContent"]["path"], "/items/{name}");
    assert_eq!(r["result"]["resultType"], "complete");

    let get = CallToolRequestParams {
        name: "items".into(),
        arguments: json!({"op": "get_item", "input": {"name": "bolt"}})
            .as_object()
            .cloned(),
        ..CallToolRequestParams::default()
    };
    let request = Request::typed::<CallTool>(6, &get).unwrap();
    let (challenged, r) = answered(&door, &request, &none).await;
    assert!(challenged);
    assert_eq!(r["id"], 6);
    assert_eq!(r["error"]["code"], mcp_door::UNAUTHORIZED);
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing is sent unchallenged"
    );
    let (challenged, r) = answered(&door, &request, &bearer).await;
    assert!(!challenged);
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"method": "GET", "path": "/items/bolt", "query": null, "body": ""})
    );
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        seen.lock().unwrap()[0].header("authorization"),
        Some("Bearer t")
    );

    // A method without a route, params that do not decode, a revision
    // the door does not know: errors with the request's id.
    let request = Request::typed::<ListPrompts>(7, &Default::default()).unwrap();
    let (_, r) = answered(&door, &request, &none).await;
    assert_eq!((&r["id"], &r["error"]["code"]), (&json!(7), &json!(-32601)));
    let request = Request::new(8, CallTool::METHOD, Some(json!({"name": 5})));
    let (challenged, r) = answered(&door, &request, &none).await;
    assert!(!challenged);
    assert_eq!((&r["id"], &r["error"]["code"]), (&json!(8), &json!(-32602)));
    let request = Request::typed::<Ping>(9, &Default::default()).unwrap();
    let r = door.answer(&request, &none, Some("1999-01-01")).await;
    let Answer::Response(r) = r else {
        panic!("not a challenge")
    };
    let r = serde_json::to_value(r).unwrap();
    assert_eq!((&r["id"], &r["error"]["code"]), (&json!(9), &json!(-32022)));

    // Each request is counted, the forwarded call too.
    let metrics = door.metrics().render();
    for line in [
        "mcp_door_requests_total{method=\"ping\",tool=\"\"} 2",
        "mcp_door_requests_total{method=\"tools/call\",tool=\"items\"} 2",
        "mcp_door_requests_total{method=\"tools/call\",tool=\"describe\"} 1",
        "mcp_door_requests_total{method=\"other\",tool=\"\"} 1",
        "mcp_door_forwarded_calls_total{op=\"get_item\",status=\"200\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} in {metrics}");
    }
}
