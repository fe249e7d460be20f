//! Every official 2026-07-28 example (tests/fixtures/2026-07-28/examples)
//! decodes into its type and encodes back to an equal JSON value. Envelope
//! examples go through `parse_message`, and their params and results through
//! the typed method where there is one.

use std::fs;

use mcp_proto::methods::{self, Method, NotificationMethod};
use mcp_proto::*;
use serde::Serialize;
use serde_json::Value;

use crate::common::{fixtures, round_trip};

/// Round-trips a value of the schema type named `folder` through its Rust
/// type; `None` when this crate does not model the type.
fn round_trip_type(folder: &str, v: Value) -> Option<Result<Value, String>> {
    Some(match folder {
        "AudioContent" | "ImageContent" | "TextContent" | "ResourceLink" | "EmbeddedResource" => {
            round_trip::<ContentBlock>(v)
        }
        "BlobResourceContents" | "TextResourceContents" => round_trip::<ResourceContents>(v),
        "CallToolRequestParams" => round_trip::<CallToolRequestParams>(v),
        "CallToolResult" => round_trip::<CallToolResult>(v),
        "CancelledNotificationParams" => round_trip::<CancelledNotificationParams>(v),
        "ClientCapabilities" => round_trip::<ClientCapabilities>(v),
        "ServerCapabilities" => round_trip::<ServerCapabilities>(v),
        "DiscoverResult" => round_trip::<DiscoverResult>(v),
        "ListRootsResult" => round_trip::<ListRootsResult>(v),
        "ListToolsResult" => round_trip::<ListToolsResult>(v),
        "LoggingMessageNotificationParams" => round_trip::<LoggingMessageNotificationParams>(v),
        "PaginatedRequestParams" => round_trip::<PaginatedRequestParams>(v),
        "ProgressNotificationParams" => round_trip::<ProgressNotificationParams>(v),
        "Root" => round_trip::<Root>(v),
        "Tool" => round_trip::<Tool>(v),
        "Resource" => round_trip::<Resource>(v),
        "ResourceUpdatedNotificationParams" => round_trip::<ResourceUpdatedNotificationParams>(v),
        "ListResourcesResult" => round_trip::<ListResourcesResult>(v),
        "ListResourceTemplatesResult" => round_trip::<ListResourceTemplatesResult>(v),
        "ReadResourceResult" => round_trip::<ReadResourceResult>(v),
        "GetPromptRequestParams" => round_trip::<GetPromptRequestParams>(v),
        "GetPromptResult" => round_trip::<GetPromptResult>(v),
        "ListPromptsResult" => round_trip::<ListPromptsResult>(v),
        "CompleteRequestParams" => round_trip::<CompleteRequestParams>(v),
        "CompleteResult" => round_trip::<CompleteResult>(v),
        "SamplingMessage" => round_trip::<SamplingMessage>(v),
        "ModelPreferences" => round_trip::<ModelPreferences>(v),
        "CreateMessageRequestParams" => round_trip::<CreateMessageRequestParams>(v),
        "CreateMessageResult" => round_trip::<CreateMessageResult>(v),
        "ToolUseContent" | "ToolResultContent" => round_trip::<ContentBlock>(v),
        "ElicitRequestFormParams" | "ElicitRequestURLParams" => {
            round_trip::<ElicitRequestParams>(v)
        }
        "ElicitResult" => round_trip::<ElicitResult>(v),
        "InputRequiredResult" => round_trip::<InputRequiredResult>(v),
        "SubscriptionsListenResult" => round_trip::<EmptyResult>(v),
        // Elicitation field schemas and the 2026-07-28 input maps are modelled
        // as plain JSON objects (`ElicitRequestParams::requested_schema`,
        // `InputRequiredResult::input_requests`).
        "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledMultiSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema"
        | "InputRequests"
        | "InputResponses" => round_trip::<JsonObject>(v),
        "InternalError" | "InvalidParamsError" | "MethodNotFoundError" | "ParseError" => {
            round_trip::<ErrorObject>(v)
        }
        _ => return None,
    })
}

