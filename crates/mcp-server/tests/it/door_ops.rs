//! `hanzo-mcp door` as an operator runs it, through the real binary: the
//! TOML configuration file (and flags winning over it, and a bad key
//! stopping the start with its path), `/healthz` and `/readyz`, Prometheus
//! `/metrics`, JSON logs, and SIGHUP reloading the documents without
//! dropping a call in flight, a document that fails to load keeping its
//! previous version (HIP-0300 §1.4).

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use mcp_fake_door::raw_http::{RawConnection, header, json_answer};
use serde_json::{Value, json};

use crate::common::rest::{SLOW, spawn_rest};
use crate::common::{Proc, hanzo_mcp};

const DOC_V1: &str = r#"
openapi: 3.1.0
info: {title: ops, version: "1"}
paths:
  /v1/items/{id}:
    get:
      operationId: getItem
      tags: [items]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
  /v1/items/slow:
    get: {operationId: waitForItem, tags: [items]}
  /v1/admin/flags:
    get: {operationId: listFlags, tags: [admin]}
"#;

/// [`DOC_V1`] with one more operation.
const DOC_V2: &str = r#"
openapi: 3.1.0
info: {title: ops, version: "2"}
paths:
  /v1/items/{id}:
    get:
      operationId: getItem
      tags: [items]
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
  /v1/items/slow:
    get: {operationId: waitForItem, tags: [items]}
  /v1/widgets:
    get: {operationId: listWidgets, tags: [widgets]}
"#;

/// How long a test waits for what must happen well within it.
const PATIENCE: Duration = Duration::from_secs(30);

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    })
}

/// A running `hanzo-mcp door` and its origin (`http://127.0.0.1:<port>`).
struct DoorProc {
    process: Proc,
    origin: String,
}

impl DoorProc {
    /// `hanzo-mcp door <args>`, once it listens (the text log's line).
    fn start(args: &[&str]) -> DoorProc {
        let mut command = hanzo_mcp();
        command.arg("door").args(args);
        DoorProc::start_command(command)
    }

    /// `command` (a `hanzo-mcp door` command line), once it listens.
    fn start_command(command: Command) -> DoorProc {
        let mut process = Proc::start(command);
        let origin = loop {
            let line = process.stderr_line();
            if let Some(rest) = line.strip_prefix("hanzo-mcp door: listening on ") {
                let url = rest.split(' ').next().expect("url");
                break url.trim_end_matches("/v1/mcp").to_owned();
            }
        };
        DoorProc { process, origin }
    }

    fn get(&self, path: &str) -> (u16, String) {
        let url = format!("{}{path}", self.origin);
        runtime().block_on(async move {
            let response = reqwest::get(&url).await.expect("GET");
            let status = response.status().as_u16();
            (status, response.text().await.expect("body"))
        })
    }

    fn get_json(&self, path: &str) -> (u16, Value) {
        let (status, body) = self.get(path);
        (status, serde_json::from_str(&body).expect("JSON"))
    }

    /// POSTs `message` to `/v1/mcp` as a 2026-07-28 client with a bearer.
    fn post(&self, message: &Value) -> Value {
        post(&format!("{}/v1/mcp", self.origin), message)
    }

