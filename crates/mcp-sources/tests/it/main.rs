//! The integration tests of `mcp-sources`, one binary: a composition of
//! small in-memory sources, routed, merged and gated as a server or an
//! agent runtime would.

use std::sync::Arc;

use mcp_gating::{AllowedTools, Policy, SurfaceRules};
use mcp_proto::{ErrorObject, Tool};
use mcp_sources::gated::GatedSource;
use mcp_sources::{
    BoxFuture, CallContext, CallRequest, Composition, SourceList, ToolCall, ToolSource,
};
use serde_json::{Value, json};

/// A source named `name` listing `tools` (plain schemas, or an `action`
/// enum for `ops`), claiming `claimed` besides, answering each call with
/// `"<source> ran <tool>"`.
struct Fixed {
    name: &'static str,
    tools: Vec<Tool>,
    claimed: Vec<&'static str>,
}

fn tool(name: &str, actions: Option<&[&str]>) -> Tool {
    let mut schema = json!({ "type": "object" });
    if let Some(actions) = actions {
        schema["properties"] = json!({ "action": { "type": "string", "enum": actions } });
    }
    serde_json::from_value(json!({ "name": name, "inputSchema": schema })).unwrap()
}

fn fixed(name: &'static str, tools: &[&str], claimed: &[&'static str]) -> Arc<dyn ToolSource> {
    Arc::new(Fixed {
        name,
        tools: tools
            .iter()
            .map(|t| match *t {
                "ops" => tool("ops", Some(&["read", "write"])),
                other => tool(other, None),
            })
            .collect(),
        claimed: claimed.to_vec(),
    })
}

impl ToolSource for Fixed {
    fn name(&self) -> &str {
        self.name
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            SourceList {
                tools: self.tools.clone(),
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }

    fn claims(&self, tool: &str) -> bool {
        self.claimed.contains(&tool)
    }

    fn call_tool(&self, call: CallRequest, _: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let text = if self.owns(call.name()) {
                format!("{} ran {}", self.name, call.name())
            } else {
                format!("{} is down", self.name)
            };
            mcp_sources::result_text(&json!({ "content": [{ "type": "text", "text": text }] }))
        })
    }
}

fn call(name: &str, arguments: Value) -> CallRequest {
    let params = json!({ "name": name, "arguments": arguments }).to_string();
    CallRequest::new(serde_json::value::RawValue::from_string(params).unwrap()).unwrap()
}

async fn run(
    composition: &Composition,
    name: &str,
    arguments: Value,
) -> Result<String, ErrorObject> {
    let result = composition
        .call_tool(call(name, arguments), CallContext::default())
        .await?;
    let result: Value = serde_json::from_str(result.get()).unwrap();
    Ok(result["content"][0]["text"].as_str().unwrap().to_owned())
}

fn names(list: &SourceList) -> Vec<&str> {
    list.tools.iter().map(|t| t.name.as_str()).collect()
}

fn gate(source: Arc<dyn ToolSource>, allowed: &Arc<AllowedTools>) -> Arc<dyn ToolSource> {
    Arc::new(GatedSource::new(
        source,
        &[],
        allowed.clone(),
        Policy::FailOpen,
        SurfaceRules::mounted("action"),
    ))
}

#[tokio::test]
async fn the_first_source_with_a_name_lists_and_runs_it() {
    let composition = Composition::new(vec![
        fixed("local", &["fs", "git"], &[]),
        fixed("kb", &["search", "git"], &[]),
        fixed("door", &["git", "billing"], &[]),
    ])
    .reserve(
        "local",
        ["fs".to_owned(), "git".to_owned(), "exec".to_owned()],
    );
    let list = composition.list_tools().await;
    assert_eq!(names(&list), ["fs", "git", "search", "billing"]);
    assert_eq!(
        run(&composition, "git", json!({})).await.unwrap(),
        "local ran git"
    );
    assert_eq!(
        run(&composition, "search", json!({})).await.unwrap(),
        "kb ran search"
    );
    // `exec` is reserved to `local`, which does not have it: nobody runs it.
    let refused = run(&composition, "exec", json!({})).await.unwrap_err();
    assert_eq!(refused.code, -32602);
}