/// Decodes the params of a typed request or notification, and the result
/// of a typed response (by the folder name), and checks they write back
/// unchanged.
fn check_typed_parts(folder: &str, msg: &Message) -> Result<(), String> {
    /// Typed params write back as the original ones (absent ones as `{}`).
    fn unchanged<P: Serialize>(typed: &P, original: Option<&Value>) -> Result<(), String> {
        let back = serde_json::to_value(typed).map_err(|e| e.to_string())?;
        let orig = original
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default()));
        if back != orig {
            return Err(format!("params changed: {back}"));
        }
        Ok(())
    }
    fn params<M: Method>(req: &Request) -> Result<(), String> {
        let p: M::Params = req.parse_params().map_err(|e| e.message)?;
        unchanged(&p, req.params_value().map_err(|e| e.message)?.as_ref())
    }
    fn note<M: NotificationMethod>(n: &Notification) -> Result<(), String> {
        let p: M::Params = n.parse_params().map_err(|e| e.message)?;
        unchanged(&p, n.params.as_ref())
    }
    fn result<M: Method>(resp: &Response) -> Result<(), String> {
        let r: M::Result = resp.parse_result().map_err(|e| e.message)?;
        let back = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        match &resp.payload {
            ResponsePayload::Result(orig) if *orig == back => Ok(()),
            _ => Err(format!("result changed: {back}")),
        }
    }
    match msg {
        Message::Request(req) => match req.method.as_str() {
            "tools/call" => params::<methods::CallTool>(req),
            "tools/list" => params::<methods::ListTools>(req),
            "server/discover" => params::<methods::ServerDiscover>(req),
            "roots/list" => params::<methods::ListRoots>(req),
            "ping" => params::<methods::Ping>(req),
            _ => Ok(()),
        },
        Message::Notification(n) => match n.method.as_str() {
            "notifications/progress" => note::<methods::Progress>(n),
            "notifications/cancelled" => note::<methods::Cancelled>(n),
            "notifications/message" => note::<methods::LoggingMessage>(n),
            "notifications/tools/list_changed" => note::<methods::ToolListChanged>(n),
            "notifications/roots/list_changed" => note::<methods::RootsListChanged>(n),
            _ => Ok(()),
        },
        Message::Response(resp) => match folder {
            "CallToolResultResponse" => result::<methods::CallTool>(resp),
            "ListToolsResultResponse" => result::<methods::ListTools>(resp),
            "DiscoverResultResponse" => result::<methods::ServerDiscover>(resp),
            _ => Ok(()),
        },
    }
}

#[test]
fn every_2026_07_28_example_round_trips() {
    let root = fixtures().join("2026-07-28/examples");
    let mut typed_count = 0;
    let mut message_count = 0;
    let mut untyped = Vec::new();
    let mut failures = Vec::new();
    let mut folders: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    for dir in folders {
        let folder = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let bytes = fs::read(&file).unwrap();
            let original: Value = serde_json::from_slice(&bytes).unwrap();
            let name = format!("{folder}/{}", file.file_name().unwrap().to_str().unwrap());
            // 2026-07-28 input requests (sampling, elicitation, roots) are
            // requests written without `jsonrpc`: read them as requests and
            // compare without it.
            let bare_request =
                original.get("jsonrpc").is_none() && original.get("method").is_some();
            if original.get("jsonrpc").is_some() || bare_request {
                let mut framed = original.clone();
                framed["jsonrpc"] = Value::from("2.0");
                let bytes = serde_json::to_vec(&framed).unwrap();
                message_count += 1;
                let outcome = parse_message(&bytes)
                    .map_err(|e| e.error.message)
                    .and_then(|m| {
                        check_typed_parts(&folder, &m)?;
                        serde_json::to_value(&m).map_err(|e| e.to_string())
                    });
                let outcome = outcome.map(|mut back| {
                    if bare_request {
                        back.as_object_mut().unwrap().remove("jsonrpc");
                    }
                    back
                });
                match outcome {
                    Ok(back) if back == original => {}
                    Ok(back) => failures.push(format!("{name}: wrote {back}")),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
                continue;
            }
            match round_trip_type(&folder, original.clone()) {
                Some(Ok(back)) if back == original => typed_count += 1,
                Some(Ok(back)) => failures.push(format!("{name}: wrote {back}")),
                Some(Err(e)) => failures.push(format!("{name}: {e}")),
                None => untyped.push(name),
            }
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    // Guard against the fixture folder going missing or shrinking.
    assert_eq!(message_count, 35, "envelope examples");
    assert_eq!(typed_count, 94, "typed examples");
    assert!(untyped.is_empty(), "examples without a type: {untyped:#?}");
}
