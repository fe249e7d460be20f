//! Reading the door's whole tool list: every page, bounded, names checked.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use mcp_proto::param_header::{ParamHeader, param_headers};
use mcp_proto::{Meta, Tool, validate_tool_name};
use serde_json::{Map, Value, json};

use crate::config::CachePolicy;
use crate::error::DoorClientError;
use crate::transport::Transport;

/// The door's tool list as last read (HIP-0300 §2.2).
#[derive(Debug, Clone, PartialEq)]
pub struct DoorList {
    /// The door's tools in door order, names valid and unique (a repeated
    /// name keeps its first occurrence).
    pub tools: Vec<Tool>,
    /// The door's result `_meta` (for example `hanzo.ai/refused`,
    /// `hanzo.ai/unavailable`, HIP-0300 §1.4), the pages' keys joined,
    /// the first page's value winning.
    pub meta: Option<Meta>,
    /// How long this list is fresh: the door's `ttlMs` within the
    /// [`CachePolicy`] bounds, else its default.
    pub ttl: Duration,
    /// Pages read.
    pub pages: usize,
    /// Tools dropped because they break the MCP tool rules, in door order,
    /// each with its reason.
    pub dropped: Vec<DroppedTool>,
}

/// A tool of the door's list that was left out (HIP-0300 §2.2: dropped with
/// one warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedTool {
    /// The tool's `name` as listed (empty when it had no string name).
    pub name: String,
    /// What was wrong with it.
    pub reason: DropReason,
}

/// Why a listed tool was dropped (MCP 2025-11-25 server/tools `Tool`).
/// `Display` gives the short form the warning uses, e.g. `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DropReason {
    /// The list entry is not a JSON object.
    NotAnObject,
    /// The name is missing or breaks the MCP tool-name rule
    /// ([`mcp_proto::validate_tool_name`]).
    InvalidName,
    /// `inputSchema` is missing or is not a JSON object.
    NoInputSchema,
    /// Another member has the wrong shape; the decoder's message, one line,
    /// at most 80 characters.
    Malformed(String),
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotAnObject => f.write_str("not an object"),
            Self::InvalidName => f.write_str("name"),
            Self::NoInputSchema => f.write_str("no inputSchema object"),
            Self::Malformed(why) => write!(f, "malformed: {why}"),
        }
    }
}

/// Reads every page of `tools/list` (at most `max_pages`; stops when a
/// cursor repeats), drops tools that break the MCP tool rules (listed with
/// their reasons in [`DoorList::dropped`]; the caller warns), and applies
/// `policy` to the door's `ttlMs`.
///
/// Errors: any transport failure of any page, or a JSON-RPC error answer
/// ([`DoorClientError::Rpc`]), or a result that is not a tool list
/// ([`DoorClientError::Garbage`]).
pub(crate) async fn fetch_list(
    transport: &Transport,
    max_pages: usize,
    policy: &CachePolicy,
) -> Result<DoorList, DoorClientError> {
    let max_pages = max_pages.max(1);
    let mut read = ListRead::default();
    let mut cursors = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    while pages < max_pages {
        let (page, mut result) = read_page(transport, cursor.as_deref()).await?;
        pages += 1;
        for raw in page {
            read.add_tool(raw);
        }
        read.add_page_meta(&mut result);
        match result.remove("nextCursor") {
            Some(Value::String(next)) if !cursors.contains(&next) => {
                cursors.insert(next.clone());
                cursor = Some(next);
            }
            Some(Value::String(next)) => {
                tracing::warn!(
                    cursor = %next,
                    "the door repeated a tools/list cursor; keeping the {pages} page(s) read"
                );
                break;
            }
            _ => break,
        }
        if pages == max_pages {
            tracing::warn!(
                "the door's tools/list has more than {pages} pages; keeping the first {pages}"
            );
        }
    }
    transport.learn_param_headers(read.annotated);
    Ok(DoorList {
        tools: read.tools,
        meta: read.meta,
        ttl: policy.ttl_for(read.ttl_ms),
        pages,
        dropped: read.dropped,
    })
}