    fn list(&self) -> Value {
        self.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))
    }

    fn call(&self, tool: &str, op: &str, input: Value) -> Value {
        self.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": {"op": op, "input": input}}}))
    }

    fn metrics(&self) -> String {
        let (status, text) = self.get("/metrics");
        assert_eq!(status, 200);
        text
    }

    fn hang_up(&self) {
        let status = Command::new("kill")
            .args(["-HUP", &self.process.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }
}

fn post(url: &str, message: &Value) -> Value {
    post_as(url, message, "Bearer ops-test")
}

/// [`post`] with `authorization` as the credential.
fn post_as(url: &str, message: &Value, authorization: &str) -> Value {
    let url = url.to_owned();
    let body = message.to_string();
    let authorization = authorization.to_owned();
    runtime().block_on(async move {
        let response = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("authorization", authorization)
            .body(body)
            .send()
            .await
            .expect("POST");
        assert_eq!(response.status().as_u16(), 200);
        response.json().await.expect("JSON")
    })
}

/// The op enum of tool `tool` in a `tools/list` response.
fn ops_of(list: &Value, tool: &str) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == tool)
        .map(|t| {
            t["inputSchema"]["properties"]["op"]["enum"]
                .as_array()
                .expect("enum")
                .iter()
                .map(|v| v.as_str().expect("op").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The value of the sample `name` (with its labels, as printed) in a
/// metrics text, `None` when absent.
fn sample(metrics: &str, name: &str) -> Option<f64> {
    metrics.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?;
        rest.strip_prefix(' ')?.trim().parse().ok()
    })
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
}

/// Writes [`DOC_V1`] to `ops.yaml` in `dir` and returns the `--openapi`
/// value that serves it from `rest` (`FILE=UPSTREAM`).
fn doc_v1(dir: &Path, rest: &str) -> String {
    let doc = dir.join("ops.yaml");
    write(&doc, DOC_V1);
    format!("{}={rest}", doc.display())
}

/// `hanzo-mcp door --listen 127.0.0.1:0 --openapi <document>` with `env`
/// set (the test environment has no proxy variable of its own).
fn door_command(document: &str, env: &[(&str, &str)]) -> Command {
    let mut command = hanzo_mcp();
    command
        .args(["door", "--listen", "127.0.0.1:0", "--openapi", document])
        .envs(env.iter().copied());
    command
}

/// Waits until `ready` holds, at most [`PATIENCE`].
fn eventually(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < PATIENCE,
            "{what}: not within {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn door_config_file_sets_documents_names_exclusions_and_issuer() {
    let (rest, log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    write(&dir.path().join("ops.yaml"), DOC_V1);
    let config = dir.path().join("door.toml");
    write(
        &config,
        &format!(
            r#"
listen = "127.0.0.1:0"
issuer = "https://id.example"
[[documents]]
file = "ops.yaml"
upstream = "{rest}/api"
exclude_tags = ["admin"]
names = {{ getItem = "fetch_item", "GET /v1/items/slow" = "wait_for_item" }}
"#
        ),
    );
    let door = DoorProc::start(&["--config", config.to_str().expect("utf-8")]);
    let list = door.list();
    assert_eq!(tool_names(&list), ["describe", "items"]);
    assert_eq!(ops_of(&list, "items"), ["wait_for_item", "fetch_item"]);
    let called = door.call("items", "fetch_item", json!({"id": "a b"}));
    assert_eq!(
        called["result"]["structuredContent"]["deployed"], "/api/v1/items/a%20b",
        "{called}"
    );
    assert_eq!(log.lock().unwrap().len(), 1);
    let (status, metadata) = door.get_json("/.well-known/oauth-protected-resource");
    assert_eq!(status, 200);
    assert_eq!(
        metadata["authorization_servers"],
        json!(["https://id.example"])
    );
}

#[test]
fn door_flags_win_over_the_config_file() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    write(&dir.path().join("ops.yaml"), DOC_V1);
    write(&dir.path().join("v2.yaml"), DOC_V2);
    let config = dir.path().join("door.toml");
    // The file's address is taken by another listener; the flag's wins.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let taken_addr = taken.local_addr().expect("addr");
    write(
        &config,
        &format!(
            "listen = \"{taken_addr}\"\nissuer = \"https://file.example\"\n\
             [[documents]]\nfile = \"ops.yaml\"\nupstream = \"{rest}\"\n"
        ),
    );
    let v2 = format!("{}={rest}", dir.path().join("v2.yaml").display());
    let door = DoorProc::start(&[
        "--config",
        config.to_str().expect("utf-8"),
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        "https://flag.example",
        "--openapi",
        &v2,
    ]);
    assert!(!door.origin.ends_with(&format!(":{}", taken_addr.port())));
    // --openapi replaces the file's documents.
    assert_eq!(tool_names(&door.list()), ["describe", "items", "widgets"]);
    let (_, metadata) = door.get_json("/.well-known/oauth-protected-resource");
    assert_eq!(
        metadata["authorization_servers"],
        json!(["https://flag.example"])
    );
}

#[test]
fn door_config_file_with_a_bad_key_or_value_stops_the_start_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "[[documents]]\nfile = \"a.yaml\"\nupstrem = \"http://127.0.0.1:1\"\n",
            "documents[0].upstrem: unknown field `upstrem`",
        ),
        ("listen = \"everywhere\"\n", "listen: "),
        (
            "[[documents]]\nfile = \"a.yaml\"\nupstream = \"127.0.0.1:1\"\n",
            "documents[0].upstream: \"127.0.0.1:1\" is not an absolute http(s) URL",
        ),
        (
            "[readiness]\nprobe_timeout_ms = \"soon\"\n",
            "readiness.probe_timeout_ms: ",
        ),
    ];
    for (text, expected) in cases {
        let config = dir.path().join("door.toml");
        write(&config, text);
        let output = hanzo_mcp()
            .args(["door", "--config", config.to_str().expect("utf-8")])
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(1), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("hanzo-mcp door: configuration file") && stderr.contains(expected),
            "{text:?}: {stderr}"
        );
    }
}

