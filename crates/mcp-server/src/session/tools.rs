//! `tools/list` and `tools/call` (MCP 2025-11-25 server/tools) over the
//! server's [`Composition`](crate::Composition).
//!
//! A call's params stay the JSON text they arrived as and its result is the
//! JSON text its source answered: a call forwarded to the door goes out and
//! comes back byte for byte (HIP-0300 §2.2). Only the `_meta` of the params
//! is decoded here (revision, progress token, log level), and a 2026-07-28
//! result without `resultType` gets one spliced in.

use std::sync::Arc;

use mcp_proto::methods::{CallTool, ListTools, Method};
use mcp_proto::{CacheScope, ErrorObject, RequestId};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use mcp_proto::router::Answer;

use super::inflight::{Reply, Work};
use super::router::LIST_TTL_MS;
use super::{Session, mode};
use crate::lifecycle::Negotiated;
use crate::source::CallRequest;

impl Session {
    /// `tools/list`: the merged list as the session's mode leaves it. One
    /// page holds every tool, so any cursor is -32602.
    pub(super) fn list_tools(&self, era: Negotiated, params: Option<&Value>) -> Answer<Reply> {
        match self.list_work(era, params) {
            Ok(work) => Answer::Later(work),
            Err(error) => Answer::Now(Err(error)),
        }
    }

    /// The work of [`Session::list_tools`], or why there is none.
    fn list_work(&self, era: Negotiated, params: Option<&Value>) -> Result<Work, ErrorObject> {
        match params {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                // An explicit null cursor is the first page, as for the
                // other lists.
                if let Some(cursor) = map.get("cursor").filter(|c| !c.is_null()) {
                    return Err(ErrorObject::invalid_params(format!(
                        "{}: unknown cursor {cursor}",
                        ListTools::METHOD
                    )));
                }
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "{}: params must be an object",
                    ListTools::METHOD
                )));
            }
        }
        let server = self.server.clone();
        let narrowing = self.narrowing();
        let listed = Arc::clone(&self.listed);
        let outbox = self.outbox.clone();
        Ok(Box::pin(async move {
            let merged = server.composition().merged().await;
            let stateless = era.is_stateless();
            // A source that changed while the list was merged is announced
            // here: the session's own watch may have seen that change
            // before this list was recorded, and let it pass.
            let taken = merged.stamps().to_vec();
            let behind = taken != server.composition().stamps();
            *listed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(taken);
            if behind && !stateless && server.lists_can_change() {
                super::list_changed(&outbox);
            }
            let render = |tools: &[mcp_proto::Tool], meta: Option<&mcp_proto::Meta>| {
                serde_json::value::to_raw_value(&ListResult {
                    tools,
                    meta,
                    stateless,
                })
            };
            let json = match narrowing {
                // A session's mode: its view of this list, rendered once
                // per form.
                Some(entries) => {
                    let view = server.mode_views().get(&merged, &entries);
                    let slot = &view.rendered[usize::from(stateless)];
                    match slot.get() {
                        Some(json) => Ok(json.clone()),
                        None => render(&view.tools, merged.list().meta.as_ref())
                            .map(|json| slot.get_or_init(|| Arc::from(json)).clone()),
                    }
                }
                // Otherwise rendered once per list and form, then copied;
                // the result depends on the era only through `is_stateless`.
                None => {
                    let form = if stateless {
                        "tools/list stateless"
                    } else {
                        "tools/list handshake"
                    };
                    merged.rendered(form, |list| render(&list.tools, list.meta.as_ref()))
                }
            }
            .map_err(|e| {
                ErrorObject::internal_error(format!("cannot encode the tool list: {e}"))
            })?;
            Ok(Reply::Text(json))
        }))
    }

    /// `tools/call`: routed to the first source that owns the name, with
    /// the params as the caller wrote them.
    pub(super) fn call_tool(&mut self, id: RequestId, params: Option<Box<RawValue>>) {
        let prepared = params
            .ok_or_else(|| {
                ErrorObject::invalid_params(format!("{}: params are required", CallTool::METHOD))
            })
            .and_then(|params| {
                let (call, meta) = CallRequest::with_meta(params)?;
                let era = self.lifecycle.era_for(
                    CallTool::METHOD,
                    meta.as_ref().map(|meta| json!({ "_meta": meta })).as_ref(),
                )?;
                Ok((call, era, meta))
            });
        let (call, era, request_meta) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return self.send_error(Some(id), error),
        };
        if call.name() == mcp_local_tools::mode::TOOL_NAME && self.server.modes().is_some() {
            self.mode_call = Some(id.clone());
        }
        let cancel = CancellationToken::new();
        let mut cx = self.context(&id, era, request_meta.as_ref(), &cancel);
        let server = self.server.clone();
        let narrowing = self.narrowing();
        let labels = self.narrowing_labels();
        let work: Work = Box::pin(async move {
            match narrowing {
                Some(layers) => {
                    let merged = server.composition().merged().await;
                    let view = server.mode_views().get(&merged, &layers);
                    mode::check_call(&view, &call, &labels)?;
                    cx.run_programs = server.may_run_programs(&layers);
                }
                None => cx.run_programs = server.may_run_programs(&[]),
            }
            let text = server.composition().call_tool(call, cx).await?;
            let result_type = lacks_result_type(era, &text);
            Ok(Reply::Call { text, result_type })
        });
        self.inflight.spawn(id, work, cancel, &self.outbox);
    }
}