#[tokio::test]
async fn a_claimed_name_never_falls_through_to_a_later_source() {
    // kb is down (lists nothing) but claims `search`, which the door has.
    let composition = Composition::new(vec![
        fixed("kb", &[], &["search"]),
        fixed("door", &["search", "billing"], &[]),
    ]);
    assert_eq!(names(&composition.list_tools().await), ["billing"]);
    assert_eq!(
        run(&composition, "search", json!({})).await.unwrap(),
        "kb is down"
    );
}

#[tokio::test]
async fn a_gated_source_keeps_its_allowed_names_and_refuses_the_rest() {
    let allowed: Arc<AllowedTools> =
        Arc::new(serde_json::from_value(json!({ "kb": ["ops:read", "later"] })).unwrap());
    let composition = Composition::new(vec![
        gate(fixed("kb", &["ops", "search"], &[]), &allowed),
        fixed("door", &["search", "later", "billing"], &[]),
    ]);
    let list = composition.list_tools().await;
    // kb's `search` is gated out, so the door's is listed; `later` is
    // kb's by its allowlist, though kb does not list it.
    assert_eq!(names(&list), ["ops", "search", "billing"]);
    assert_eq!(
        list.tools[0].input_schema["properties"]["action"]["enum"],
        json!(["read"])
    );
    assert_eq!(
        run(&composition, "ops", json!({ "action": "read" }))
            .await
            .unwrap(),
        "kb ran ops"
    );
    let write = run(&composition, "ops", json!({ "action": "write" }))
        .await
        .unwrap_err();
    assert_eq!(write.code, -32602);
    let twice = composition
        .call_tool(
            CallRequest::new(
                serde_json::value::RawValue::from_string(
                    r#"{"name":"ops","arguments":{"action":"write","action":"read"}}"#.to_owned(),
                )
                .unwrap(),
            )
            .unwrap(),
            CallContext::default(),
        )
        .await
        .unwrap_err();
    assert!(twice.message.contains("twice"), "{twice:?}");
    // Servers that ignore case (Go's encoding/json) read `ACTION` or
    // `actionſ`'s cousins as `action`, and `Arguments` as `arguments`: the
    // gate sees them as the same key, so none of these reaches kb.
    for params in [
        r#"{"name":"ops","arguments":{"action":"read","ACTION":"write"}}"#,
        r#"{"name":"ops","arguments":{"action":"read","Action":"write"}}"#,
    ] {
        let raw = serde_json::value::RawValue::from_string(params.to_owned()).unwrap();
        let refused = composition
            .call_tool(CallRequest::new(raw).unwrap(), CallContext::default())
            .await
            .unwrap_err();
        assert_eq!(
            refused.message, r#"tools/call: arguments name "action" twice; give each key once"#,
            "{params}"
        );
    }
    for (params, key, member) in [
        (
            r#"{"name":"ops","Name":"search","arguments":{"action":"read"}}"#,
            "Name",
            "name",
        ),
        (
            r#"{"name":"ops","arguments":{"action":"read"},"Arguments":{"action":"write"}}"#,
            "Arguments",
            "arguments",
        ),
        (
            "{\"name\":\"ops\",\"argument\u{17f}\":{\"action\":\"write\"}}",
            "argument\u{17f}",
            "arguments",
        ),
    ] {
        let raw = serde_json::value::RawValue::from_string(params.to_owned()).unwrap();
        let refused = CallRequest::new(raw).unwrap_err();
        assert_eq!(refused.code, -32602);
        assert!(
            refused.message.starts_with(&format!(
                "tools/call: params key {key:?} is read as {member:?} by servers that ignore case"
            )),
            "{refused:?}"
        );
    }
    assert_eq!(
        run(&composition, "search", json!({})).await.unwrap(),
        "door ran search"
    );
    assert_eq!(
        run(&composition, "later", json!({}))
            .await
            .unwrap_err()
            .code,
        -32602
    );
}
