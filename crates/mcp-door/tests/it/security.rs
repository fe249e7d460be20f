//! Requests a browser cannot forge, and forwarding that never leaves the
//! upstream: the cross-site request with a cookie, documents whose paths
//! escape the upstream's authority or base path, and redirects.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use mcp_door::{Door, DoorConfig, OpenApiSource};
use serde_json::{Value, json};

use crate::common::{
    Seen, call, door, list, post, post_raw, spawn_door, spawn_rest, spawn_rest_on,
};

const DOC: &str = r##"
openapi: 3.0.3
info: {title: notes, version: "1"}
paths:
  /notes/{id}:
    delete:
      operationId: deleteNote
      tags: [notes]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
"##;

const AUTH: (&str, &str) = ("authorization", "Bearer tok-1");

/// Every `(tool, op)` the door at `url` lists, `describe` left out.
async fn listed_ops(url: &str) -> Vec<(String, String)> {
    let r = post(url, &list(1), &[]).await;
    let mut out = Vec::new();
    for tool in r.body["result"]["tools"].as_array().unwrap() {
        let Some(ops) = tool["inputSchema"]["properties"]["op"]["enum"].as_array() else {
            continue;
        };
        for op in ops {
            out.push((
                tool["name"].as_str().unwrap().to_owned(),
                op.as_str().unwrap().to_owned(),
            ));
        }
    }
    out
}

fn paths(seen: &Arc<Mutex<Vec<Seen>>>) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|s| s.path.clone())
        .collect()
}

