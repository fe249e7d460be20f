//! Dispatch by method type: each request the server answers is routed by
//! its `mcp_proto::methods` type (`M::METHOD`, `M::Params`, `M::Result`),
//! its params decoded into `M::Params`, and its typed result shaped for the
//! revision it is answered in. Requests whose work may wait (tools,
//! resources, prompts, completions) run as tasks ([`super::inflight`]);
//! the rest are answered inline.

use std::future::Future;

use mcp_proto::methods::{
    CallTool, Initialize, ListTools, Method, Ping, ServerDiscover, SetLevel, Subscribe, Unsubscribe,
};
use mcp_proto::{
    EmptyResult, ErrorObject, FromValue, LoggingLevel, Message, ProgressToken, Request, RequestId,
    Response, meta,
};
use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::Session;
use super::inflight::{Reply, Work};
use crate::lifecycle::Negotiated;
use crate::logging::Logger;
use crate::source::CallContext;

/// How long a stateless (2026-07-28) client may cache our `tools/list`,
/// list and `server/discover` results, in milliseconds.
pub(super) const LIST_TTL_MS: u64 = 60_000;

impl Session {
    /// Answers one request: inline, or by spawning its work.
    pub(super) fn on_request(&mut self, request: Request) {
        if request.has_lone_surrogates() {
            tracing::warn!(
                method = request.method,
                "params hold an escaped lone surrogate; it reads as U+FFFD"
            );
        }
        if request.method == CallTool::METHOD {
            // The params stay text: a forwarded call carries them verbatim.
            return self.call_tool(request.id, request.params);
        }
        let params = match request.params_value() {
            Ok(params) => params,
            Err(error) => return self.send_error(Some(request.id), error),
        };
        let Request { id, method, .. } = request;
        let era = match self.lifecycle.era_for(&method, params.as_ref()) {
            Ok(era) => era,
            // `initialize` decides its own era (it opens one).
            Err(_) if method == Initialize::METHOD => {
                Negotiated::Handshake(mcp_proto::Revision::LATEST_WITH_HANDSHAKE)
            }
            Err(error) => return self.send_error(Some(id), error),
        };
        let answered = match method.as_str() {
            Initialize::METHOD => self
                .initialize(params.as_ref())
                .and_then(|r| shaped(era, &r)),
            Ping::METHOD => shaped(era, &EmptyResult::default()),
            ServerDiscover::METHOD => shaped(era, &self.discover(era)),
            SetLevel::METHOD => self.set_level(era, params).and_then(|r| shaped(era, &r)),
            Unsubscribe::METHOD => self.unsubscribe(era, params).and_then(|r| shaped(era, &r)),
            _ => return self.spawn_request(id, &method, era, params),
        };
        match answered {
            Ok(result) => {
                self.outbox
                    .send(&Message::Response(Response::success(id, result)));
            }
            Err(error) => self.send_error(Some(id), error),
        }
    }

    /// Prepares the work of a request that runs as a task, and spawns it.
    fn spawn_request(
        &mut self,
        id: RequestId,
        method: &str,
        era: Negotiated,
        params: Option<Value>,
    ) {
        let cancel = CancellationToken::new();
        let cx = self.context(&id, era, params.as_ref(), &cancel);
        let work = match method {
            ListTools::METHOD => self.list_tools(era, params.as_ref()),
            Subscribe::METHOD => self.subscribe(era, params, cx),
            other => self
                .feature_work(other, era, params, cx)
                .unwrap_or_else(|| Err(ErrorObject::method_not_found(other))),
        };
        match work {
            Ok(work) => self.inflight.spawn(id, work, cancel, &self.outbox),
            Err(error) => self.send_error(Some(id), error),
        }
    }