#[test]
fn door_a_proxy_variable_that_would_be_passed_by_stops_the_start() {
    // reqwest goes straight to the upstream when it cannot read a proxy
    // variable, or reads none in a CGI environment: the door says so
    // instead of passing by the proxy the operator named.
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), "http://127.0.0.1:9");
    let cases: [(&[(&str, &str)], &str); 4] = [
        (
            &[("HTTP_PROXY", ""), ("http_proxy", "http://127.0.0.1:9")],
            "HTTP_PROXY is set but empty, which hides http_proxy",
        ),
        (
            &[("HTTPS_PROXY", "::bad::")],
            "HTTPS_PROXY=\"::bad::\" is not a proxy URL",
        ),
        (
            &[("all_proxy", "ftp://proxy.example:21")],
            "all_proxy=\"ftp://proxy.example:21\" is not a proxy URL",
        ),
        (
            &[
                ("HTTP_PROXY", "http://127.0.0.1:9"),
                ("REQUEST_METHOD", "GET"),
            ],
            "HTTP_PROXY is set, but proxies are ignored while REQUEST_METHOD is set",
        ),
    ];
    for (env, expected) in cases {
        let mut command = door_command(&document, env);
        let output = command.output().expect("run");
        assert_eq!(output.status.code(), Some(1), "{env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{env:?}: {stderr}");
    }
}

#[test]
fn door_healthz_alive_and_readyz_checks_documents_and_upstreams() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    write(&dir.path().join("ops.yaml"), DOC_V1);
    let ready = dir.path().join("ready.toml");
    write(
        &ready,
        &format!(
            "listen = \"127.0.0.1:0\"\n[readiness]\nprobe_path = \"/health\"\n\
             [[documents]]\nfile = \"ops.yaml\"\nupstream = \"{rest}\"\n"
        ),
    );
    let door = DoorProc::start(&["--config", ready.to_str().expect("utf-8")]);
    let (status, health) = door.get_json("/healthz");
    assert_eq!((status, health), (200, json!({"status": "alive"})));
    let (status, body) = door.get_json("/readyz");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ready"], true);
    assert_eq!(
        body["upstreams"],
        json!([{"url": format!("{rest}/health"), "status": 200}])
    );

    // An upstream that refuses connections, and a document that is missing.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let not_ready = dir.path().join("not-ready.toml");
    write(
        &not_ready,
        &format!(
            "listen = \"127.0.0.1:0\"\n\
             [[documents]]\nfile = \"ops.yaml\"\nupstream = \"{closed_url}\"\nprobe = \"/up\"\n\
             [[documents]]\nfile = \"missing.yaml\"\nupstream = \"{rest}\"\n"
        ),
    );
    let door = DoorProc::start(&["--config", not_ready.to_str().expect("utf-8")]);
    assert_eq!(door.get_json("/healthz").0, 200);
    let (status, body) = door.get_json("/readyz");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["ready"], false);
    assert_eq!(body["documents"][0]["loaded"], true);
    assert_eq!(body["documents"][1]["loaded"], false);
    assert!(
        body["documents"][1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("missing.yaml")),
        "{body}"
    );
    assert_eq!(
        body["upstreams"],
        json!([{"url": format!("{closed_url}/up"), "error": "cannot connect"}])
    );
}

