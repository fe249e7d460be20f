//! Reading the door's whole tool list: every page, bounded, names checked.

use std::collections::HashSet;
use std::time::Duration;

use mcp_proto::param_header::param_headers;
use mcp_proto::{Meta, Tool, validate_tool_name};
use serde_json::{Map, Value, json};

use crate::config::CachePolicy;
use crate::error::DoorError;
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
/// ([`DoorError::Rpc`]), or a result that is not a tool list
/// ([`DoorError::Garbage`]).
pub(crate) async fn fetch_list(
    transport: &Transport,
    max_pages: usize,
    policy: &CachePolicy,
) -> Result<DoorList, DoorError> {
    let mut tools = Vec::new();
    let mut names = HashSet::new();
    let mut dropped = Vec::new();
    let mut annotated = std::collections::HashMap::new();
    let mut meta: Option<Meta> = None;
    let mut ttl_ms: Option<u64> = None;
    let mut cursors = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    while pages < max_pages.max(1) {
        let mut params = Map::new();
        if let Some(cursor) = &cursor {
            params.insert("cursor".into(), json!(cursor));
        }
        let revision = transport.add_required_meta(&mut params);
        let result = transport
            .request("tools/list", params, &revision, None)
            .await?
            .map_err(DoorError::Rpc)?;
        pages += 1;
        let Value::Object(mut result) = result else {
            return Err(DoorError::Garbage(
                "tools/list result is not an object".into(),
            ));
        };
        let Some(Value::Array(page)) = result.remove("tools") else {
            return Err(DoorError::Garbage(
                "tools/list result has no tools array".into(),
            ));
        };
        for raw in page {
            let name = raw.get("name").and_then(Value::as_str).unwrap_or_default();
            let problem = if !raw.is_object() {
                Some(DropReason::NotAnObject)
            } else if validate_tool_name(name).is_err() {
                Some(DropReason::InvalidName)
            } else if !matches!(raw.get("inputSchema"), Some(Value::Object(_))) {
                Some(DropReason::NoInputSchema)
            } else {
                None
            };
            if let Some(reason) = problem {
                dropped.push(DroppedTool {
                    name: name.to_owned(),
                    reason,
                });
                continue;
            }
            if names.contains(name) {
                continue;
            }
            let name = name.to_owned();
            match serde_json::from_value::<Tool>(raw) {
                // A tool with a broken `x-mcp-header` is left out (MCP
                // 2026-07-28 streamable-http "Schema Extension").
                Ok(tool) => match param_headers(&tool.input_schema) {
                    Ok(headers) => {
                        if !headers.is_empty() {
                            annotated.insert(name.clone(), headers);
                        }
                        names.insert(name);
                        tools.push(tool);
                    }
                    Err(reason) => tracing::warn!(
                        "the door's tool {} is left out of tools/list: {reason}",
                        shorten(&name)
                    ),
                },
                Err(error) => {
                    let why: String = error.to_string().replace(['\n', '\r'], " ");
                    let why: String = why.chars().take(80).collect();
                    dropped.push(DroppedTool {
                        name,
                        reason: DropReason::Malformed(why),
                    });
                }
            }
        }
        if let Some(Value::Object(page_meta)) = result.remove("_meta") {
            let meta = meta.get_or_insert_with(Map::new);
            for (key, value) in page_meta {
                meta.entry(key).or_insert(value);
            }
        }
        if let Some(page_ttl) = result.get("ttlMs").and_then(Value::as_u64) {
            ttl_ms = Some(ttl_ms.map_or(page_ttl, |t| t.min(page_ttl)));
        }
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
        if pages == max_pages.max(1) {
            tracing::warn!(
                "the door's tools/list has more than {pages} pages; keeping the first {pages}"
            );
        }
    }
    transport.learn_param_headers(annotated);
    Ok(DoorList {
        tools,
        meta,
        ttl: policy.ttl_for(ttl_ms),
        pages,
        dropped,
    })
}

/// A name as it goes into a log line: at most 40 characters, escaped.
pub(crate) fn shorten(name: &str) -> String {
    let short: String = name.chars().take(40).collect();
    let suffix = if short.len() < name.len() { "…" } else { "" };
    format!("{:?}{suffix}", short)
}
