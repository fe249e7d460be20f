//! The door's dispatcher: one handler per method it answers (`initialize`,
//! `ping`, `server/discover`, `tools/list`, `tools/call`), routed by its
//! [`mcp_proto::methods`] type through one [`Router`], built once. Each
//! handler gets its params decoded (-32602 when they do not decode, -32601
//! for a method without a handler, both with the request's id) and
//! answers a typed result; every result but `initialize`'s carries
//! `resultType: "complete"`, which 2026-07-28 requires and a 2025-era
//! client ignores. A forwarded `tools/call` is work the door awaits.
//!
//! A `tools/call` whose params are plain (the common case: see
//! [`super::scan`]) skips the router: its params are read once, in one
//! pass, and it is answered from what that pass found, exactly as the
//! router's reading would answer it.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use mcp_proto::methods::{CallTool, Initialize, ListTools, Method as _, Ping, ServerDiscover};
use mcp_proto::router::{self, Dispatch, Router};
use mcp_proto::{
    CacheScope, CallToolRequestParams, CallToolResult, ContentBlock, DiscoverResult, EmptyResult,
    ErrorObject, InitializeRequestParams, InitializeResult, JsonObject, Meta, Request, RequestId,
    Response, ResultMembers, Revision, ServerCapabilities, ToolsCapability, meta,
};
use serde_json::Value;

use super::scan::{Scanned, scan};
use super::{Answer, Current, Door, Shared, UNAUTHORIZED, server_info};
use crate::credentials::Credentials;
use crate::forward;
use crate::metrics::Label;
use crate::projection::DESCRIBE;

/// The `instructions` of `initialize` and `server/discover`: how the
/// grouped tools are called.
const INSTRUCTIONS: &str = concat!(
    "One tool per subsystem: call describe with {\"op\"} for an op's input schema, ",
    "then the subsystem's tool with {\"op\", \"input\"}."
);

/// What one request is answered from (the router's state): the door as
/// it was when the request came (a reload after that changes nothing for
/// it) and the caller's credentials.
struct Exchange {
    current: Arc<Current>,
    shared: Arc<Shared>,
    credentials: Credentials,
    /// Set by `tools/call` when it needs a credential the request lacks:
    /// its error is then answered as a challenge (HTTP 401).
    challenged: bool,
}

/// The door's router: no context besides the state (the revision is
/// checked before a handler runs, and every handler answers alike in
/// every revision).
type DoorRouter = Router<Exchange, ()>;

/// The door's routes, built once.
fn routes() -> &'static DoorRouter {
    static ROUTES: OnceLock<DoorRouter> = OnceLock::new();
    ROUTES.get_or_init(build)
}

fn build() -> DoorRouter {
    let mut routes = DoorRouter::new();
    routes
        // The revisions that have `initialize` have no `resultType`.
        .request::<Initialize>(|_, (), params| router::Answer::Now(Ok(initialize(&params))))
        .request::<Ping>(|_, (), _| complete(router::Answer::Now(Ok(EmptyResult::default()))))
        .request::<ServerDiscover>(|exchange, (), _| {
            let result = discover(exchange.shared.list_ttl_ms);
            complete(router::Answer::Now(Ok(result)))
        })
        .request::<ListTools>(|exchange, (), params| {
            complete(router::Answer::Now(match params.cursor {
                Some(cursor) => Err(ErrorObject::invalid_params(format!(
                    "unknown cursor {cursor:?}: the door lists every tool on one page"
                ))),
                None => Ok(exchange.current.list.clone()),
            }))
        })
        .request::<CallTool>(|exchange, (), params| {
            if params.name != DESCRIBE && exchange.credentials.is_empty() {
                exchange.challenged = true;
                return router::Answer::Now(Err(unauthorized()));
            }
            let current = Arc::clone(&exchange.current);
            let shared = Arc::clone(&exchange.shared);
            let credentials = std::mem::take(&mut exchange.credentials);
            let work = async move {
                let CallToolRequestParams {
                    name, arguments, ..
                } = params;
                call_tool(&current, &shared, &name, arguments, &credentials).await
            };
            complete(router::Answer::Later(Box::pin(work)))
        });
    routes
}

