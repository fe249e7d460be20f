//! insta snapshots of the wire form of each typed method's params and
//! result (tests/it/snapshots/). Review changes with `cargo insta review`.

use insta::assert_json_snapshot;
use mcp_proto::methods::{self, Method};
use mcp_proto::*;
use serde_json::json;

use crate::common::{notification_wire, obj, request_wire, to_json};

/// Snapshots a request's full wire form (method name included) and its result.
fn request_and_result<M: Method>(
    params: &M::Params,
    result: &M::Result,
) -> (serde_json::Value, serde_json::Value) {
    (request_wire::<M>(1, params), to_json(result))
}

fn client_meta() -> Meta {
    obj(json!({
        meta::PROTOCOL_VERSION: "2026-07-28",
        meta::CLIENT_CAPABILITIES: {},
        meta::CLIENT_INFO: {"name": "snap-client", "version": "1.0.0"},
        meta::PROGRESS_TOKEN: "tok-1"
    }))
}

#[test]
fn initialize() {
    let params = InitializeRequestParams {
        protocol_version: "2025-11-25".into(),
        capabilities: ClientCapabilities {
            roots: Some(RootsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            sampling: Some(JsonObject::new()),
            ..Default::default()
        },
        client_info: Implementation::new("snap-client", "1.0.0"),
        ..Default::default()
    };
    let result = InitializeResult {
        protocol_version: "2025-11-25".into(),
        capabilities: ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            logging: Some(JsonObject::new()),
            ..Default::default()
        },
        server_info: Implementation {
            title: Some("Hanzo MCP".into()),
            website_url: Some("https://hanzo.ai".into()),
            ..Implementation::new("hanzo-mcp", "0.1.0")
        },
        instructions: Some("Local tools first, then the door.".into()),
        ..Default::default()
    };
    let (req, res) = request_and_result::<methods::Initialize>(&params, &result);
    assert_json_snapshot!("initialize_params", req);
    assert_json_snapshot!("initialize_result", res);
}

#[test]
fn ping() {
    let (req, res) =
        request_and_result::<methods::Ping>(&RequestParams::default(), &EmptyResult::default());
    assert_json_snapshot!("ping_params", req);
    assert_json_snapshot!("ping_result", res);
}

#[test]
fn server_discover() {
    let params = RequestParams {
        meta: Some(client_meta()),
        ..Default::default()
    };
    let result = DiscoverResult {
        supported_versions: vec!["2026-07-28".into(), "2025-11-25".into()],
        capabilities: ServerCapabilities {
            tools: Some(ToolsCapability::default()),
            ..Default::default()
        },
        instructions: None,
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
        result_type: Some("complete".into()),
        meta: Some(obj(
            json!({meta::SERVER_INFO: {"name": "hanzo-mcp", "version": "0.1.0"}}),
        )),
        ..Default::default()
    };
    let (req, res) = request_and_result::<methods::ServerDiscover>(&params, &result);
    assert_json_snapshot!("server_discover_params", req);
    assert_json_snapshot!("server_discover_result", res);
}

#[test]
fn tools_list() {
    let params = PaginatedRequestParams {
        cursor: Some("page-2".into()),
        ..Default::default()
    };
    let result = ListToolsResult {
        tools: vec![Tool {
            name: "fs".into(),
            title: Some("Files".into()),
            description: Some("Read and write files inside the roots.".into()),
            input_schema: obj(
                json!({"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]}),
            )
            .into(),
            annotations: Some(ToolAnnotations {
                read_only_hint: Some(false),
                destructive_hint: Some(true),
                idempotent_hint: Some(false),
                open_world_hint: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        }],
        page: PaginatedResult {
            next_cursor: Some("page-3".into()),
            ttl_ms: Some(300_000),
            cache_scope: Some(CacheScope::Private),
            result_type: Some("complete".into()),
            ..Default::default()
        },
    };
    let (req, res) = request_and_result::<methods::ListTools>(&params, &result);
    assert_json_snapshot!("tools_list_params", req);
    assert_json_snapshot!("tools_list_result", res);
}

#[test]
fn tools_call() {
    let params = CallToolRequestParams {
        name: "fs".into(),
        arguments: Some(obj(json!({"action": "read", "path": "README.md"}))),
        meta: Some(client_meta()),
        ..Default::default()
    };
    let result = CallToolResult {
        content: vec![
            ContentBlock::text("# Title"),
            ContentBlock::ResourceLink(ResourceLink::from(Resource {
                uri: "file:///work/README.md".into(),
                name: "README.md".into(),
                mime_type: Some("text/markdown".into()),
                ..Default::default()
            })),
        ],
        structured_content: Some(json!({"bytes": 7})),
        is_error: Some(false),
        result_type: Some("complete".into()),
        ..Default::default()
    };
    let (req, res) = request_and_result::<methods::CallTool>(&params, &result);
    assert_json_snapshot!("tools_call_params", req);
    assert_json_snapshot!("tools_call_result", res);
}

#[test]
fn logging_set_level() {
    let params = SetLevelRequestParams {
        level: LoggingLevel::Notice,
        meta: None,
        extra: JsonObject::new(),
    };
    let (req, res) = request_and_result::<methods::SetLevel>(&params, &EmptyResult::default());
    assert_json_snapshot!("logging_set_level_params", req);
    assert_json_snapshot!("logging_set_level_result", res);
}

#[test]
fn roots_list() {
    let result = ListRootsResult {
        roots: vec![Root {
            uri: "file:///home/u/project".into(),
            name: Some("project".into()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let (req, res) = request_and_result::<methods::ListRoots>(&RequestParams::default(), &result);
    assert_json_snapshot!("roots_list_params", req);
    assert_json_snapshot!("roots_list_result", res);
}

#[test]
fn notifications() {
    assert_json_snapshot!(
        "initialized_params",
        notification_wire::<methods::Initialized>(&NotificationParams::default())
    );
    assert_json_snapshot!(
        "tools_list_changed_params",
        notification_wire::<methods::ToolListChanged>(&NotificationParams::default())
    );
    assert_json_snapshot!(
        "roots_list_changed_params",
        notification_wire::<methods::RootsListChanged>(&NotificationParams::default())
    );
    assert_json_snapshot!(
        "cancelled_params",
        notification_wire::<methods::Cancelled>(&CancelledNotificationParams {
            request_id: Some(RequestId::String("call-7".into())),
            reason: Some("user pressed stop".into()),
            ..Default::default()
        })
    );
    assert_json_snapshot!(
        "progress_params",
        notification_wire::<methods::Progress>(&ProgressNotificationParams {
            progress_token: ProgressToken::Number(7),
            progress: 3.0,
            total: Some(10.0),
            message: Some("3 of 10 files".into()),
            meta: None,
            extra: JsonObject::new(),
        })
    );
    assert_json_snapshot!(
        "logging_message_params",
        notification_wire::<methods::LoggingMessage>(&LoggingMessageNotificationParams {
            level: LoggingLevel::Warning,
            logger: Some("door".into()),
            data: json!("door unreachable; serving local tools only"),
            meta: None,
            extra: JsonObject::new(),
        })
    );
}
