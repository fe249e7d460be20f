//! Dispatch by method type: every request and notification the session
//! takes is routed by its `mcp_proto::methods` type through one
//! [`Router`], built once: params decoded into `M::Params`, and the typed
//! result given the members its revision requires
//! ([`mcp_proto::ResultMembers`]) before it is serialized. Requests whose
//! work may wait (tools, resources, prompts, completions) answer
//! [`Answer::Later`] and run as tasks ([`super::inflight`]); the rest are
//! answered inline. `tools/call` is routed with its params as text: a
//! forwarded call carries them verbatim.

use std::sync::OnceLock;

use mcp_proto::methods::Method as _;
use mcp_proto::methods::{
    CallTool, Cancelled, Complete, GetPrompt, Initialize, Initialized, ListPrompts,
    ListResourceTemplates, ListResources, ListTools, Ping, ReadResource, RootsListChanged,
    ServerDiscover, SetLevel, Subscribe, Unsubscribe,
};
use mcp_proto::router::{Answer, Dispatch, FromResult, Notified, Router};
use mcp_proto::{
    CacheScope, EmptyResult, ErrorObject, FromValue, LoggingLevel, Message, Notification,
    ProgressToken, Request, RequestId, Response, ResultMembers, meta,
};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Session;
use super::inflight::Reply;
use crate::lifecycle::Negotiated;
use crate::logging::Logger;
use crate::source::CallContext;

/// How long a stateless (2026-07-28) client may cache our `tools/list`,
/// list and `server/discover` results, in milliseconds.
pub(super) const LIST_TTL_MS: u64 = 60_000;

/// What a routed request brings besides its params.
pub(super) struct RequestCx {
    /// Its id.
    pub(super) id: RequestId,
    /// The revision it is answered in.
    pub(super) era: Negotiated,
    /// Its params' `_meta`, when they have one.
    pub(super) meta: Option<Value>,
    /// Fires when the client cancels it.
    pub(super) cancel: CancellationToken,
}

impl RequestCx {
    /// `result` with the members [`RequestCx::era`] requires: in 2026-07-28,
    /// `resultType: "complete"`, and with `ttl_ms` (a cacheable result)
    /// `ttlMs` and `cacheScope: "private"`, each unless the handler set it
    /// (MCP 2026-07-28 schema, `Result` and `CacheableResult`).
    pub(super) fn shaped<T: ResultMembers>(&self, result: T, ttl_ms: Option<u64>) -> T {
        shaped(self.era, result, ttl_ms)
    }
}

/// As [`RequestCx::shaped`], for work that has only the revision.
pub(super) fn shaped<T: ResultMembers>(era: Negotiated, mut result: T, ttl_ms: Option<u64>) -> T {
    if era.is_stateless() {
        result.mark_complete();
        if let Some(ttl_ms) = ttl_ms {
            result.allow_caching(ttl_ms, CacheScope::Private);
        }
    }
    result
}

impl FromResult for Reply {
    fn from_result<T: Serialize>(result: &T) -> Result<Self, ErrorObject> {
        Value::from_result(result).map(Reply::Value)
    }
}

/// The session's router.
type SessionRouter = Router<Session, RequestCx, Reply>;

/// What a server offers besides tools, one bit each: a method of a
/// feature the server lacks has no handler, so it is -32601 whatever its
/// params (the capabilities are exactly the handlers present).
const RESOURCES: usize = 1;
const SUBSCRIPTIONS: usize = 2;
const PROMPTS: usize = 4;
const COMPLETIONS: usize = 8;
const LOGGING: usize = 16;

/// The features `server` offers, as the bits above.
pub(super) fn features(server: &crate::Server) -> usize {
    let resources = server.resource_source();
    [
        (resources.is_some(), RESOURCES),
        (
            resources.is_some_and(|r| r.updates().is_some()),
            SUBSCRIPTIONS,
        ),
        (server.prompt_source().is_some(), PROMPTS),
        (server.completion_source().is_some(), COMPLETIONS),
        (server.has_logging(), LOGGING),
    ]
    .into_iter()
    .filter(|(offered, _)| *offered)
    .fold(0, |bits, (_, bit)| bits | bit)
}

/// Every request and notification a session of a server with `features`
/// takes, by method type; one router per set of features, built once.
fn router(features: usize) -> &'static SessionRouter {
    static ROUTERS: [OnceLock<SessionRouter>; 32] = [const { OnceLock::new() }; 32];
    ROUTERS[features & 31].get_or_init(|| build(features))
}