/// `answer` with `resultType: "complete"` in its result (MCP 2026-07-28
/// schema, `Result`), unless the handler set one.
fn complete<T: ResultMembers + Send + 'static>(answer: router::Answer<T>) -> router::Answer<T> {
    answer.map(|mut result| {
        result.mark_complete();
        Ok(result)
    })
}

impl Door {
    /// Answers one JSON-RPC request. `credentials` are the caller's
    /// credential headers; `revision` is the `MCP-Protocol-Version` header
    /// when there was one.
    ///
    /// Every request is counted in the metrics. A revision the door does
    /// not know, named by `revision` or the params' `_meta`, is answered
    /// -32022 (except on `initialize`, which negotiates one); a
    /// `tools/call` other than `describe` without a credential is
    /// [`Answer::Challenge`].
    pub async fn answer(
        &self,
        request: &Request,
        credentials: &Credentials,
        revision: Option<&str>,
    ) -> Answer {
        let scanned = scan_call(request);
        self.answer_scanned(request, scanned, credentials, revision)
            .await
            .into_answer()
    }

    /// [`Door::answer`], with `scanned` what [`scan_call`] read from the
    /// request: a plain `tools/call` is answered from it without reading
    /// its params again; any other request (`None`) is routed.
    pub(crate) async fn answer_scanned(
        &self,
        request: &Request,
        scanned: Option<Scanned>,
        credentials: &Credentials,
        revision: Option<&str>,
    ) -> Answered {
        match scanned {
            Some(call) => {
                self.answer_call(&request.id, call, credentials, revision)
                    .await
            }
            None => Answered::Answer(self.answer_routed(request, credentials, revision).await),
        }
    }

    /// A plain `tools/call` (see [`scan`]): what the router's reading
    /// does with it, in the same order (counted, its revision checked, a
    /// credential asked for, then called), from the one pass over its
    /// params.
    async fn answer_call(
        &self,
        id: &RequestId,
        call: Scanned,
        credentials: &Credentials,
        revision: Option<&str>,
    ) -> Answered {
        let current = self.current();
        let shared = &*self.shared;
        shared
            .metrics
            .request(CallTool::METHOD, tool_label(&current, &call.name));
        if let Err(error) = known_revision(CallTool::METHOD, revision.or(call.revision.as_deref()))
        {
            return Answered::Answer(Answer::Response(Response::error(Some(id.clone()), error)));
        }
        if call.name != DESCRIBE && credentials.is_empty() {
            let error = Response::error(Some(id.clone()), unauthorized());
            return Answered::Answer(Answer::Challenge(error));
        }
        match call_tool(&current, shared, &call.name, call.arguments, credentials).await {
            Ok(mut result) => {
                result.mark_complete();
                Answered::Called(id.clone(), result)
            }
            Err(error) => {
                Answered::Answer(Answer::Response(Response::error(Some(id.clone()), error)))
            }
        }
    }

    /// Any request but a plain `tools/call`: its params read as JSON and
    /// routed by method.
    async fn answer_routed(
        &self,
        request: &Request,
        credentials: &Credentials,
        revision: Option<&str>,
    ) -> Answer {
        let mut exchange = Exchange {
            current: self.current(),
            shared: Arc::clone(&self.shared),
            credentials: credentials.clone(),
            challenged: false,
        };
        let dispatched = routes().dispatch(
            &mut exchange,
            request.clone(),
            |exchange, _, method, params| {
                exchange.count(method, params);
                let requested =
                    params.and_then(|p| p.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str());
                known_revision(method, revision.or(requested))?;
                if method == CallTool::METHOD {
                    refuse_repeated_arguments(request)?;
                }
                Ok(())
            },
        );
        let (id, result) = match dispatched {
            Dispatch::Answer(id, router::Answer::Now(result)) => (id, result),
            Dispatch::Answer(id, router::Answer::Later(work)) => (id, work.await),
            // No route takes a request's text; answered all the same.
            Dispatch::Taken => (
                request.id.clone(),
                Err(ErrorObject::internal_error(format!(
                    "{} was not answered",
                    request.method
                ))),
            ),
        };
        match result {
            Ok(result) => Answer::Response(Response::success(id, result)),
            Err(error) if exchange.challenged => {
                Answer::Challenge(Response::error(Some(id), error))
            }
            Err(error) => Answer::Response(Response::error(Some(id), error)),
        }
    }
}