#[test]
fn door_metrics_count_requests_forwarded_calls_latency_and_load_errors() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.yaml");
    let door = DoorProc::start(&[
        "--listen",
        "127.0.0.1:0",
        "--openapi",
        &doc_v1(dir.path(), &rest),
        "--openapi",
        &format!("{}={rest}", missing.display()),
    ]);
    door.list();
    door.list();
    door.call("items", "get_item", json!({"id": "1"}));
    door.call("items", "get_item", json!({"id": "2"}));
    door.call("items", "no_such_op", json!({}));
    door.call("made_up_tool", "x", json!({}));
    let text = door.metrics();
    let expect = [
        (
            "mcp_door_requests_total{method=\"tools/list\",tool=\"\"}",
            2.0,
        ),
        (
            "mcp_door_requests_total{method=\"tools/call\",tool=\"items\"}",
            3.0,
        ),
        (
            "mcp_door_requests_total{method=\"tools/call\",tool=\"other\"}",
            1.0,
        ),
        (
            "mcp_door_forwarded_calls_total{op=\"get_item\",status=\"200\"}",
            2.0,
        ),
        (
            "mcp_door_upstream_latency_seconds_count{tool=\"items\"}",
            2.0,
        ),
        (
            &format!(
                "mcp_door_document_load_errors_total{{source=\"{}\"}}",
                missing.display()
            ),
            1.0,
        ),
        ("mcp_door_offered_ops", 3.0),
    ];
    for (name, value) in expect {
        assert_eq!(sample(&text, name), Some(value), "{name} in\n{text}");
    }
    assert!(!text.contains("made_up_tool") && !text.contains("no_such_op"));
}

#[test]
fn door_log_format_json_writes_one_json_object_a_line() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut command = hanzo_mcp();
    command
        .args(["door", "--log-format", "json", "--listen", "127.0.0.1:0"])
        .arg("--openapi")
        .arg(doc_v1(dir.path(), &rest))
        .env("RUST_LOG", "info");
    let mut process = Proc::start(command);
    let line = process.stderr_line();
    let event: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(event["level"], "INFO", "{event}");
    assert_eq!(event["message"], "listening", "{event}");
    assert_eq!(event["ops"], 3, "{event}");
    let url = event["url"].as_str().expect("url");
    let list = post(
        url,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    assert_eq!(tool_names(&list), ["describe", "admin", "items"]);
}

