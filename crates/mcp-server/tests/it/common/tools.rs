//! The one test tool source, for the tests and the HTTP bench
//! (`#[path]`-included there): a [`ToolSource`] made of a name, its tools
//! and one closure that answers every call.
#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;

use mcp_local_server::mcp_proto::{CallToolRequestParams, ErrorObject, Implementation, Tool};
use mcp_local_server::source::{
    BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource, result_text,
};
use mcp_local_server::{Composition, Server, ServerConfig};
use serde_json::{Value, json};

type Handler = dyn Fn(CallToolRequestParams, CallContext) -> BoxFuture<'static, Result<Value, ErrorObject>>
    + Send
    + Sync;

/// A source whose tools are answered by one closure.
pub struct Tools {
    name: String,
    tools: Vec<Tool>,
    handler: Arc<Handler>,
}

impl Tools {
    /// `name`'s tools are `tools`, each `{"name": <tool>, "inputSchema":
    /// {"type": "object"}}`; `handler` answers a call to any of them.
    pub fn new<F, Fut>(name: &str, tools: &[&str], handler: F) -> Self
    where
        F: Fn(CallToolRequestParams, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        let tools = tools
            .iter()
            .map(|tool| json!({ "name": tool, "inputSchema": { "type": "object" } }))
            .collect();
        Self::from_json(name, tools, handler)
    }

    /// As [`new`](Self::new), with each tool given as its JSON.
    pub fn from_json<F, Fut>(name: &str, tools: Vec<Value>, handler: F) -> Self
    where
        F: Fn(CallToolRequestParams, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        let tools = tools
            .into_iter()
            .map(|tool| serde_json::from_value(tool).expect("a valid tool literal"))
            .collect();
        Self {
            name: name.to_owned(),
            tools,
            handler: Arc::new(move |params, cx| Box::pin(handler(params, cx))),
        }
    }

    /// This source alone in a [`Server`] named `server_name`.
    pub fn serve(self, server_name: &str) -> Server {
        server(server_name, vec![Arc::new(self)])
    }
}

impl ToolSource for Tools {
    fn name(&self) -> &str {
        &self.name
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            SourceList {
                tools: self.tools.clone(),
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }

    /// Decodes the params (as a source that acts on a call does) and hands
    /// them to the closure; its JSON result goes back as text.
    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        let handler = self.handler.clone();
        Box::pin(async move {
            let answered = handler(call.params()?, cx).await?;
            result_text(&answered)
        })
    }
}

/// A server named `name` (version 0.0.1) over `sources`.
pub fn server(name: &str, sources: Vec<Arc<dyn ToolSource>>) -> Server {
    Server::new(
        Composition::new(sources),
        ServerConfig::new(Implementation::new(name, "0.0.1")),
    )
}

/// A `tools/call` result of one text block.
pub fn text(said: impl Into<String>) -> Result<Value, ErrorObject> {
    Ok(json!({ "content": [ { "type": "text", "text": said.into() } ] }))
}
