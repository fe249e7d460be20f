//! Fields the server used to accept or refuse wrongly, over an in-process
//! connection: a 2026-07-28 `_meta` log level that is no `LoggingLevel`,
//! an `initialize` whose `capabilities` or `clientInfo` has the wrong
//! shape, and a line starting with a UTF-8 byte order mark.

use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::Implementation;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// A safety net against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

struct Client {
    to_server: DuplexStream,
    from_server: Lines<BufReader<DuplexStream>>,
}

impl Client {
    fn connect() -> Self {
        let info: Implementation =
            serde_json::from_value(json!({ "name": "stdio-fields-test", "version": "0.0.1" }))
                .expect("valid Implementation");
        let server = Arc::new(Server::new(
            Composition::new(Vec::new()),
            ServerConfig::new(info),
        ));
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.serve(server_in, server_out, std::future::pending::<()>()));
        Self {
            to_server,
            from_server: BufReader::new(from_server).lines(),
        }
    }

    async fn exchange(&mut self, line: &[u8]) -> Value {
        self.to_server.write_all(line).await.expect("write");
        self.to_server.write_all(b"\n").await.expect("write");
        let answer = tokio::time::timeout(PATIENCE, self.from_server.next_line())
            .await
            .expect("an answer")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&answer).expect("JSON")
    }

    async fn call(&mut self, message: Value) -> Value {
        self.exchange(message.to_string().as_bytes()).await
    }
}

fn initialize(id: u64, capabilities: Value, client_info: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": client_info}})
}

#[tokio::test]
async fn an_unknown_meta_log_level_is_refused_naming_the_allowed_levels() {
    let mut client = Client::connect();
    let answer = client
        .call(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "LOUD"}}}),
        )
        .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message":
            "params._meta[\"io.modelcontextprotocol/logLevel\"] must be one of debug, info, \
             notice, warning, error, critical, alert or emergency; found \"LOUD\""}})
    );
    // A valid level is accepted.
    let answer = client
        .call(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "warning"}}}),
        )
        .await;
    assert_eq!(answer["id"], json!(2));
    assert_eq!(answer["result"]["tools"], json!([]), "{answer}");
}

#[tokio::test]
async fn initialize_refuses_capabilities_and_client_info_of_the_wrong_shape() {
    let mut client = Client::connect();
    let good_info = json!({"name": "c", "version": "1"});
    let answer = client
        .call(initialize(1, json!("notanobject"), good_info.clone()))
        .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message":
            "initialize: capabilities must be an object, found \"notanobject\""}})
    );
    for (id, info) in [
        (2, json!(5)),
        (3, json!({"name": "c"})),
        (4, json!({"name": 1, "version": "1"})),
    ] {
        let answer = client.call(initialize(id, json!({}), info.clone())).await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!(
                "initialize: clientInfo must be an object with string name and version \
                 (Implementation), found {info}")}})
        );
    }
    // The refusals left the connection uninitialized: a good one succeeds.
    let answer = client.call(initialize(5, json!({}), good_info)).await;
    assert_eq!(answer["id"], json!(5));
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-11-25"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_line_starting_with_a_byte_order_mark_is_answered() {
    let mut client = Client::connect();
    let mut line = b"\xEF\xBB\xBF".to_vec();
    line.extend_from_slice(
        initialize(1, json!({}), json!({"name": "c", "version": "1"}))
            .to_string()
            .as_bytes(),
    );
    let answer = client.exchange(&line).await;
    assert_eq!(answer["id"], json!(1));
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-11-25"),
        "{answer}"
    );
    let answer = client
        .exchange(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}")
        .await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}