#[test]
fn door_sighup_reloads_without_dropping_a_call_and_keeps_a_document_that_fails() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = dir.path().join("ops.yaml");
    write(&doc, DOC_V1);
    let config = dir.path().join("door.toml");
    write(
        &config,
        &format!(
            "listen = \"127.0.0.1:0\"\n[[documents]]\nfile = \"ops.yaml\"\nupstream = \"{rest}\"\n\
             names = {{ \"GET /v1/items/slow\" = \"wait_for_item\" }}\n"
        ),
    );
    let door = DoorProc::start(&["--config", config.to_str().expect("utf-8")]);
    assert_eq!(tool_names(&door.list()), ["describe", "admin", "items"]);

    // A call in flight (the upstream answers after SLOW) across the reload.
    let url = format!("{}/v1/mcp", door.origin);
    let in_flight = std::thread::spawn(move || {
        post(
            &url,
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "items", "arguments": {"op": "wait_for_item"}}}),
        )
    });
    std::thread::sleep(SLOW / 3);
    write(&doc, DOC_V2);
    door.hang_up();
    eventually("the new document is served", || {
        tool_names(&door.list()) == ["describe", "items", "widgets"]
    });
    let answered = in_flight.join().expect("the call in flight");
    assert_eq!(
        answered["result"]["structuredContent"]["deployed"], "/v1/items/slow",
        "{answered}"
    );

    // A document that no longer parses: the previous one is served on and
    // listed under hanzo.ai/unavailable with the reason.
    write(&doc, "openapi: [this is not\n");
    door.hang_up();
    eventually("the failed reload is reported", || {
        door.list()["result"]["_meta"]["hanzo.ai/unavailable"].is_array()
    });
    let list = door.list();
    assert_eq!(tool_names(&list), ["describe", "items", "widgets"]);
    let unavailable = &list["result"]["_meta"]["hanzo.ai/unavailable"][0];
    assert_eq!(unavailable["source"], doc.display().to_string(), "{list}");
    assert_eq!(unavailable["serving"], "previous", "{list}");
    assert!(
        unavailable["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("reload failed (")),
        "{list}"
    );
    let metrics = door.metrics();
    assert_eq!(
        sample(&metrics, "mcp_door_reloads_total{result=\"ok\"}"),
        Some(1.0)
    );
    assert_eq!(
        sample(&metrics, "mcp_door_reloads_total{result=\"partial\"}"),
        Some(1.0)
    );
    let errors = format!(
        "mcp_door_document_load_errors_total{{source=\"{}\"}}",
        doc.display()
    );
    assert_eq!(sample(&metrics, &errors), Some(1.0), "{metrics}");
    // Still ready: every document has a version in force.
    assert_eq!(door.get_json("/readyz").0, 200);
}

#[test]
fn door_serves_its_own_openapi_document() {
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let door = DoorProc::start(&[
        "--listen",
        "127.0.0.1:0",
        "--openapi",
        &doc_v1(dir.path(), &rest),
    ]);
    let (status, document) = door.get_json("/openapi.json");
    assert_eq!(status, 200);
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["paths"]["/v1/mcp"]["post"]["operationId"], "mcp");
    assert_eq!(
        document["paths"]["/v1/items/{id}"]["get"]["operationId"],
        "get_item"
    );
    assert_eq!(
        document["paths"]["/v1/items/{id}"]["get"]["servers"],
        json!([{"url": rest}])
    );
    let (status, yaml) = door.get("/openapi.yaml");
    assert_eq!(status, 200);
    assert!(yaml.contains("\nopenapi: 3.1.0\n"), "{yaml}");
}

/// `method` (`GET` or `POST`) `path` on `origin` with `Host: host`; the
/// status and the body as JSON (`null` when it is not JSON).
fn with_host(origin: &str, method: &str, path: &str, host: &str) -> (u16, Value) {
    let url = format!("{origin}{path}");
    let (method, host) = (method.to_owned(), host.to_owned());
    runtime().block_on(async move {
        let client = reqwest::Client::new();
        let request = if method == "POST" {
            client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .header("cookie", "s=1")
                .body(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}"#)
        } else {
            client.get(&url)
        };
        let response = request.header("host", host).send().await.expect("request");
        let status = response.status().as_u16();
        let text = response.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    })
}

#[test]
fn door_on_loopback_answers_only_hosts_that_name_this_machine_or_its_origins() {
    // A page at http://rebound.example:PORT whose name now resolves to
    // 127.0.0.1 is same-origin to the browser; its Host still says so.
    let (rest, _log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), &rest);
    let door = DoorProc::start(&["--listen", "127.0.0.1:0", "--openapi", &document]);
    let port = door.origin.rsplit(':').next().expect("port").to_owned();
    let rebound = format!("rebound.example:{port}");
    for (method, path) in [
        ("POST", "/v1/mcp"),
        ("GET", "/.well-known/oauth-protected-resource"),
        ("GET", "/metrics"),
    ] {
        let (status, body) = with_host(&door.origin, method, path, &rebound);
        assert_eq!(status, 403, "{method} {path}");
        assert_eq!(body["error"]["code"], -32600, "{method} {path}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("Host not allowed")),
            "{body}"
        );
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let (status, body) = with_host(&door.origin, "POST", "/v1/mcp", &host);
        assert_eq!(status, 200, "{host}: {body}");
        assert!(body["result"]["tools"].is_array(), "{host}: {body}");
    }
    // Reached under its configured origin's name (a proxy on the same
    // machine forwarding it), the door answers.
    let door = DoorProc::start(&[
        "--listen",
        "127.0.0.1:0",
        "--openapi",
        &document,
        "--origin",
        "https://door.example",
    ]);
    let (status, body) = with_host(
        &door.origin,
        "GET",
        "/.well-known/oauth-protected-resource",
        "door.example",
    );
    assert_eq!(
        (status, &body["resource"]),
        (200, &json!("https://door.example"))
    );
    let (status, _) = with_host(&door.origin, "GET", "/healthz", &rebound);
    assert_eq!(status, 403);
    // An IPv4-mapped loopback address is loopback too.
    let door = DoorProc::start(&["--listen", "[::ffff:127.0.0.1]:0", "--openapi", &document]);
    let port = door.origin.rsplit(':').next().expect("port").to_owned();
    let (status, _) = with_host(
        &door.origin,
        "GET",
        "/healthz",
        &format!("rebound.example:{port}"),
    );
    assert_eq!(status, 403);
    // Its own address too, as it prints it.
    for host in [
        format!("localhost:{port}"),
        format!("[::ffff:127.0.0.1]:{port}"),
    ] {
        let (status, _) = with_host(&door.origin, "GET", "/healthz", &host);
        assert_eq!(status, 200, "{host}");
    }
}

