//! The door's dispatcher: one handler per method it answers (`initialize`,
//! `ping`, `server/discover`, `tools/list`, `tools/call`), routed by its
//! [`mcp_proto::methods`] type through one [`Router`], built once. Each
//! handler gets its params decoded (-32602 when they do not decode, -32601
//! for a method without a handler, both with the request's id) and
//! answers a typed result; every result but `initialize`'s carries
//! `resultType: "complete"`, which 2026-07-28 requires and a 2025-era
//! client ignores. A forwarded `tools/call` is work the door awaits.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use mcp_proto::methods::{CallTool, Initialize, ListTools, Method as _, Ping, ServerDiscover};
use mcp_proto::router::{self, Dispatch, Router};
use mcp_proto::{
    CacheScope, CallToolRequestParams, CallToolResult, ContentBlock, DiscoverResult, EmptyResult,
    ErrorObject, InitializeRequestParams, InitializeResult, JsonObject, Meta, Request, Response,
    ResultMembers, Revision, ServerCapabilities, ToolsCapability, meta,
};
use serde_json::Value;

use super::{Answer, Current, Door, Shared, UNAUTHORIZED, server_info};
use crate::credentials::Credentials;
use crate::forward;
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
                return router::Answer::Now(Err(ErrorObject::new(
                    UNAUTHORIZED,
                    "this call needs a credential: send Authorization: Bearer <token>",
                )));
            }
            let work = call(
                Arc::clone(&exchange.current),
                Arc::clone(&exchange.shared),
                params,
                std::mem::take(&mut exchange.credentials),
            );
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
                known_revision(method, params, revision)?;
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

/// -32022 when the request names a revision the door does not know, by
/// `header` or else its params' `_meta`; `initialize` negotiates its own.
fn known_revision(
    method: &str,
    params: Option<&Value>,
    header: Option<&str>,
) -> Result<(), ErrorObject> {
    let requested = header.or_else(|| params?.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str());
    match requested {
        Some(r) if method != Initialize::METHOD && Revision::parse(r).is_none() => {
            Err(ErrorObject::unsupported_protocol_version(r, &Revision::ALL))
        }
        _ => Ok(()),
    }
}

impl Exchange {
    /// Counts a request of `method` in the metrics, with, for
    /// `tools/call`, the tool named when the projection has it (else
    /// `other`).
    fn count(&self, method: &str, params: Option<&Value>) {
        let tool = if method == CallTool::METHOD {
            let name = params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let projection = &self.current.projection;
            if name == DESCRIBE || projection.has_tool(name) || projection.entry(name).is_some() {
                name
            } else {
                "other"
            }
        } else {
            ""
        };
        self.shared.metrics.request(method, tool);
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

/// `tools/call` on the projection in force when the request came:
/// `describe` answered from it, any other tool forwarded to its op's
/// upstream with `credentials` (timed and counted).
async fn call(
    current: Arc<Current>,
    shared: Arc<Shared>,
    params: CallToolRequestParams,
    credentials: Credentials,
) -> Result<CallToolResult, ErrorObject> {
    let projection = &current.projection;
    let mut params = params;
    let mut arguments = params.arguments.take().unwrap_or_default();
    let op_of = |args: &JsonObject| -> Result<String, ErrorObject> {
        match args.get("op") {
            Some(Value::String(op)) => Ok(op.clone()),
            Some(_) => Err(ErrorObject::invalid_params(format!(
                "tool {:?}: \"op\" must be a string",
                params.name
            ))),
            None => Err(ErrorObject::invalid_params(format!(
                "tool {:?}: missing \"op\"",
                params.name
            ))),
        }
    };
    if params.name == DESCRIBE {
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
    let (entry, input) = if projection.has_tool(&params.name) {
        let op = op_of(&arguments)?;
        let entry = projection
            .entry_in(&params.name, &op)
            .ok_or_else(|| unknown_op(&params.name, &op))?;
        let input = match arguments.remove("input") {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "tool {:?}: \"input\" must be an object",
                    params.name
                )));
            }
        };
        (entry, input)
    } else if let Some(entry) = projection.entry(&params.name) {
        // A direct call by an op's own name takes the op's input as its arguments.
        (entry, arguments)
    } else {
        return Err(ErrorObject::invalid_params(format!(
            "unknown tool {:?}",
            params.name
        )));
    };
    let started = Instant::now();
    let (result, outcome) = forward::call(
        &shared.upstreams,
        entry,
        &input,
        &credentials,
        shared.limits,
    )
    .await;
    let seconds = started.elapsed().as_secs_f64();
    let status = outcome.label();
    shared
        .metrics
        .forwarded(&entry.name, &entry.subsystem, &status, seconds);
    tracing::debug!(op = %entry.name, %status, ms = seconds * 1e3, "forwarded");
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
