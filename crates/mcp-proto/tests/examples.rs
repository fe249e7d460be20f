//! Every official 2026-07-28 example (tests/fixtures/2026-07-28/examples)
//! decodes into its type and encodes back to an equal JSON value. Envelope
//! examples go through `parse_message`, and their params and results through
//! the typed method where there is one.

use std::fs;
use std::path::Path;

use mcp_proto::methods::{self, Method, NotificationMethod};
use mcp_proto::*;
use serde::Serialize;
use serde_json::Value;

fn typed<T: FromValue + Serialize>(v: Value) -> Result<Value, String> {
    let t = T::from_value(v).map_err(|e| e.to_string())?;
    serde_json::to_value(&t).map_err(|e| e.to_string())
}

/// Round-trips a value of the schema type named `folder` through its Rust
/// type; `None` when this crate does not model the type.
fn round_trip_type(folder: &str, v: Value) -> Option<Result<Value, String>> {
    Some(match folder {
        "AudioContent" | "ImageContent" | "TextContent" | "ResourceLink" | "EmbeddedResource" => {
            typed::<ContentBlock>(v)
        }
        "BlobResourceContents" | "TextResourceContents" => typed::<ResourceContents>(v),
        "CallToolRequestParams" => typed::<CallToolRequestParams>(v),
        "CallToolResult" => typed::<CallToolResult>(v),
        "CancelledNotificationParams" => typed::<CancelledNotificationParams>(v),
        "ClientCapabilities" => typed::<ClientCapabilities>(v),
        "ServerCapabilities" => typed::<ServerCapabilities>(v),
        "DiscoverResult" => typed::<DiscoverResult>(v),
        "ListRootsResult" => typed::<ListRootsResult>(v),
        "ListToolsResult" => typed::<ListToolsResult>(v),
        "LoggingMessageNotificationParams" => typed::<LoggingMessageNotificationParams>(v),
        "PaginatedRequestParams" => typed::<PaginatedRequestParams>(v),
        "ProgressNotificationParams" => typed::<ProgressNotificationParams>(v),
        "Root" => typed::<Root>(v),
        "Tool" => typed::<Tool>(v),
        "Resource" => typed::<Resource>(v),
        "ResourceUpdatedNotificationParams" => typed::<ResourceUpdatedNotificationParams>(v),
        "ListResourcesResult" => typed::<ListResourcesResult>(v),
        "ListResourceTemplatesResult" => typed::<ListResourceTemplatesResult>(v),
        "ReadResourceResult" => typed::<ReadResourceResult>(v),
        "GetPromptRequestParams" => typed::<GetPromptRequestParams>(v),
        "GetPromptResult" => typed::<GetPromptResult>(v),
        "ListPromptsResult" => typed::<ListPromptsResult>(v),
        "CompleteRequestParams" => typed::<CompleteRequestParams>(v),
        "CompleteResult" => typed::<CompleteResult>(v),
        "SamplingMessage" => typed::<SamplingMessage>(v),
        "ModelPreferences" => typed::<ModelPreferences>(v),
        "CreateMessageRequestParams" => typed::<CreateMessageRequestParams>(v),
        "CreateMessageResult" => typed::<CreateMessageResult>(v),
        "ToolUseContent" | "ToolResultContent" => typed::<ContentBlock>(v),
        "ElicitRequestFormParams" | "ElicitRequestURLParams" => typed::<ElicitRequestParams>(v),
        "ElicitResult" => typed::<ElicitResult>(v),
        "InputRequiredResult" => typed::<InputRequiredResult>(v),
        "SubscriptionsListenResult" => typed::<EmptyResult>(v),
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
        | "InputResponses" => typed::<JsonObject>(v),
        "InternalError" | "InvalidParamsError" | "MethodNotFoundError" | "ParseError" => {
            typed::<ErrorObject>(v)
        }
        _ => return None,
    })
}

/// Decodes the params of a typed request or notification, and the result
/// of a typed response (by the folder name), and checks they write back
/// unchanged.
fn check_typed_parts(folder: &str, msg: &Message) -> Result<(), String> {
    fn params<M: Method>(req: &Request) -> Result<(), String> {
        let p: M::Params = req.parse_params().map_err(|e| e.message)?;
        let back = serde_json::to_value(&p).map_err(|e| e.to_string())?;
        let orig = req
            .params_value()
            .map_err(|e| e.message)?
            .unwrap_or_else(|| Value::Object(Default::default()));
        if back != orig {
            return Err(format!("params changed: {back}"));
        }
        Ok(())
    }
    fn note<M: NotificationMethod>(n: &Notification) -> Result<(), String> {
        let p: M::Params = n.parse_params().map_err(|e| e.message)?;
        let back = serde_json::to_value(&p).map_err(|e| e.to_string())?;
        let orig = n
            .params
            .clone()
            .unwrap_or_else(|| Value::Object(Default::default()));
        if back != orig {
            return Err(format!("params changed: {back}"));
        }
        Ok(())
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/2026-07-28/examples");
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