fn build(features: usize) -> SessionRouter {
    let mut router = SessionRouter::new();
    router
        // Its params are read by the handler: a missing or non-string
        // `protocolVersion` is named as such.
        .request_params::<Initialize>(|session, _, params| {
            Answer::Now(session.initialize(params.as_ref()))
        })
        .request::<Ping>(|_, cx, _| Answer::Now(Ok(cx.shaped(EmptyResult::default(), None))))
        .request::<ServerDiscover>(|session, cx, _| {
            Answer::Now(Ok(cx.shaped(session.discover(cx.era), None)))
        })
        // The merged list is kept as JSON text, rendered once per list.
        .request_erased::<ListTools>(|session, cx, params| {
            session.list_tools(cx.era, params.as_ref())
        })
        .request_text::<CallTool>(|session, id, params| session.call_tool(id, params))
        .notification::<Initialized>(|session, _| {
            session.lifecycle.initialized();
            session.fetch_roots();
        })
        .notification::<RootsListChanged>(|session, _| session.fetch_roots())
        .notification::<Cancelled>(|session, params| match params.request_id {
            Some(id) => session.inflight.cancel(&id),
            None => tracing::debug!("notifications/cancelled without a requestId"),
        });
    if features & LOGGING != 0 {
        router.request::<SetLevel>(|session, cx, params| {
            Answer::Now(
                session
                    .set_level(cx.era, params.level)
                    .map(|r| cx.shaped(r, None)),
            )
        });
    }
    if features & RESOURCES != 0 {
        router
            .request::<ListResources>(|session, cx, params| session.list_resources(cx, params))
            .request::<ListResourceTemplates>(|session, cx, params| {
                session.list_resource_templates(cx, params)
            })
            .request::<ReadResource>(|session, cx, params| session.read_resource(cx, params));
    }
    if features & SUBSCRIPTIONS != 0 {
        router
            .request_params::<Subscribe>(|session, cx, params| session.subscribe(cx, params))
            .request_params::<Unsubscribe>(|session, cx, params| {
                Answer::Now(
                    session
                        .unsubscribe(cx.era, params)
                        .map(|r| cx.shaped(r, None)),
                )
            });
    }
    if features & PROMPTS != 0 {
        router
            .request::<ListPrompts>(|session, cx, params| session.list_prompts(cx, params))
            .request::<GetPrompt>(|session, cx, params| session.get_prompt(cx, params));
    }
    if features & COMPLETIONS != 0 {
        router.request::<Complete>(|session, cx, params| session.complete(cx, params));
    }
    router
}

impl Session {
    /// Answers one request: inline, or by spawning its work.
    pub(super) fn on_request(&mut self, request: Request) {
        if request.has_lone_surrogates() {
            tracing::warn!(
                method = request.method,
                "params hold an escaped lone surrogate; it reads as U+FFFD"
            );
        }
        let mut cancel_of_work = None;
        let dispatched =
            router(self.features).dispatch(self, request, |session, id, method, params| {
                let era = match session.lifecycle.era_for(method, params) {
                    Ok(era) => era,
                    // `initialize` decides its own era (it opens one).
                    Err(_) if method == Initialize::NAME => {
                        Negotiated::Handshake(mcp_proto::Revision::LATEST_WITH_HANDSHAKE)
                    }
                    Err(error) => return Err(error),
                };
                let cancel = CancellationToken::new();
                cancel_of_work = Some(cancel.clone());
                Ok(RequestCx {
                    id: id.clone(),
                    era,
                    meta: params.and_then(|p| p.get("_meta")).cloned(),
                    cancel,
                })
            });
        match dispatched {
            Dispatch::Taken => {}
            Dispatch::Answer(id, Answer::Now(Ok(Reply::Value(result)))) => {
                self.outbox
                    .send(&Message::Response(Response::success(id, result)));
            }
            Dispatch::Answer(id, Answer::Now(Ok(reply))) => {
                // Inline answers are values; any other form goes the
                // way a task's does.
                let work = Box::pin(async move { Ok(reply) });
                self.inflight
                    .spawn(id, work, cancel_of_work.unwrap_or_default(), &self.outbox);
            }
            Dispatch::Answer(id, Answer::Now(Err(error))) => self.send_error(Some(id), error),
            Dispatch::Answer(id, Answer::Later(work)) => {
                self.inflight
                    .spawn(id, work, cancel_of_work.unwrap_or_default(), &self.outbox);
            }
        }
    }

    /// Acts on one notification; one of a method the session does not
    /// take, or whose params do not decode, is dropped (logged at debug).
    pub(super) fn on_notification(&mut self, notification: Notification) {
        let method = notification.method.clone();
        match router(self.features).notify(self, notification) {
            Notified::Handled => {}
            Notified::Unknown => tracing::debug!(method, "ignoring notification"),
            Notified::Malformed(error) => {
                tracing::debug!(
                    method,
                    error = error.message,
                    "ignoring a malformed notification"
                );
            }
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
        request_meta: Option<&Value>,
        cancel: &CancellationToken,
    ) -> CallContext {
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
    fn set_level(&self, era: Negotiated, level: LoggingLevel) -> Result<EmptyResult, ErrorObject> {
        if !self.server.has_logging() || era.is_stateless() {
            return Err(ErrorObject::method_not_found(SetLevel::METHOD));
        }
        self.level.set(level);
        Ok(EmptyResult::default())
    }

    /// The [`CallContext`] of a routed request's work.
    pub(super) fn call_context(&self, cx: &RequestCx) -> CallContext {
        self.context(&cx.id, cx.era, cx.meta.as_ref(), &cx.cancel)
    }
}

/// Work that waits for `answer`, a typed result that gets the members
/// `era` requires (cacheable for `ttl_ms` when given).
pub(super) fn typed_work<T, Fut>(era: Negotiated, ttl_ms: Option<u64>, answer: Fut) -> Answer<T>
where
    T: ResultMembers + Send + 'static,
    Fut: std::future::Future<Output = Result<T, ErrorObject>> + Send + 'static,
{
    Answer::Later(Box::pin(
        async move { Ok(shaped(era, answer.await?, ttl_ms)) },
    ))
}
