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
use mcp_proto::{ErrorObject, RequestId};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::inflight::{Reply, Work};
use super::router::LIST_TTL_MS;
use super::{Session, mode};
use crate::lifecycle::Era;
use crate::source::CallRequest;

impl Session {
    /// `tools/list`: the merged list as the session's mode leaves it. One
    /// page holds every tool, so any cursor is -32602.
    pub(super) fn list_tools(&self, era: Era, params: Option<&Value>) -> Result<Work, ErrorObject> {
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
        let stateless = era.is_stateless();
        Ok(Box::pin(async move {
            let merged = server.composition().merged().await;
            let json = match narrowing {
                // A session's mode: rendered for this request.
                Some(entries) => {
                    let list = merged.list();
                    let narrowed = mode::surface(&entries, &list.tools);
                    render_list(narrowed.tools(), list.meta.as_ref(), stateless).map(Arc::from)
                }
                // Otherwise rendered once per list and form, then copied;
                // the result depends on the era only through `is_stateless`.
                None => {
                    let form = if stateless {
                        "tools/list stateless"
                    } else {
                        "tools/list handshake"
                    };
                    merged.rendered(form, |list| {
                        render_list(&list.tools, list.meta.as_ref(), stateless)
                    })
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
                let request_meta = meta_of(&params)?;
                let era = self
                    .lifecycle
                    .era_for(CallTool::METHOD, request_meta.as_ref())?;
                Ok((CallRequest::new(params)?, era, request_meta))
            });
        let (call, era, request_meta) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return self.send_error(Some(id), error),
        };
        let cancel = CancellationToken::new();
        let cx = self.context(&id, era, request_meta.as_ref(), &cancel);
        let server = self.server.clone();
        let narrowing = self.narrowing();
        let work: Work = Box::pin(async move {
            if let Some(entries) = narrowing {
                let merged = server.composition().merged().await;
                mode::check_call(&entries, &merged.list().tools, &call)?;
            }
            let text = server.composition().call_tool(call, cx).await?;
            let result_type = lacks_result_type(era, &text);
            Ok(Reply::Call { text, result_type })
        });
        self.inflight.spawn(id, work, cancel, &self.outbox);
    }
}

/// `{"_meta": …}` of a call's params (`None` without one), for the era and
/// the call's context; nothing else of the params is decoded.
fn meta_of(params: &RawValue) -> Result<Option<Value>, ErrorObject> {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(rename = "_meta")]
        meta: Option<Value>,
    }
    let (head, _) = mcp_proto::recover::from_str_lossy::<Head>(params.get())
        .map_err(|e| ErrorObject::invalid_params(format!("{}: {e}", CallTool::METHOD)))?;
    Ok(head.meta.map(|meta| json!({ "_meta": meta })))
}

/// Whether `era` requires `result` to get `"resultType":"complete"`: a
/// 2026-07-28 object result without a `resultType` member.
fn lacks_result_type(era: Era, result: &RawValue) -> bool {
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

/// The `tools/list` result of `tools` as JSON text, written straight from
/// the tools (no `Value` tree built and copied on the way): `_meta` when
/// the list has one, and in 2026-07-28 the cache members (`ttlMs`,
/// `cacheScope: "private"`) and `resultType: "complete"`.
fn render_list(
    tools: &[mcp_proto::Tool],
    meta: Option<&mcp_proto::Meta>,
    stateless: bool,
) -> Result<Box<RawValue>, serde_json::Error> {
    struct ListResult<'a> {
        tools: &'a [mcp_proto::Tool],
        meta: Option<&'a mcp_proto::Meta>,
        stateless: bool,
    }
    impl serde::Serialize for ListResult<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut map = s.serialize_map(None)?;
            if let Some(meta) = self.meta {
                map.serialize_entry("_meta", meta)?;
            }
            if self.stateless {
                map.serialize_entry("cacheScope", "private")?;
                map.serialize_entry("resultType", "complete")?;
            }
            map.serialize_entry("tools", self.tools)?;
            if self.stateless {
                map.serialize_entry("ttlMs", &LIST_TTL_MS)?;
            }
            map.end()
        }
    }
    serde_json::value::to_raw_value(&ListResult {
        tools,
        meta,
        stateless,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn result_type_is_added_only_where_missing() {
        let stateless = Era::Stateless(mcp_proto::Revision::V2026_07_28);
        for (text, lacks) in [
            (r#"{"content":[],"n":1E2}"#, true),
            ("{ }", true),
            (r#"{"resultType":"input_required"}"#, false),
            ("[]", false),
        ] {
            assert_eq!(lacks_result_type(stateless, &raw(text)), lacks, "{text}");
        }
        let handshake = Era::Handshake(mcp_proto::Revision::V2025_11_25);
        assert!(!lacks_result_type(handshake, &raw("{}")));
    }
}