#[test]
fn door_calls_go_through_the_proxy_the_environment_names() {
    let (rest, rest_log) = spawn_rest();
    // The proxy: the same echo service, which sees the absolute-form
    // request (its path read from it) and answers it itself.
    let (proxy, proxy_log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), &rest);
    let door = DoorProc::start_command(door_command(&document, &[("HTTP_PROXY", &proxy)]));
    let called = door.call("items", "get_item", json!({"id": "7"}));
    assert_eq!(
        called["result"]["structuredContent"]["deployed"], "/v1/items/7",
        "{called}"
    );
    let seen = proxy_log.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, "GET");
    assert_eq!(seen[0].2.as_deref(), Some("Bearer ops-test"));
    assert!(rest_log.lock().unwrap().is_empty());
    // NO_PROXY names the upstream: the call goes straight to it.
    let door = DoorProc::start_command(door_command(
        &document,
        &[("HTTP_PROXY", &proxy), ("NO_PROXY", "127.0.0.1")],
    ));
    let called = door.call("items", "get_item", json!({"id": "8"}));
    assert_eq!(
        called["result"]["structuredContent"]["deployed"], "/v1/items/8",
        "{called}"
    );
    assert_eq!(proxy_log.lock().unwrap().len(), 1);
    assert_eq!(rest_log.lock().unwrap().len(), 1);
}

/// A request line a test server read, with its connection's number.
type RequestLine = (usize, String);

/// A proxy on raw HTTP/1.1 that keeps every connection open and answers
/// every request `{"ok":true}` itself. Returns its URL and the request
/// line of each request it read, with its connection's number
/// (`(1, "CONNECT localhost:443 HTTP/1.1")`).
fn spawn_keepalive_proxy() -> (String, Arc<std::sync::Mutex<Vec<RequestLine>>>) {
    let listener = runtime()
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let proxy = format!("http://{}", listener.local_addr().expect("address"));
    let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_lines = Arc::clone(&lines);
    runtime().spawn(async move {
        let mut accepted = 0;
        while let Ok((stream, _)) = listener.accept().await {
            accepted += 1;
            let (lines, number) = (Arc::clone(&seen_lines), accepted);
            tokio::spawn(async move {
                let mut connection = RawConnection::new(stream);
                while let Some(head) = connection.next_head().await {
                    let line = head.lines().next().unwrap_or("").to_owned();
                    lines.lock().unwrap().push((number, line));
                    if !connection.send(&json_answer(r#"{"ok":true}"#)).await {
                        return;
                    }
                }
            });
        }
    });
    (proxy, lines)
}

#[test]
fn door_calls_through_a_proxy_never_share_a_connection() {
    // Through reqwest (which honours the proxy) the idle connections would
    // be every caller's: an unasked answer on one would reach the next
    // caller. So each call has a connection of its own, though this proxy
    // keeps every connection open.
    let (proxy, lines) = spawn_keepalive_proxy();
    let (rest, _rest_log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), &rest);
    let door = DoorProc::start_command(door_command(&document, &[("HTTP_PROXY", &proxy)]));
    for id in ["1", "2", "3"] {
        let called = door.call("items", "get_item", json!({"id": id}));
        assert_eq!(
            called["result"]["structuredContent"]["ok"], true,
            "{called}"
        );
    }
    let connections: Vec<usize> = lines.lock().unwrap().iter().map(|(c, _)| *c).collect();
    assert_eq!(connections, [1, 2, 3]);
}