/// What the door answers a request with, inside the crate: an [`Answer`],
/// or the result of a plain `tools/call` not yet made a JSON value (the
/// HTTP side writes it out directly, [`Answered::write`]).
pub(crate) enum Answered {
    /// Any answer.
    Answer(Answer),
    /// A call's result (`resultType` set) to the request of this id.
    Called(RequestId, CallToolResult),
}

impl Answered {
    /// The [`Answer`] this is.
    pub(crate) fn into_answer(self) -> Answer {
        match self {
            Answered::Answer(answer) => answer,
            Answered::Called(id, result) => Answer::Response(match result_value(result) {
                Ok(result) => Response::success(id, result),
                Err(error) => Response::error(Some(id), error),
            }),
        }
    }

    /// The JSON text of the response to `id` with `result`, as
    /// serde_json writes the [`Response`] [`Answered::into_answer`] makes
    /// (the result's members in the order of its JSON value), written
    /// straight from the result; `None` for a result of another shape
    /// than the door's (one text block, no `_meta`, nothing unknown), and
    /// when serde_json's objects keep their members in the order written
    /// (its `preserve_order` feature) rather than by name.
    pub(crate) fn write(id: &RequestId, result: &CallToolResult) -> Option<String> {
        let [ContentBlock::Text(text)] = result.content.as_slice() else {
            return None;
        };
        if !sorted_objects() {
            return None;
        }
        if text.annotations.is_some()
            || text.meta.is_some()
            || !text.extra.is_empty()
            || result.meta.is_some()
            || !result.extra.is_empty()
        {
            return None;
        }
        let structured = result.structured_content.as_ref();
        let mut out = Vec::with_capacity(
            96 + 2 * text.text.len() + structured.map_or(0, |_| text.text.len()),
        );
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut out, id).ok()?;
        // Members by name, as a JSON object value keeps them.
        out.extend_from_slice(br#","result":{"content":[{"text":"#);
        serde_json::to_writer(&mut out, &text.text).ok()?;
        out.extend_from_slice(br#","type":"text"}]"#);
        if let Some(is_error) = result.is_error {
            out.extend_from_slice(br#","isError":"#);
            out.extend_from_slice(if is_error { b"true" } else { b"false" });
        }
        if let Some(kind) = &result.result_type {
            out.extend_from_slice(br#","resultType":"#);
            serde_json::to_writer(&mut out, kind).ok()?;
        }
        if let Some(structured) = structured {
            out.extend_from_slice(br#","structuredContent":"#);
            serde_json::to_writer(&mut out, structured).ok()?;
        }
        out.extend_from_slice(b"}}");
        String::from_utf8(out).ok()
    }
}

/// Whether serde_json's objects keep their members sorted by name, as
/// they do unless a crate in the build turns on its `preserve_order`.
fn sorted_objects() -> bool {
    static SORTED: OnceLock<bool> = OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut object = JsonObject::new();
        object.insert("b".to_owned(), Value::Null);
        object.insert("a".to_owned(), Value::Null);
        object.keys().next().map(String::as_str) == Some("a")
    })
}

/// What [`scan`] reads from `request` when it is a `tools/call` with
/// plain params; `None` for any other request.
pub(crate) fn scan_call(request: &Request) -> Option<Scanned> {
    if request.method != CallTool::METHOD {
        return None;
    }
    scan(request.params.as_ref()?.get())
}

/// The error answering a call that needs a credential and has none.
fn unauthorized() -> ErrorObject {
    ErrorObject::new(
        UNAUTHORIZED,
        "this call needs a credential: send Authorization: Bearer <token>",
    )
}

/// `result` as the router writes a result: its JSON value, the
/// structured content moved in rather than copied.
fn result_value(mut result: CallToolResult) -> Result<Value, ErrorObject> {
    let structured = result.structured_content.take();
    if structured.is_some() {
        // Holds the member's place (and so its order) in the object.
        result.structured_content = Some(Value::Null);
    }
    let mut value = serde_json::to_value(&result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot serialize a result: {e}")))?;
    if let (Some(structured), Some(slot)) = (structured, value.get_mut("structuredContent")) {
        *slot = structured;
    }
    Ok(value)
}

/// -32602 for a `tools/call` that names a key twice where the door reads
/// one: `name` or `arguments` in its params, any key of its arguments
/// (`op`, `input`, or an op's input in a call by the op's own name) or of
/// `input`. JSON readers keep the first or the last of a repeated key, so
/// a gateway in front that checked one value (an allowed op, a path or
/// query parameter) could see the other one sent. Arguments that cannot be
/// read are refused here too.
fn refuse_repeated_arguments(request: &Request) -> Result<(), ErrorObject> {
    let Some(params) = &request.params else {
        return Ok(());
    };
    let text = mcp_proto::recover::replace_lone_surrogates(params.get());
    // One pass over the params, into `arguments` and its `input`.
    let mut de = serde_json::Deserializer::from_str(&text);
    match serde::Deserializer::deserialize_any(&mut de, Level::Params) {
        Ok(None) => Ok(()),
        Ok(Some((what, key))) => Err(ErrorObject::invalid_params(format!(
            "tools/call: {what} {key:?} twice; give each key once"
        ))),
        Err(e) => Err(ErrorObject::invalid_params(format!(
            "tools/call: the arguments cannot be read: {e}"
        ))),
    }
}

/// Which part of a `tools/call` [`refuse_repeated_arguments`] reads, and
/// what it finds: the first key written twice, with the words for where
/// (`"arguments name"`).
#[derive(Clone, Copy)]
enum Level {
    /// The params: `name` and `arguments` once each; `arguments` read on.
    Params,
    /// The arguments: every key once, every value read on as [`Level::Input`].
    Arguments,
    /// Anything inside the arguments: every key of every object once, at
    /// any depth (a body's `{"role": "user", "role": "admin"}` too), as
    /// deep as serde_json reads (128; deeper is refused as unreadable).
    Input,
}

type Twice = Option<(&'static str, String)>;

impl<'de> serde::de::DeserializeSeed<'de> for Level {
    type Value = Twice;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Twice, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Level {
    type Value = Twice;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Twice, E> {
        Ok(None)
    }

    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Twice, E> {
        self.scalar(serde::de::Unexpected::Bool(value))
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Twice, E> {
        self.scalar(serde::de::Unexpected::Signed(value))
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Twice, E> {
        self.scalar(serde::de::Unexpected::Unsigned(value))
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Twice, E> {
        self.scalar(serde::de::Unexpected::Float(value))
    }

    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Twice, E> {
        self.scalar(serde::de::Unexpected::Str(value))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Twice, A::Error> {
        if !matches!(self, Level::Input) {
            return Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Seq,
                &self,
            ));
        }
        let mut found = None;
        while let Some(inside) = seq.next_element_seed(Level::Input)? {
            found = found.or(inside);
        }
        Ok(found)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Twice, A::Error> {
        let what = match self {
            Level::Params => "params name",
            Level::Arguments => "arguments name",
            Level::Input => "input names",
        };
        let mut seen = KeySet::default();
        let mut found: Twice = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let inside = match self {
                Level::Params if key == "arguments" => map.next_value_seed(Level::Arguments)?,
                Level::Params => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    None
                }
                Level::Arguments | Level::Input => map.next_value_seed(Level::Input)?,
            };
            // Keys the door reads are compared as servers that ignore case
            // read them (`Op` is `op` again; mcp_proto::read_as).
            let read = match self {
                Level::Params => mcp_proto::read_as(&key, &["name", "arguments"]),
                Level::Arguments => mcp_proto::read_as(&key, &["op", "input"]),
                Level::Input => None,
            };
            let counted = match read {
                Some(member) => Some(std::borrow::Cow::Borrowed(member)),
                None if matches!(self, Level::Params) => None,
                None => Some(key.clone()),
            };
            if found.is_none()
                && let Some(counted) = counted
                && !seen.insert(counted)
            {
                found = Some((what, key.into_owned()));
            }
            found = found.or(inside);
        }
        Ok(found)
    }
}

impl Level {
    /// A scalar is fine inside the arguments; the params and the arguments
    /// themselves must be objects.
    fn scalar<E: serde::de::Error>(
        self,
        unexpected: serde::de::Unexpected<'_>,
    ) -> Result<Twice, E> {
        match self {
            Level::Input => Ok(None),
            _ => Err(E::invalid_type(unexpected, &self)),
        }
    }
}

/// The keys of one object seen so far: compared one by one while few (the
/// arguments of a call have a handful), hashed past [`KeySet::FEW`] so a
/// huge object costs no more than reading it.
#[derive(Default)]
struct KeySet<'de> {
    few: Vec<std::borrow::Cow<'de, str>>,
    many: std::collections::HashSet<std::borrow::Cow<'de, str>>,
}

impl<'de> KeySet<'de> {
    const FEW: usize = 16;

    /// Adds `key`; `false` when it was there already.
    fn insert(&mut self, key: std::borrow::Cow<'de, str>) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(key);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(key)
    }
}

/// -32022 when `requested`, the revision a request names (by header or
/// else its params' `_meta`), is one the door does not know;
/// `initialize` negotiates its own.
fn known_revision(method: &str, requested: Option<&str>) -> Result<(), ErrorObject> {
    match requested {
        Some(r) if method != Initialize::METHOD && Revision::parse(r).is_none() => {
            Err(ErrorObject::unsupported_protocol_version(r, &Revision::ALL))
        }
        _ => Ok(()),
    }
}

impl Exchange {
    /// Counts a request of `method` in the metrics, with, for
    /// `tools/call`, the tool named ([`tool_label`]).
    fn count(&self, method: &str, params: Option<&Value>) {
        let tool = if method == CallTool::METHOD {
            let name = params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            tool_label(&self.current, name)
        } else {
            Label::Static("")
        };
        self.shared.metrics.request(method, tool);
    }
}

/// The `tool` label of a `tools/call` of `name`: the name when the
/// projection has that tool or op, else `other`.
fn tool_label(current: &Current, name: &str) -> Label {
    if name == DESCRIBE {
        return Label::Static(DESCRIBE);
    }
    match current.projection.call_label(name) {
        Some(label) => Label::Shared(Arc::clone(label)),
        None => Label::Static("other"),
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        tools: Some(ToolsCapability {
            list_changed: Some(false),
            ..ToolsCapability::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// `initialize`: the revision negotiated from the client's.
fn initialize(params: &InitializeRequestParams) -> InitializeResult {
    InitializeResult {
        protocol_version: Revision::negotiate(&params.protocol_version)
            .as_str()
            .to_owned(),
        capabilities: capabilities(),
        server_info: server_info(),
        instructions: Some(INSTRUCTIONS.to_owned()),
        ..InitializeResult::default()
    }
}

/// `server/discover`: every revision, newest first, cacheable by anyone
/// for `ttl_ms`.
fn discover(ttl_ms: u64) -> DiscoverResult {
    let mut m = Meta::new();
    m.insert(
        meta::SERVER_INFO.into(),
        serde_json::to_value(server_info()).unwrap_or(Value::Null),
    );
    DiscoverResult {
        supported_versions: Revision::ALL
            .iter()
            .rev()
            .map(|r| r.as_str().to_owned())
            .collect(),
        capabilities: capabilities(),
        instructions: Some(INSTRUCTIONS.to_owned()),
        ttl_ms: Some(ttl_ms),
        cache_scope: Some(CacheScope::Public),
        meta: Some(m),
        ..DiscoverResult::default()
    }
}

/// `tools/call` of `name` with `arguments` on the projection in force
/// when the request came: `describe` answered from it, any other tool
/// forwarded to its op's upstream with `credentials` (timed and counted).
async fn call_tool(
    current: &Current,
    shared: &Shared,
    name: &str,
    arguments: Option<JsonObject>,
    credentials: &Credentials,
) -> Result<CallToolResult, ErrorObject> {
    let projection = &current.projection;
    let mut arguments = arguments.unwrap_or_default();
    let op_of = |args: &JsonObject| -> Result<String, ErrorObject> {
        match args.get("op") {
            Some(Value::String(op)) => Ok(op.clone()),
            Some(_) => Err(ErrorObject::invalid_params(format!(
                "tool {name:?}: \"op\" must be a string"
            ))),
            None => Err(ErrorObject::invalid_params(format!(
                "tool {name:?}: missing \"op\""
            ))),
        }
    };
    if name == DESCRIBE {
        let op = op_of(&arguments)?;
        let described = projection
            .described(&op)
            .ok_or_else(|| unknown_op(DESCRIBE, &op))?;
        return Ok(match described {
            Ok(described) => CallToolResult {
                content: vec![ContentBlock::text(described.to_string())],
                structured_content: Some(described),
                ..CallToolResult::default()
            },
            // Bounded while built; answered with what is still useful.
            Err((without_schema, why)) => {
                let mut result = CallToolResult::error(format!(
                    "describe {op}: {why}; call it with the input its API documents ({} {})",
                    without_schema["method"].as_str().unwrap_or(""),
                    without_schema["path"].as_str().unwrap_or("")
                ));
                result.structured_content = Some(without_schema);
                result
            }
        });
    }
    let (entry, input) = if projection.has_tool(name) {
        let op = op_of(&arguments)?;
        let entry = projection
            .entry_in(name, &op)
            .ok_or_else(|| unknown_op(name, &op))?;
        let input = match arguments.remove("input") {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "tool {name:?}: \"input\" must be an object"
                )));
            }
        };
        (entry, input)
    } else if let Some(entry) = projection.entry(name) {
        // A direct call by an op's own name takes the op's input as its arguments.
        (entry, arguments)
    } else {
        return Err(ErrorObject::invalid_params(format!(
            "unknown tool {name:?}"
        )));
    };
    let started = Instant::now();
    let (result, outcome) =
        forward::call(&shared.upstreams, entry, &input, credentials, shared.limits).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = outcome.label();
    tracing::debug!(op = %entry.name, %status, ms = seconds * 1e3, "forwarded");
    let labels = &entry.labels;
    shared.metrics.forwarded(
        Label::Shared(Arc::clone(&labels.name)),
        Label::Shared(Arc::clone(&labels.subsystem)),
        status,
        seconds,
    );
    Ok(result)
}

fn unknown_op(tool: &str, op: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("tool {tool:?} has no op {op:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_with(params: String) -> Result<(), ErrorObject> {
        let raw = serde_json::value::RawValue::from_string(params).unwrap();
        refuse_repeated_arguments(&Request::with_raw_params(1, "tools/call", Some(raw)))
    }

    #[test]
    fn repeated_keys_are_found_in_large_and_deep_calls_without_recursion() {
        let keys: Vec<String> = (0..50_000).map(|n| format!("\"k{n}\":{n}")).collect();
        let input = keys.join(",");
        let wide = format!(r#"{{"name":"t","arguments":{{"op":"o","input":{{{input}}}}}}}"#);
        assert!(call_with(wide).is_ok());
        let repeated =
            format!(r#"{{"name":"t","arguments":{{"op":"o","input":{{{input},"k0":1}}}}}}"#);
        let error = call_with(repeated).unwrap_err();
        assert_eq!(
            error.message,
            r#"tools/call: input names "k0" twice; give each key once"#
        );
        // Inside a body, at any depth, in arrays too.
        let nested = r#"{"name":"t","arguments":{"op":"o","input":{"body":[{"role":"user","x":{"role":"a","role":"b"}}]}}}"#;
        let error = call_with(nested.to_owned()).unwrap_err();
        assert_eq!(
            error.message,
            r#"tools/call: input names "role" twice; give each key once"#
        );
        // The keys the door reads, as servers that ignore case read them:
        // `Name` is `name` again, `Op` is `op`; inside the input, keys
        // are compared as written.
        for (params, said) in [
            (
                r#"{"name":"t","Name":"admin","arguments":{"op":"o"}}"#,
                r#"params name "Name" twice"#,
            ),
            (
                r#"{"name":"t","arguments":{"op":"o"},"Arguments":{"op":"del"}}"#,
                r#"params name "Arguments" twice"#,
            ),
            (
                r#"{"name":"t","arguments":{"op":"o","Op":"del"}}"#,
                r#"arguments name "Op" twice"#,
            ),
        ] {
            let error = call_with(params.to_owned()).unwrap_err();
            assert!(error.message.contains(said), "{params}: {}", error.message);
        }
        assert!(
            call_with(r#"{"name":"t","arguments":{"op":"o","input":{"id":1,"ID":2}}}"#.to_owned())
                .is_ok()
        );
        // Nested 100,000 deep: refused as unreadable, without a deep stack.
        let deep = format!(
            r#"{{"name":"t","arguments":{{"op":"o","input":{{"a":{}1{}}}}}}}"#,
            r#"{"":"#.repeat(100_000),
            "}".repeat(100_000)
        );
        let error = call_with(deep).unwrap_err();
        assert!(
            error.message.contains("recursion limit"),
            "{}",
            error.message
        );
    }
}

#[cfg(test)]
mod plain_calls {
    use super::*;
    use crate::{DoorConfig, OpenApiSource};

    fn door() -> Door {
        let yaml = include_bytes!("../../tests/data/items.yaml");
        // Nothing listens on port 9: a forwarded call ends at the connect.
        let source = OpenApiSource::from_bytes("items.yaml", yaml, Some("http://127.0.0.1:9"));
        Door::new(vec![source], DoorConfig::default()).unwrap()
    }

    /// The counters of `door`'s metrics (the latencies differ run to run).
    fn counted(door: &Door) -> Vec<String> {
        let mut lines: Vec<String> = door
            .metrics()
            .render()
            .lines()
            .filter(|l| {
                l.starts_with("mcp_door_requests_total")
                    || l.starts_with("mcp_door_forwarded_calls_total")
            })
            .map(str::to_owned)
            .collect();
        lines.sort();
        lines
    }

    #[test]
    fn a_plain_call_is_answered_as_the_router_answers_it() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (fast_door, routed_door) = (door(), door());
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("authorization", "Bearer t".parse().unwrap());
        let with = Credentials::from_headers(&headers);
        let without = Credentials::default();
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let calls = [
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}}}"#.to_owned(),
            format!(r#"{{"name":"items","arguments":{{"op":"get_item","input":{{"name":"one"}}}},{meta}}}"#),
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":".."}}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"get_item","input":{}}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"get_item","input":null}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"get_item","input":[1]}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"add_item","input":{"a":{"b":[1,2.5,-3]}}}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"no_such_op"}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":7}}"#.to_owned(),
            r#"{"name":"items","arguments":{"Op":"get_item"}}"#.to_owned(),
            r#"{"name":"items"}"#.to_owned(),
            r#"{"name":"items","arguments":null}"#.to_owned(),
            r#"{"name":"get_item","arguments":{"name":"one"}}"#.to_owned(),
            r#"{"name":"nothing","arguments":{}}"#.to_owned(),
            r#"{"name":"describe","arguments":{"op":"get_item"}}"#.to_owned(),
            r#"{"name":"describe","arguments":{"op":"nope"}}"#.to_owned(),
            r#"{"name":"describe","arguments":{}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}"#.to_owned(),
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"\ud800"}},"_meta":null,"task":{}}"#.to_owned(),
        ];
        // Spellings a reader might take for the members the door reads:
        // read as plain or not, each is answered as the router answers it.
        let odd = [
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"_META":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}"#,
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"_meta":{"IO.modelcontextprotocol/protocolVersion":"1999-01-01"}}"#,
            r#"{"n\u0061me":"items","\u0061rguments":{"\u006fp":"get_item","input":{"name":"one"}}}"#,
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"},"OP":"add_item"}}"#,
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"NAME":"describe"}"#,
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"},"ınput":{"name":"two"}}}"#,
            r#"{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"arguments":null}"#,
        ];
        for params in odd {
            for credentials in [&with, &without] {
                let raw = serde_json::value::RawValue::from_string(params.to_owned()).unwrap();
                let request = Request::with_raw_params(7, "tools/call", Some(raw));
                let routed =
                    runtime.block_on(routed_door.answer_routed(&request, credentials, None));
                let scanned = scan_call(&request);
                let answered = runtime
                    .block_on(fast_door.answer_scanned(&request, scanned, credentials, None))
                    .into_answer();
                assert_eq!(answered, routed, "{params} {credentials:?}");
            }
        }
        for params in &calls {
            for credentials in [&with, &without] {
                for header in [None, Some("2026-07-28"), Some("1999-01-01")] {
                    let raw = serde_json::value::RawValue::from_string(params.clone()).unwrap();
                    let request = Request::with_raw_params(7, "tools/call", Some(raw));
                    let scanned =
                        scan_call(&request).unwrap_or_else(|| panic!("{params}: not plain"));
                    let fast = runtime.block_on(fast_door.answer_call(
                        &request.id,
                        scanned,
                        credentials,
                        header,
                    ));
                    let written = match &fast {
                        Answered::Called(id, result) => Answered::write(id, result),
                        Answered::Answer(_) => None,
                    };
                    let fast = fast.into_answer();
                    let routed =
                        runtime.block_on(routed_door.answer_routed(&request, credentials, header));
                    assert_eq!(fast, routed, "{params} {credentials:?} {header:?}");
                    // Written directly, the answer is the text of its JSON value.
                    if let (Some(written), Answer::Response(response)) = (written, &routed) {
                        assert_eq!(
                            written,
                            serde_json::to_string(response).unwrap(),
                            "{params}"
                        );
                    }
                }
            }
        }
        assert_eq!(counted(&fast_door), counted(&routed_door));
        assert!(!counted(&fast_door).is_empty());
    }

    #[test]
    fn a_result_is_written_as_its_json_value_is() {
        let structured =
            serde_json::json!({"z": [1, 2.5, -3, null], "a": {"\u{e9}\"": true}, "m": "x\ny"});
        let mut results = vec![
            CallToolResult::text("plain \"text\" \u{1F600} \\ \u{7}"),
            CallToolResult::error("GET /x: HTTP 404 Not Found: {}"),
            CallToolResult {
                content: vec![ContentBlock::text(structured.to_string())],
                structured_content: Some(structured),
                ..CallToolResult::default()
            },
        ];
        results[1].structured_content = Some(serde_json::json!({"status": 404, "body": "x"}));
        for id in [
            RequestId::Number(-4),
            RequestId::String("a\"b\u{e9}".into()),
        ] {
            for result in &results {
                for kind in [None, Some("complete")] {
                    let mut result = result.clone();
                    result.result_type = kind.map(str::to_owned);
                    let written = Answered::write(&id, &result).unwrap();
                    let Answer::Response(response) =
                        Answered::Called(id.clone(), result).into_answer()
                    else {
                        panic!("a response");
                    };
                    assert_eq!(written, serde_json::to_string(&response).unwrap());
                }
            }
        }
        // Another shape is left to the JSON value.
        let two = CallToolResult {
            content: vec![ContentBlock::text("a"), ContentBlock::text("b")],
            ..CallToolResult::default()
        };
        assert_eq!(Answered::write(&RequestId::Number(1), &two), None);
    }
}