/// A `tools/list` result written straight from the tools, without a copy
/// of them: the members of [`mcp_proto::ListToolsResult`], in its order
/// (`tools`; in 2026-07-28 `ttlMs`, `cacheScope: "private"` and
/// `resultType: "complete"`; `_meta` when the list has one).
struct ListResult<'a> {
    tools: &'a [mcp_proto::Tool],
    meta: Option<&'a mcp_proto::Meta>,
    stateless: bool,
}

impl serde::Serialize for ListResult<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("tools", self.tools)?;
        if self.stateless {
            map.serialize_entry("ttlMs", &LIST_TTL_MS)?;
            map.serialize_entry("cacheScope", &CacheScope::Private)?;
            map.serialize_entry("resultType", "complete")?;
        }
        if let Some(meta) = self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

/// Whether `result` needs `"resultType":"complete"` added as `era`
/// requires: a 2026-07-28 result (an object) without one (MCP 2026-07-28
/// schema, `Result`). The outbox adds it while writing the response, so
/// the text is neither parsed into a tree nor copied for it.
fn lacks_result_type(era: Negotiated, result: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "resultType")]
        result_type: Option<serde::de::IgnoredAny>,
    }
    era.is_stateless()
        && result.get().starts_with('{')
        && matches!(
            serde_json::from_str::<Probe>(result.get()),
            Ok(Probe { result_type: None })
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn result_type_is_added_only_where_missing() {
        let stateless = Negotiated::Stateless(mcp_proto::Revision::V2026_07_28);
        assert!(lacks_result_type(
            stateless,
            &raw(r#"{"content":[],"n":1E2}"#)
        ));
        assert!(lacks_result_type(stateless, &raw("{ }")));
        assert!(!lacks_result_type(
            stateless,
            &raw(r#"{"resultType":"input_required"}"#)
        ));
        let handshake = Negotiated::Handshake(mcp_proto::Revision::V2025_11_25);
        assert!(!lacks_result_type(handshake, &raw("{}")));
    }
}

#[cfg(test)]
mod list_tests {
    use super::*;

    /// The borrowed form writes the bytes the typed result does.
    #[test]
    fn list_result_matches_the_typed_result() {
        let tool: mcp_proto::Tool = serde_json::from_value(json!({
            "name": "t", "description": "d", "inputSchema": {"type": "object"}
        }))
        .unwrap();
        let mut meta = mcp_proto::Meta::new();
        meta.insert("k".into(), json!(1));
        for stateless in [false, true] {
            for meta in [None, Some(&meta)] {
                let typed = mcp_proto::ListToolsResult {
                    tools: vec![tool.clone()],
                    page: mcp_proto::PaginatedResult {
                        meta: meta.cloned(),
                        ttl_ms: stateless.then_some(LIST_TTL_MS),
                        cache_scope: stateless.then_some(CacheScope::Private),
                        result_type: stateless.then(|| "complete".to_owned()),
                        ..mcp_proto::PaginatedResult::default()
                    },
                };
                let borrowed = ListResult {
                    tools: std::slice::from_ref(&tool),
                    meta,
                    stateless,
                };
                assert_eq!(
                    serde_json::to_string(&borrowed).unwrap(),
                    serde_json::to_string(&typed).unwrap()
                );
            }
        }
    }
}