#[test]
fn door_sends_https_calls_through_the_proxy_the_environment_names() {
    // HTTPS_PROXY names a proxy for https:// upstreams: the call goes to
    // it (a CONNECT), never straight to the upstream.
    let port = spawn_tls_upstream();
    let (proxy, lines) = spawn_keepalive_proxy();
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), &format!("https://localhost:{port}"));
    let door = DoorProc::start_command(door_command(&document, &[("HTTPS_PROXY", &proxy)]));
    let called = door.call("items", "get_item", json!({"id": "7"}));
    assert_eq!(called["result"]["isError"], true, "{called}");
    let seen: Vec<String> = lines
        .lock()
        .unwrap()
        .iter()
        .map(|(_, l)| l.clone())
        .collect();
    assert_eq!(seen, [format!("CONNECT localhost:{port} HTTP/1.1")]);
}

/// An HTTPS upstream on 127.0.0.1 with the fixture certificate for
/// `localhost`, on raw HTTP/1.1 that keeps each connection open: every
/// request is answered `{"connection": <its connection's number>,
/// "authorization": <the header as sent>}`. Returns its port.
fn spawn_tls_upstream() -> u16 {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
    let certs = CertificateDer::pem_file_iter(fixtures.join("upstream.pem"))
        .expect("certificate")
        .collect::<Result<Vec<_>, _>>()
        .expect("certificate");
    let key = PrivateKeyDer::from_pem_file(fixtures.join("upstream.key")).expect("key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("server config");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = runtime()
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    runtime().spawn(async move {
        let mut accepted = 0;
        while let Ok((tcp, _)) = listener.accept().await {
            accepted += 1;
            let (acceptor, connection) = (acceptor.clone(), accepted);
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut stream = RawConnection::new(stream);
                while let Some(head) = stream.next_head().await {
                    let authorization = header(&head, "authorization").unwrap_or("");
                    let body = json!({"connection": connection, "authorization": authorization});
                    if !stream.send(&json_answer(&body.to_string())).await {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn door_keeps_https_connections_per_caller_and_checks_the_certificate() {
    let port = spawn_tls_upstream();
    let dir = tempfile::tempdir().expect("tempdir");
    let document = doc_v1(dir.path(), &format!("https://localhost:{port}"));
    let ca = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls/ca.pem");
    let trusting = |file: &Path| {
        let mut command = door_command(&document, &[]);
        command
            .env("SSL_CERT_FILE", file)
            .env_remove("SSL_CERT_DIR");
        DoorProc::start_command(command)
    };
    let door = trusting(&ca);
    let url = format!("{}/v1/mcp", door.origin);
    let call = |authorization: &str| {
        let message = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "items", "arguments": {"op": "get_item", "input": {"id": "7"}}}});
        let answer = post_as(&url, &message, authorization);
        answer["result"]["structuredContent"].clone()
    };
    // One caller's calls in turn share one connection, another caller's
    // never do (an upstream's unasked answer stays with its caller).
    for _ in 0..3 {
        assert_eq!(
            call("Bearer one"),
            json!({"connection": 1, "authorization": "Bearer one"})
        );
    }
    for _ in 0..2 {
        assert_eq!(
            call("Bearer two"),
            json!({"connection": 2, "authorization": "Bearer two"})
        );
    }
    assert_eq!(call("Bearer one")["connection"], 1);
    // Trusting another certificate than the CA that signed the
    // upstream's, the door refuses the upstream and sends nothing.
    let door = trusting(&ca.with_file_name("upstream.pem"));
    let refused = door.call("items", "get_item", json!({"id": "7"}));
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text.contains("the TLS handshake failed"), "{text}");
}
