//! The lifecycle through the binary: the `initialize` negotiation table, the
//! stateless 2026-07-28 style on the same connection, `ping`, and requests
//! sent before the handshake (MCP 2025-11-25 basic/lifecycle; MCP 2026-07-28
//! basic/versioning).

use serde_json::{Value, json};

use crate::common::{Proc, names, serve_in_temp_root, servetest};

/// Client revision → the revision the spec says the server answers: the
/// client's when supported, else the server's newest handshake revision.
#[test]
fn negotiation_table() {
    let table = [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
        // The stateless revision has no handshake: newest with one.
        ("2026-07-28", "2025-11-25"),
    ];
    for (requested, expected) in table {
        let (mut server, _root) = serve_in_temp_root(&[]);
        let result = server.initialize(requested);
        assert_eq!(
            result["protocolVersion"], expected,
            "client asked for {requested}"
        );
        assert_eq!(result["serverInfo"]["name"], "hanzo-mcp");
        assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        // Exactly what is implemented: tools (whose list `mode` can
        // change), nothing else.
        assert_eq!(
            result["capabilities"],
            json!({ "tools": { "listChanged": true } })
        );
        assert_eq!(server.wait().code(), Some(0));
    }
}

servetest!(
    initialize_twice_is_refused_and_the_first_revision_holds,
    [],
    |server, _root| {
        server.initialize("2025-06-18");
        let again = server.call(
            1,
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "t", "version": "0" } }),
        );
        assert_eq!(again["error"]["code"], -32600);
        assert_eq!(
            again["error"]["message"],
            "initialize was already answered on this connection (revision 2025-06-18)"
        );
        let ping = server.call(2, "ping", json!({}));
        assert_eq!(ping, json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));
    }
);

servetest!(
    requests_before_the_handshake_get_a_clear_error,
    [],
    |server, _root| {
        for (id, method) in [(1, "tools/list"), (2, "tools/call")] {
            let response = server.call(id, method, json!({ "name": "fs", "arguments": {} }));
            assert_eq!(response["id"], id);
            assert_eq!(response["error"]["code"], -32600);
            assert_eq!(
                response["error"]["message"],
                "send `initialize` first (revisions 2024-11-05 to 2025-11-25), or name a \
                 revision in params._meta[\"io.modelcontextprotocol/protocolVersion\"] \
                 (2026-07-28)"
            );
        }
        // ping needs no handshake.
        let ping = server.call(3, "ping", json!({}));
        assert_eq!(ping, json!({ "jsonrpc": "2.0", "id": 3, "result": {} }));
        // The connection still works afterwards.
        let init = server.initialize("2025-11-25");
        assert_eq!(init["protocolVersion"], "2025-11-25");
        let list = server.call(4, "tools/list", json!({}));
        assert!(list["result"]["tools"].is_array(), "{list}");
        assert!(list["result"].get("resultType").is_none(), "{list}");
    }
);

fn stateless_meta(revision: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "0" }
    })
}

/// Request `method` (id `id`) sent the stateless way, its `_meta` naming
/// `revision`; the response.
fn stateless_call(server: &mut Proc, id: i64, method: &str, revision: &str) -> Value {
    server.call(id, method, json!({ "_meta": stateless_meta(revision) }))
}

/// The result of `method` (request `id`) sent the 2026-07-28 way, which
/// must be complete and cacheable by this client alone for a minute.
fn cacheable_result(server: &mut Proc, id: i64, method: &str) -> Value {
    let response = stateless_call(server, id, method, "2026-07-28");
    let result = &response["result"];
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_eq!(result["cacheScope"], "private", "{response}");
    assert_eq!(result["ttlMs"], 60000, "{response}");
    result.clone()
}

servetest!(
    discover_answers_the_stateless_revision,
    [],
    |server, _root| {
        let result = cacheable_result(&mut server, 1, "server/discover");
        assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(result["capabilities"], json!({ "tools": {} }));
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "hanzo-mcp"
        );
    }
);

servetest!(
    stateless_requests_need_no_handshake_and_carry_result_type,
    [],
    |server, _root| {
        let result = cacheable_result(&mut server, 1, "tools/list");
        assert!(
            result["tools"].as_array().is_some_and(|t| !t.is_empty()),
            "{result}"
        );
        // 2026-07-28 has no ping (its ClientRequest lists none): -32601.
        let ping = stateless_call(&mut server, 2, "ping", "2026-07-28");
        assert_eq!(ping["error"]["code"], -32601, "{ping}");
    }
);

servetest!(
    unsupported_stateless_revision_is_32022_with_supported_and_requested,
    [],
    |server, _root| {
        for (id, method, requested) in [
            (1, "server/discover", "2099-01-01"),
            (2, "tools/list", "2099-01-01"),
            // A handshake revision cannot be named per request.
            (3, "tools/list", "2025-11-25"),
        ] {
            let response = stateless_call(&mut server, id, method, requested);
            assert_eq!(response["id"], id);
            assert_eq!(response["error"]["code"], -32022, "{response}");
            assert_eq!(
                response["error"]["data"],
                json!({ "supported": ["2026-07-28"], "requested": requested })
            );
        }
    }
);

servetest!(
    stateless_requests_without_client_capabilities_are_32602,
    [],
    |server, _root| {
        let mut meta = stateless_meta("2026-07-28");
        meta.as_object_mut()
            .expect("meta object")
            .remove("io.modelcontextprotocol/clientCapabilities");
        for (id, method) in [(1, "server/discover"), (2, "tools/list")] {
            let response = server.call(id, method, json!({ "_meta": meta }));
            assert_eq!(
                response,
                json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32602, "message":
                "params._meta[\"io.modelcontextprotocol/clientCapabilities\"] is required in \
                 revision 2026-07-28 ({} when the client declares none)" } })
            );
        }
        meta["io.modelcontextprotocol/clientCapabilities"] = json!([]);
        let response = server.call(3, "tools/list", json!({ "_meta": meta }));
        assert_eq!(response["error"]["code"], -32602, "{response}");
    }
);

servetest!(both_styles_on_one_connection, [], |server, _root| {
    server.initialize("2025-06-18");
    let legacy = server.call(1, "tools/list", json!({}));
    assert!(legacy["result"].get("resultType").is_none());
    let modern = stateless_call(&mut server, 2, "tools/list", "2026-07-28");
    assert_eq!(modern["result"]["resultType"], "complete");
    assert_eq!(legacy["result"]["tools"], modern["result"]["tools"]);
});

servetest!(
    unknown_method_is_32601_and_unknown_tool_is_32602,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        let response = server.call(1, "resources/list", json!({}));
        assert_eq!(response["error"]["code"], -32601);
        assert_eq!(
            response["error"]["message"],
            "method not found: resources/list"
        );
        let response = server.call(
            2,
            "tools/call",
            json!({ "name": "no_such_tool", "arguments": {} }),
        );
        assert_eq!(response["error"]["code"], -32602);
        assert_eq!(
            response["error"]["message"],
            "unknown tool: \"no_such_tool\""
        );
        assert_eq!(response["error"]["data"], json!({ "tool": "no_such_tool" }));
    }
);

servetest!(
    test_tool_is_hidden_without_the_hidden_flag,
    [],
    |server, _root| {
        server.initialize("2025-11-25");
        let list = server.call(1, "tools/list", json!({}));
        let names = names(&list);
        assert!(!names.iter().any(|n| n == "test_sleep"), "{names:?}");
        let call = server.call(
            2,
            "tools/call",
            json!({ "name": "test_sleep", "arguments": { "ms": 0 } }),
        );
        assert_eq!(call["error"]["code"], -32602);
    }
);
