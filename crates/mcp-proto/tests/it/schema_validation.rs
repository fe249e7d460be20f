//! Messages written by this crate validate against the official schema.json
//! of the revision they are written for (2025-06-18, 2025-11-25, 2026-07-28;
//! copies in tests/fixtures/<revision>/schema.json).

use mcp_proto::methods;
use mcp_proto::*;
use serde::Serialize;
use serde_json::{Value, json};

use crate::common::{fixtures, notification_wire, request_wire, to_json};

fn schema(revision: &str) -> Value {
    let path = fixtures().join(revision).join("schema.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Validates `instance` against definition `def` of the revision's schema.
fn check(schema: &Value, def: &str, instance: &Value) -> Result<(), String> {
    let defs_key = if schema.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(schema[defs_key].get(def).is_some(), "no definition {def}");
    let mut root = schema.clone();
    root["$ref"] = Value::from(format!("#/{defs_key}/{def}"));
    let validator = jsonschema::validator_for(&root).map_err(|e| e.to_string())?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn response<T: Serialize>(id: i64, result: &T) -> Value {
    to_json(&Message::Response(Response::success(
        RequestId::Number(id),
        to_json(result),
    )))
}

fn weather_tool(rich: bool) -> Tool {
    Tool {
        name: "get_weather".into(),
        title: Some("Weather".into()),
        description: Some("Current weather for a city".into()),
        input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
            .as_object()
            .cloned()
            .unwrap()
            .into(),
        output_schema: Some(
            json!({"type": "object", "properties": {"celsius": {"type": "number"}}})
                .as_object()
                .cloned()
                .unwrap(),
        ),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
            ..Default::default()
        }),
        icons: rich.then(|| {
            vec![Icon {
                src: "https://example.com/w.png".into(),
                mime_type: Some("image/png".into()),
                sizes: Some(vec!["48x48".into()]),
                ..Default::default()
            }]
        }),
        execution: rich.then(|| ToolExecution {
            task_support: Some("optional".into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn rich_result(result_type: Option<&str>) -> CallToolResult {
    CallToolResult {
        content: vec![
            ContentBlock::text("22.5 C"),
            ContentBlock::Image(ImageContent {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
                ..Default::default()
            }),
            ContentBlock::Audio(AudioContent {
                data: "UklGRg==".into(),
                mime_type: "audio/wav".into(),
                ..Default::default()
            }),
            ContentBlock::ResourceLink(ResourceLink::from(Resource {
                uri: "file:///tmp/report.txt".into(),
                name: "report".into(),
                mime_type: Some("text/plain".into()),
                size: Some(120),
                ..Default::default()
            })),
            ContentBlock::Resource(EmbeddedResource {
                resource: ResourceContents {
                    uri: "file:///tmp/a.txt".into(),
                    mime_type: Some("text/plain".into()),
                    text: Some("hello".into()),
                    ..Default::default()
                },
                annotations: Some(Annotations {
                    audience: Some(vec![Role::User]),
                    priority: Some(0.5),
                    ..Default::default()
                }),
                ..Default::default()
            }),
        ],
        structured_content: Some(json!({"celsius": 22.5})),
        is_error: Some(false),
        result_type: result_type.map(Into::into),
        ..Default::default()
    }
}

/// Messages of the handshake revisions (2025-06-18, 2025-11-25).
fn handshake_messages(revision: Revision, rich: bool) -> Vec<(&'static str, Value)> {
    let client = Implementation::new("test-client", "1.0.0");
    let mut server = Implementation::new("hanzo-mcp", "0.1.0");
    server.title = Some("Hanzo MCP".into());
    if rich {
        server.website_url = Some("https://hanzo.ai".into());
    }
    let init = InitializeRequestParams {
        protocol_version: revision.as_str().into(),
        capabilities: ClientCapabilities {
            roots: Some(RootsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        },
        client_info: client,
        ..Default::default()
    };
    let init_result = InitializeResult {
        protocol_version: Revision::negotiate(revision.as_str()).as_str().into(),
        capabilities: ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            logging: Some(Default::default()),
            ..Default::default()
        },
        server_info: server,
        instructions: Some("Use fs for files.".into()),
        ..Default::default()
    };
    let list = ListToolsResult {
        tools: vec![weather_tool(rich)],
        page: PaginatedResult::with_next_cursor(Some("page-2".into())),
    };
    let call = CallToolRequestParams {
        name: "get_weather".into(),
        arguments: json!({"city": "Paris"}).as_object().cloned(),
        meta: json!({"progressToken": "p1"}).as_object().cloned(),
        ..Default::default()
    };
    vec![
        (
            "InitializeRequest",
            request_wire::<methods::Initialize>(1, &init),
        ),
        ("InitializeResult", to_json(&init_result)),
        ("JSONRPCMessage", response(1, &init_result)),
        (
            "InitializedNotification",
            notification_wire::<methods::Initialized>(&Default::default()),
        ),
        (
            "PingRequest",
            request_wire::<methods::Ping>(2, &Default::default()),
        ),
        ("JSONRPCMessage", response(2, &EmptyResult::default())),
        (
            "ListToolsRequest",
            request_wire::<methods::ListTools>(
                3,
                &PaginatedRequestParams {
                    cursor: Some("page-1".into()),
                    ..Default::default()
                },
            ),
        ),
        ("ListToolsResult", to_json(&list)),
        ("JSONRPCMessage", response(3, &list)),
        (
            "CallToolRequest",
            request_wire::<methods::CallTool>(4, &call),
        ),
        ("CallToolResult", to_json(&rich_result(None))),
        (
            "CallToolResult",
            to_json(&CallToolResult::error("city not found: Atlantis")),
        ),
        ("JSONRPCMessage", response(4, &rich_result(None))),
        (
            "SetLevelRequest",
            request_wire::<methods::SetLevel>(
                5,
                &SetLevelRequestParams {
                    level: LoggingLevel::Warning,
                    meta: None,
                    extra: Default::default(),
                },
            ),
        ),
        (
            "LoggingMessageNotification",
            notification_wire::<methods::LoggingMessage>(&LoggingMessageNotificationParams {
                level: LoggingLevel::Error,
                logger: Some("door".into()),
                data: json!({"error": "timeout"}),
                meta: None,
                extra: Default::default(),
            }),
        ),
        (
            "ProgressNotification",
            notification_wire::<methods::Progress>(&ProgressNotificationParams {
                progress_token: ProgressToken::String("p1".into()),
                progress: 50.0,
                total: Some(100.0),
                message: Some("halfway".into()),
                meta: None,
                extra: Default::default(),
            }),
        ),
        (
            "CancelledNotification",
            notification_wire::<methods::Cancelled>(&CancelledNotificationParams {
                request_id: Some(RequestId::Number(4)),
                reason: Some("user pressed stop".into()),
                ..Default::default()
            }),
        ),
        (
            "ToolListChangedNotification",
            notification_wire::<methods::ToolListChanged>(&Default::default()),
        ),
        (
            "ListRootsRequest",
            request_wire::<methods::ListRoots>(6, &Default::default()),
        ),
        (
            "ListRootsResult",
            to_json(&ListRootsResult {
                roots: vec![Root {
                    uri: "file:///home/u/project".into(),
                    name: Some("project".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }),
        ),
        (
            "RootsListChangedNotification",
            notification_wire::<methods::RootsListChanged>(&Default::default()),
        ),
        (
            "JSONRPCMessage",
            to_json(&Message::Response(Response::error(
                Some(RequestId::String("x".into())),
                ErrorObject::invalid_params("unknown tool: nope"),
            ))),
        ),
    ]
}

fn run(revision: &str, messages: Vec<(&'static str, Value)>) {
    let schema = schema(revision);
    let mut failures = Vec::new();
    for (def, instance) in &messages {
        if let Err(e) = check(&schema, def, instance) {
            failures.push(format!("{def}: {e}\n  {instance}"));
        }
        // Every envelope is also a JSONRPCMessage.
        if instance.get("jsonrpc").is_some()
            && let Err(e) = check(&schema, "JSONRPCMessage", instance)
        {
            failures.push(format!("JSONRPCMessage ({def}): {e}\n  {instance}"));
        }
    }
    assert!(failures.is_empty(), "{revision}:\n{}", failures.join("\n"));
}

#[test]
fn messages_validate_against_2025_06_18() {
    run(
        "2025-06-18",
        handshake_messages(Revision::V2025_06_18, false),
    );
}

#[test]
fn messages_validate_against_2025_11_25() {
    let mut messages = handshake_messages(Revision::V2025_11_25, true);
    // An error answering unreadable input has no id (optional since 2025-11-25).
    messages.push((
        "JSONRPCErrorResponse",
        to_json(&Message::Response(Response::error(
            None,
            ErrorObject::parse_error("not JSON"),
        ))),
    ));
    run("2025-11-25", messages);
}

fn request_meta() -> Meta {
    let mut meta = Meta::new();
    meta.insert(
        mcp_proto::meta::PROTOCOL_VERSION.into(),
        json!("2026-07-28"),
    );
    meta.insert(
        mcp_proto::meta::CLIENT_CAPABILITIES.into(),
        to_json(&ClientCapabilities::default()),
    );
    meta.insert(
        mcp_proto::meta::CLIENT_INFO.into(),
        to_json(&Implementation::new("test-client", "1.0.0")),
    );
    meta
}

#[test]
fn messages_validate_against_2026_07_28() {
    let mut meta = request_meta();
    let mut result_meta = Meta::new();
    result_meta.insert(
        mcp_proto::meta::SERVER_INFO.into(),
        to_json(&Implementation::new("hanzo-mcp", "0.1.0")),
    );
    let discover = DiscoverResult {
        supported_versions: vec!["2026-07-28".into(), "2025-11-25".into()],
        capabilities: ServerCapabilities {
            tools: Some(Default::default()),
            ..Default::default()
        },
        instructions: Some("Use fs for files.".into()),
        ttl_ms: Some(3_600_000),
        cache_scope: Some(CacheScope::Public),
        result_type: Some("complete".into()),
        meta: Some(result_meta),
        ..Default::default()
    };
    let list = ListToolsResult {
        tools: vec![weather_tool(true)],
        page: PaginatedResult {
            next_cursor: None,
            ttl_ms: Some(300_000),
            cache_scope: Some(CacheScope::Private),
            result_type: Some("complete".into()),
            ..Default::default()
        },
    };
    let mut error_result = CallToolResult::error("door unreachable: connection refused");
    error_result.result_type = Some("complete".into());
    let call = CallToolRequestParams {
        name: "get_weather".into(),
        arguments: json!({"city": "Paris"}).as_object().cloned(),
        meta: Some(meta.clone()),
        ..Default::default()
    };
    meta.insert(mcp_proto::meta::LOG_LEVEL.into(), json!("info"));
    meta.insert(mcp_proto::meta::PROGRESS_TOKEN.into(), json!(7));
    let messages = vec![
        (
            "DiscoverRequest",
            request_wire::<methods::ServerDiscover>(
                1,
                &RequestParams {
                    meta: Some(meta.clone()),
                    ..Default::default()
                },
            ),
        ),
        ("DiscoverResult", to_json(&discover)),
        ("DiscoverResultResponse", response(1, &discover)),
        (
            "ListToolsRequest",
            request_wire::<methods::ListTools>(
                2,
                &PaginatedRequestParams {
                    cursor: Some("c1".into()),
                    meta: Some(meta.clone()),
                    ..Default::default()
                },
            ),
        ),
        ("ListToolsResult", to_json(&list)),
        ("ListToolsResultResponse", response(2, &list)),
        (
            "CallToolRequest",
            request_wire::<methods::CallTool>(3, &call),
        ),
        ("CallToolResult", to_json(&rich_result(Some("complete")))),
        (
            "CallToolResultResponse",
            response(3, &rich_result(Some("complete"))),
        ),
        ("CallToolResult", to_json(&error_result)),
        (
            "UnsupportedProtocolVersionError",
            to_json(&Message::Response(Response::error(
                Some(RequestId::Number(4)),
                ErrorObject::unsupported_protocol_version("1900-01-01", &[Revision::V2026_07_28]),
            ))),
        ),
        (
            "ProgressNotification",
            notification_wire::<methods::Progress>(&ProgressNotificationParams {
                progress_token: ProgressToken::Number(7),
                progress: 1.0,
                total: None,
                message: None,
                meta: None,
                extra: Default::default(),
            }),
        ),
        (
            "CancelledNotification",
            notification_wire::<methods::Cancelled>(&CancelledNotificationParams {
                request_id: Some(RequestId::Number(3)),
                ..Default::default()
            }),
        ),
        (
            "LoggingMessageNotification",
            notification_wire::<methods::LoggingMessage>(&LoggingMessageNotificationParams {
                level: LoggingLevel::Info,
                logger: None,
                data: json!("fetched 110 tools"),
                meta: None,
                extra: Default::default(),
            }),
        ),
        (
            "ToolListChangedNotification",
            notification_wire::<methods::ToolListChanged>(&Default::default()),
        ),
    ];
    run("2026-07-28", messages);
}

#[test]
fn invalid_message_is_caught_by_the_check() {
    // The check itself must be able to fail: a tool without inputSchema.
    let schema = schema("2025-11-25");
    let err = check(&schema, "Tool", &json!({"name": "x"})).unwrap_err();
    assert!(err.contains("inputSchema"), "{err}");
}