    /// What a request's work gets besides its params: progress (when
    /// `_meta.progressToken` is set), cancellation, a [`Logger`] when the
    /// server has logging (level: the session's, or in 2026-07-28 the
    /// request's `_meta` level), and a [`crate::peer::Peer`] for requests
    /// to the client outside 2026-07-28. Messages they send are related to
    /// request `id`.
    pub(super) fn context(
        &self,
        id: &RequestId,
        era: Negotiated,
        params: Option<&Value>,
        cancel: &CancellationToken,
    ) -> CallContext {
        let request_meta = params.and_then(|p| p.get("_meta"));
        let progress = request_meta
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok())
            .map(|token| crate::progress::reporter(token, self.outbox.related_to(id.clone())));
        let log = self.server.has_logging().then(|| {
            let outbox = self.outbox.related_to(id.clone());
            if era.is_stateless() {
                let level = request_meta
                    .and_then(|m| m.get(meta::LOG_LEVEL))
                    .and_then(|l| LoggingLevel::from_value(l.clone()).ok());
                Logger::for_request(outbox, level)
            } else {
                Logger::for_connection(outbox, self.level.clone())
            }
        });
        let client =
            (!era.is_stateless()).then(|| self.peer.handle(Some(id.clone()), cancel.clone()));
        CallContext {
            progress,
            cancel: cancel.clone(),
            log: log
                .map(|log| std::sync::Arc::new(log) as std::sync::Arc<dyn mcp_sources::ClientLog>),
            client: client.map(|peer| {
                std::sync::Arc::new(peer) as std::sync::Arc<dyn mcp_sources::ClientRequests>
            }),
            session: self.number,
            // Decided per call, where the session's mode is known
            // (`tools/call`).
            run_programs: false,
        }
    }

    /// `logging/setLevel` (revisions up to 2025-11-25; 2026-07-28 removed it
    /// for the per-request `_meta` level, so there it is -32601).
    fn set_level(
        &self,
        era: Negotiated,
        params: Option<Value>,
    ) -> Result<EmptyResult, ErrorObject> {
        if !self.server.has_logging() || era.is_stateless() {
            return Err(ErrorObject::method_not_found(SetLevel::METHOD));
        }
        let params = decode::<SetLevel>(params)?;
        self.level.set(params.level);
        Ok(EmptyResult::default())
    }
}

/// The params of method `M`, decoded (absent params read as `{}`): -32602
/// naming the method and the member at fault otherwise.
pub(super) fn decode<M: Method>(params: Option<Value>) -> Result<M::Params, ErrorObject> {
    let params = params.unwrap_or_else(|| json!({}));
    M::Params::from_value(params)
        .map_err(|e| ErrorObject::invalid_params(format!("{}: {e}", M::METHOD)))
}

/// A typed result as the JSON value `era` requires: 2026-07-28 results
/// carry `resultType: "complete"` (MCP 2026-07-28 schema, `Result`).
pub(super) fn shaped<T: Serialize>(era: Negotiated, result: &T) -> Result<Value, ErrorObject> {
    let mut value = serde_json::to_value(result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot serialize a result: {e}")))?;
    if era.is_stateless()
        && let Value::Object(map) = &mut value
    {
        map.entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
    }
    Ok(value)
}

/// [`shaped`] for a cacheable result (`ttl_ms` given): in 2026-07-28 it
/// also gets `ttlMs` and `cacheScope: "private"` unless the handler set
/// them (MCP 2026-07-28 schema: required on list and read results).
pub(super) fn shaped_cacheable<T: Serialize>(
    era: Negotiated,
    result: &T,
    ttl_ms: u64,
) -> Result<Reply, ErrorObject> {
    let mut value = shaped(era, result)?;
    if era.is_stateless()
        && let Value::Object(map) = &mut value
    {
        map.entry("ttlMs").or_insert_with(|| json!(ttl_ms));
        map.entry("cacheScope")
            .or_insert_with(|| Value::String("private".into()));
    }
    Ok(Reply::Value(value))
}

/// Work that waits for `answer` and shapes its typed result for `era`,
/// cacheable for `ttl_ms` when given.
pub(super) fn typed_work<T, Fut>(era: Negotiated, ttl_ms: Option<u64>, answer: Fut) -> Work
where
    T: Serialize,
    Fut: Future<Output = Result<T, ErrorObject>> + Send + 'static,
{
    Box::pin(async move {
        let result = answer.await?;
        match ttl_ms {
            Some(ttl_ms) => shaped_cacheable(era, &result, ttl_ms),
            None => shaped(era, &result).map(Reply::Value),
        }
    })
}

/// The `cursor` of a paginated request's params (MCP 2025-11-25
/// server/utilities/pagination): absent or null is the first page.
pub(super) fn cursor_of(
    method: &str,
    params: Option<&Value>,
) -> Result<Option<String>, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => match map.get("cursor") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(cursor)) => Ok(Some(cursor.clone())),
            Some(_) => Err(ErrorObject::invalid_params(format!(
                "{method}: cursor must be a string"
            ))),
        },
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "{method}: params must be an object"
        ))),
    }
}
