//! A hidden tool source for the binary's own tests: `test_sleep`, a call
//! that takes as long as asked and reports progress on the way.
//!
//! It exists only when `hanzo-mcp serve` gets the hidden `--test-tools` flag,
//! so a normal run never lists it. Tests need a call that is slow on
//! purpose to exercise cancellation and shutdown.

use std::time::Duration;

use mcp_proto::{ErrorObject, Tool};
use serde_json::{Value, json};

use crate::source::{
    BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource, result_text,
};

/// The name of the hidden tool.
pub const TEST_SLEEP: &str = "test_sleep";

/// The hidden test source (named `test`).
#[derive(Debug, Default)]
pub struct TestTools;

fn sleep_tool() -> Tool {
    let tool = json!({
        "name": TEST_SLEEP,
        "description": "Test only: sleeps `ms` milliseconds in `steps` steps, reporting progress after each.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ms": { "type": "integer", "minimum": 0 },
                "steps": { "type": "integer", "minimum": 1 }
            },
            "required": ["ms"]
        },
        "annotations": { "readOnlyHint": true }
    });
    match serde_json::from_value(tool) {
        Ok(tool) => tool,
        Err(error) => unreachable!("the test_sleep tool literal is a valid Tool: {error}"),
    }
}

impl ToolSource for TestTools {
    fn name(&self) -> &str {
        "test"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            SourceList {
                tools: vec![sleep_tool()],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        tool == TEST_SLEEP
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let args = call.params()?.arguments.unwrap_or_default();
            let ms = args.get("ms").and_then(Value::as_u64).ok_or_else(|| {
                ErrorObject::invalid_params("test_sleep: `ms` must be an integer >= 0")
            })?;
            let steps = args
                .get("steps")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            for step in 1..=steps {
                tokio::time::sleep(Duration::from_millis(ms / steps)).await;
                if let Some(progress) = &cx.progress {
                    progress.report(step as f64, Some(steps as f64), None);
                }
            }
            result_text(
                &json!({ "content": [ { "type": "text", "text": format!("slept {ms} ms") } ] }),
            )
        })
    }
}