/// One `tools/list` request, from `cursor` when there is one: the page's
/// `tools` array, and the rest of the result.
async fn read_page(
    transport: &Transport,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Map<String, Value>), DoorClientError> {
    let mut params = Map::new();
    if let Some(cursor) = cursor {
        params.insert("cursor".into(), json!(cursor));
    }
    let revision = transport.add_required_meta(&mut params);
    let result = transport
        .request(mcp_proto::methods::ListTools::NAME, params, &revision, None)
        .await?
        .map_err(DoorClientError::Rpc)?;
    let Value::Object(mut result) = result else {
        return Err(DoorClientError::Garbage(
            "tools/list result is not an object".into(),
        ));
    };
    let Some(Value::Array(page)) = result.remove("tools") else {
        return Err(DoorClientError::Garbage(
            "tools/list result has no tools array".into(),
        ));
    };
    Ok((page, result))
}

/// What the pages read so far add up to.
#[derive(Default)]
struct ListRead {
    tools: Vec<Tool>,
    /// The names in `tools`.
    names: HashSet<String>,
    dropped: Vec<DroppedTool>,
    /// The `x-mcp-header` annotations of the kept tools that have any.
    annotated: HashMap<String, Vec<ParamHeader>>,
    meta: Option<Meta>,
    /// The smallest `ttlMs` of any page.
    ttl_ms: Option<u64>,
}

impl ListRead {
    /// Keeps one listed tool, or drops it with its reason; a name already
    /// kept is skipped, and a tool with a broken `x-mcp-header` is left
    /// out with a warning (MCP 2026-07-28 streamable-http "Schema
    /// Extension").
    fn add_tool(&mut self, raw: Value) {
        let name = raw.get("name").and_then(Value::as_str).unwrap_or_default();
        if let Some(reason) = drop_reason(&raw, name) {
            self.dropped.push(DroppedTool {
                name: name.to_owned(),
                reason,
            });
            return;
        }
        if self.names.contains(name) {
            return;
        }
        let name = name.to_owned();
        match serde_json::from_value::<Tool>(raw) {
            Ok(tool) => match param_headers(&tool.input_schema) {
                Ok(headers) => {
                    if !headers.is_empty() {
                        self.annotated.insert(name.clone(), headers);
                    }
                    self.names.insert(name);
                    self.tools.push(tool);
                }
                Err(reason) => tracing::warn!(
                    "the door's tool {} is left out of tools/list: {reason}",
                    shorten(&name)
                ),
            },
            Err(error) => {
                let why: String = error.to_string().replace(['\n', '\r'], " ");
                let why: String = why.chars().take(80).collect();
                self.dropped.push(DroppedTool {
                    name,
                    reason: DropReason::Malformed(why),
                });
            }
        }
    }

    /// Joins a page's `_meta` (a key already read keeps its value) and
    /// keeps the smallest `ttlMs`.
    fn add_page_meta(&mut self, result: &mut Map<String, Value>) {
        if let Some(Value::Object(page_meta)) = result.remove("_meta") {
            let meta = self.meta.get_or_insert_with(Map::new);
            for (key, value) in page_meta {
                meta.entry(key).or_insert(value);
            }
        }
        if let Some(page_ttl) = result.get("ttlMs").and_then(Value::as_u64) {
            self.ttl_ms = Some(self.ttl_ms.map_or(page_ttl, |t| t.min(page_ttl)));
        }
    }
}

/// Why a listed tool breaks the MCP tool rules, if it does: not an object,
/// an invalid `name` (given as `name`), or no `inputSchema` object.
fn drop_reason(raw: &Value, name: &str) -> Option<DropReason> {
    if !raw.is_object() {
        Some(DropReason::NotAnObject)
    } else if validate_tool_name(name).is_err() {
        Some(DropReason::InvalidName)
    } else if !matches!(raw.get("inputSchema"), Some(Value::Object(_))) {
        Some(DropReason::NoInputSchema)
    } else {
        None
    }
}

/// A name as it goes into a log line: at most 40 characters, escaped.
pub(crate) fn shorten(name: &str) -> String {
    let short: String = name.chars().take(40).collect();
    let suffix = if short.len() < name.len() { "…" } else { "" };
    format!("{:?}{suffix}", short)
}