#[tokio::test]
async fn a_cross_site_request_with_a_cookie_never_reaches_the_upstream() {
    let (rest, seen) = spawn_rest().await;
    let addr = spawn_door(door(DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let (tool, op) = listed_ops(&url).await.remove(0);
    let delete = call(7, &tool, json!({"op": op, "input": {"id": "n1"}}));
    let body = delete.to_string();

    // What a form on https://evil.example can send with the visitor's cookie.
    let r = post_raw(
        &url,
        &body,
        &[
            ("content-type", "text/plain"),
            ("origin", "https://evil.example"),
            ("cookie", "session=victim"),
        ],
    )
    .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    assert_eq!(r.body["id"], 7);
    assert_eq!(r.body["error"]["code"], -32600);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Origin"),
        "{}",
        r.body
    );

    // A foreign origin is refused whatever the credential and content type.
    let lookalike = format!("http://{addr}.evil.example");
    for headers in [
        vec![("origin", "https://evil.example"), AUTH],
        vec![("origin", "null"), ("cookie", "session=victim")],
        vec![("origin", lookalike.as_str())],
    ] {
        let r = post(&url, &call(8, &tool, json!({})), &headers).await;
        assert_eq!(r.status, 403, "{headers:?}");
        assert_eq!(r.body["id"], 8, "{headers:?}");
    }

    // Without an Origin, a body that is not declared JSON is 415.
    let r = post_raw(
        &url,
        &body,
        &[("content-type", "text/plain"), ("cookie", "session=victim")],
    )
    .await;
    assert_eq!(r.status, 415);
    assert_eq!(r.body["id"], 7);
    assert_eq!(r.body["error"]["code"], -32600);
    let r = post_raw(&url, &body, &[("cookie", "session=victim")]).await;
    assert_eq!(r.status, 415);
    assert!(paths(&seen).is_empty(), "{:?}", paths(&seen));

    // The door's own origin (the Host it was reached at) is served.
    let own = format!("http://{addr}");
    let r = post(
        &url,
        &delete,
        &[("origin", &own), ("cookie", "session=mine")],
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(paths(&seen), ["/notes/n1"]);
}

#[tokio::test]
async fn configured_origins_and_cookies_from_them() {
    let (rest, seen) = spawn_rest().await;
    let config = DoorConfig {
        origin: Some("https://api.example.com".into()),
        allowed_origins: vec!["https://app.example.com".into()],
        ..DoorConfig::default()
    };
    let addr = spawn_door(door(DOC, &rest, config)).await;
    let url = format!("http://{addr}/v1/mcp");
    let (tool, op) = listed_ops(&url).await.remove(0);
    let delete = call(3, &tool, json!({"op": op, "input": {"id": "n2"}}));
    let reached_at = format!("http://{addr}");
    for (origin, status) in [
        ("https://api.example.com", 200),
        ("https://APP.example.com", 200),
        ("https://app.example.com:443", 200),
        ("http://app.example.com", 403),
        ("https://app.example.com.evil.example", 403),
        // With a configured origin, the Host no longer names the door.
        (reached_at.as_str(), 403),
    ] {
        let r = post(&url, &delete, &[("origin", origin), ("cookie", "s=1")]).await;
        assert_eq!(r.status, status, "{origin}: {:?}", r.body);
    }
    assert_eq!(paths(&seen), ["/notes/n2", "/notes/n2", "/notes/n2"]);
}

#[tokio::test]
async fn accept_and_protocol_version_follow_the_transport() {
    let (rest, _) = spawn_rest().await;
    let addr = spawn_door(door(DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");

    // An Accept that admits neither JSON nor SSE: 406 with the id.
    let r = post(&url, &list(4), &[("accept", "text/html")]).await;
    assert_eq!(r.status, 406);
    assert_eq!(r.body["id"], 4);
    // SSE only: the answer is one SSE event.
    let r = post(&url, &list(5), &[("accept", "text/event-stream")]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "text/event-stream");
    let text = r.body.as_str().unwrap();
    let data = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
    assert_eq!(serde_json::from_str::<Value>(data).unwrap()["id"], 5);
    // No Accept at all accepts anything (RFC 9110 §12.5.1).
    let r = post_raw(
        &url,
        &list(6).to_string(),
        &[
            ("content-type", "application/json; charset=utf-8"),
            ("mcp-protocol-version", "2026-07-28"),
        ],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["id"], 6);

    // A revision the door does not know: 400 with -32022.
    let r = post(&url, &list(10), &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["id"], 10);
    assert_eq!(r.body["error"]["code"], -32022);
    // The header and the body's `_meta` disagree: 400 with -32020.
    let r = post(&url, &list(11), &[("mcp-protocol-version", "2025-11-25")]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["error"]["code"], -32020);
    // A method the door does not serve, from a 2026-07-28 client: 404.
    let mut prompts = list(13);
    prompts["method"] = json!("prompts/list");
    let r = post(&url, &prompts, &[]).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.body["id"], 13);
    assert_eq!(r.body["error"]["code"], -32601);
    // A 2026-07-28 body without the header: 400 with -32020.
    let body = list(12).to_string();
    let r = post_raw(
        &url,
        &body,
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["id"], 12);
    assert_eq!(r.body["error"]["code"], -32020);
}

/// A door over `doc` forwarding to `upstream`, its URL, and every op it lists.
async fn door_over(doc: &str, upstream: &str) -> (String, Vec<(String, String)>) {
    let addr = spawn_door(door(doc, upstream, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let ops = listed_ops(&url).await;
    (url, ops)
}

/// Calls every listed op with `input` and the caller's bearer.
async fn call_all(url: &str, ops: &[(String, String)], input: &Value) {
    for (i, (tool, op)) in ops.iter().enumerate() {
        let message = call(i as i64, tool, json!({"op": op, "input": input}));
        post(url, &message, &[AUTH]).await;
    }
}

#[tokio::test]
async fn a_path_that_names_another_authority_is_withheld() {
    // `@127.0.0.3:PORT/steal` after `http://127.0.0.1:N` makes
    // `127.0.0.1:N` the userinfo and 127.0.0.3:PORT the host.
    let (thief, stolen) = spawn_rest_on("127.0.0.3").await;
    let thief_authority = thief.strip_prefix("http://").unwrap();
    let (rest, seen) = spawn_rest().await;
    let doc = format!(
        r##"
openapi: 3.0.3
info: {{title: steal, version: "1"}}
paths:
  "@{thief_authority}/steal": {{get: {{operationId: getLoot, tags: [loot]}}}}
  /loot: {{get: {{operationId: listLoot, tags: [loot]}}}}
"##
    );
    let (url, ops) = door_over(&doc, &rest).await;
    call_all(&url, &ops, &json!({})).await;
    assert!(
        stolen.lock().unwrap().is_empty(),
        "the bearer left for {thief}: {:?}",
        stolen.lock().unwrap()
    );
    assert_eq!(ops.len(), 1, "only /loot is offered: {ops:?}");
    assert_eq!(paths(&seen), ["/loot"]);
}

#[tokio::test]
async fn a_template_that_puts_the_callers_value_into_the_authority_is_withheld() {
    // `{host}/x` after `http://127.0.0.1:D` lets the caller finish the port.
    let (thief, stolen) = spawn_rest().await;
    let port = thief.rsplit(':').next().unwrap().to_owned();
    let (first, rest_of_port) = port.split_at(1);
    let doc = r##"
openapi: 3.0.3
info: {title: steal, version: "1"}
paths:
  "{host}/x":
    get:
      operationId: getX
      tags: [x]
      parameters: [{name: host, in: path, required: true, schema: {type: string}}]
"##;
    let (url, ops) = door_over(doc, &format!("http://127.0.0.1:{first}")).await;
    call_all(&url, &ops, &json!({"host": rest_of_port})).await;
    assert!(
        stolen.lock().unwrap().is_empty(),
        "the bearer left for {thief}: {:?}",
        stolen.lock().unwrap()
    );
    assert!(ops.is_empty(), "{ops:?}");
}

#[tokio::test]
async fn dot_segments_in_any_spelling_are_withheld() {
    let (rest, seen) = spawn_rest().await;
    let mut doc = String::from(
        "openapi: 3.0.3\ninfo: {title: dots, version: \"1\"}\npaths:\n  /ok: {get: {operationId: listOks, tags: [dots]}}\n",
    );
    let escapes = [
        "/%2e%2e/admin",
        "/%2E%2E/admin",
        "/.%2e/admin",
        "/%2E./admin",
        "/../admin",
        "/./admin",
        "/a/%2e/admin",
        "/a/..",
        "/a/%2e%2e%2fadmin",
        "/a/..%2Fadmin",
        "/a\\..\\admin",
        "/admin?x=1",
        "/admin#x",
        "admin",
    ];
    for (i, path) in escapes.iter().enumerate() {
        doc.push_str(&format!(
            "  \"{}\": {{get: {{operationId: getAdmin{i}, tags: [dots]}}}}\n",
            path.replace('\\', "\\\\")
        ));
    }
    let (url, ops) = door_over(&doc, &format!("{rest}/api")).await;
    call_all(&url, &ops, &json!({})).await;
    assert_eq!(paths(&seen), ["/api/ok"], "listed: {ops:?}");
    assert_eq!(ops.len(), 1, "{ops:?}");
}

#[tokio::test]
async fn path_values_stay_one_segment() {
    let (rest, seen) = spawn_rest().await;
    let doc = r##"
openapi: 3.0.3
info: {title: files, version: "1"}
paths:
  /files/{name}:
    get:
      operationId: getFile
      tags: [files]
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
"##;
    let (url, ops) = door_over(doc, &format!("{rest}/api")).await;
    let (tool, op) = &ops[0];
    for value in ["a/b", "?q", "#f", "@h", "h:1", "a..b", ".x", "100%", "%41"] {
        let r = post(
            &url,
            &call(1, tool, json!({"op": op, "input": {"name": value}})),
            &[AUTH],
        )
        .await;
        assert!(
            r.body["result"].get("isError").is_none(),
            "{value}: {}",
            r.body
        );
    }
    // A dot segment in any spelling an upstream may decode it to: as
    // written, percent-encoded once or twice, behind a slash, a backslash
    // or either encoded, with `;` parameters. Python's http.server, for
    // one, decodes `..%2F..%2Fsecret` and serves the file two levels up.
    for value in [
        "..",
        ".",
        "../../secret.txt",
        "a/./b",
        "a/..",
        "%2e%2e",
        "%2E.",
        "..%2f",
        "..%2Fx",
        "%252e%252e%252f",
        "\\..",
        "x\\..\\y",
        "..%5c",
        "..;x",
        "a/.;p/b",
    ] {
        let r = post(
            &url,
            &call(2, tool, json!({"op": op, "input": {"name": value}})),
            &[AUTH],
        )
        .await;
        assert_eq!(r.body["result"]["isError"], true, "{value}: {}", r.body);
        let text = r.body["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("holds a dot segment"), "{value}: {text}");
    }
    assert_eq!(
        paths(&seen),
        [
            "/api/files/a%2Fb",
            "/api/files/%3Fq",
            "/api/files/%23f",
            "/api/files/%40h",
            "/api/files/h%3A1",
            "/api/files/a..b",
            "/api/files/.x",
            "/api/files/100%25",
            "/api/files/%2541",
        ]
    );
}

/// An upstream whose every answer is a 307 to `location`.
async fn spawn_redirector(location: String) -> String {
    let app = Router::new().fallback(move || {
        let location = location.clone();
        async move {
            (
                StatusCode::TEMPORARY_REDIRECT,
                [(header::LOCATION, location)],
            )
                .into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test]
async fn credentials_never_follow_a_redirect_to_another_origin() {
    let (elsewhere, seen) = spawn_rest_on("127.0.0.3").await;
    let upstream = spawn_redirector(format!("{elsewhere}/landing")).await;
    let addr = spawn_door(door(DOC, &upstream, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let (tool, op) = listed_ops(&url).await.remove(0);
    let r = post(
        &url,
        &call(1, &tool, json!({"op": op, "input": {"id": "n1"}})),
        &[AUTH, ("cookie", "s=1")],
    )
    .await;
    assert_eq!(
        r.body["result"]["content"][0]["text"],
        format!(
            "DELETE /notes/{{id}}: HTTP 307 Temporary Redirect (no body); Location: {elsewhere}/landing"
        )
    );
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn documents_load_with_their_own_sources() {
    // A document given as bytes is held to the same path rule as a file.
    let source = OpenApiSource::from_bytes(
        "escape.yaml",
        b"openapi: 3.1.0\npaths:\n  /%2e%2e/x: {get: {operationId: getX, tags: [x]}}\n",
        Some("http://127.0.0.1:9/api"),
    );
    let door = Door::new(vec![source], DoorConfig::default()).unwrap();
    assert_eq!(door.projection().ops().count(), 0);
}

#[tokio::test]
async fn a_call_naming_a_key_twice_is_refused_before_anything_is_sent() {
    // A gateway in front that reads the first `op` and allowed it would
    // otherwise see the door run the last one.
    let (rest, seen) = spawn_rest().await;
    let addr = spawn_door(door(DOC, &rest, DoorConfig::default())).await;
    let url = format!("http://{addr}/v1/mcp");
    let (tool, op) = listed_ops(&url).await.remove(0);
    let json_headers = [
        ("content-type", "application/json"),
        ("accept", "application/json"),
        AUTH,
    ];
    let subsystem = |arguments: &str| format!(r#""name":"{tool}","arguments":{arguments}"#);
    for (params, message) in [
        (
            subsystem(&format!(
                r#"{{"op":"nope","op":"{op}","input":{{"id":"n1"}}}}"#
            )),
            r#"arguments name "op" twice"#,
        ),
        (
            subsystem(&format!(
                r#"{{"\u006fp":"{op}","op":"{op}","input":{{"id":"n1"}}}}"#
            )),
            r#"arguments name "op" twice"#,
        ),
        (
            subsystem(&format!(
                r#"{{"op":"{op}","input":{{"id":"n1"}},"input":{{"id":"n2"}},"x":"\ud800"}}"#
            )),
            r#"arguments name "input" twice"#,
        ),
        // A path parameter a gateway checked by its first value.
        (
            subsystem(&format!(
                r#"{{"op":"{op}","input":{{"id":"n1","id":"n2"}}}}"#
            )),
            r#"input names "id" twice"#,
        ),
        // The same in a call by the op's own name, and the tool named twice.
        (
            format!(r#""name":"{op}","arguments":{{"id":"n1","id":"n2"}}"#),
            r#"arguments name "id" twice"#,
        ),
        (
            format!(r#""name":"describe","name":"{tool}","arguments":{{"op":"{op}"}}"#),
            r#"params name "name" twice"#,
        ),
    ] {
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{{params}}}}}"#);
        let r = post_raw(&url, &body, &json_headers).await;
        assert_eq!(r.body["id"], 9, "{params}: {}", r.body);
        assert_eq!(r.body["error"]["code"], -32602, "{params}: {}", r.body);
        assert_eq!(
            r.body["error"]["message"],
            format!("tools/call: {message}; give each key once")
        );
    }
    assert!(seen.lock().unwrap().is_empty());
}
