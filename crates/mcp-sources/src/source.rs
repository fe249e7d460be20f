//! Tool sources and their composition.
//!
//! A [`ToolSource`] lists its tools and calls one. The server holds an ordered
//! [`Composition`] of sources: their lists are merged first-wins by tool name,
//! and a call goes to the first source that owns the name. Gating is applied
//! per source before the merge (a gated view is itself a source), so a tool
//! gated out of a source is routed as if that source never had it.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_gating::SurfaceRules;
use mcp_proto::param_header::ParamHeader;
use mcp_proto::{CallToolRequestParams, ErrorObject, FromValue, LoggingLevel, Meta, Tool};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use crate::context::{ClientLog, ClientRequests, NotificationSink, ProgressReporter};

/// A boxed, sendable future: what [`ToolSource`] methods return so that a
/// source can be held as `Arc<dyn ToolSource>`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What [`ToolSource::call_tool`] returns: the `tools/call` result as JSON
/// text (`isError` results included), sent to the caller as it is, or the
/// JSON-RPC error to answer with.
pub type ToolCall<'a> = BoxFuture<'a, Result<Box<RawValue>, ErrorObject>>;

/// One `tools/call`: the tool's name, and the caller's params object as the
/// JSON text it arrived as, so that a source which only carries the call
/// (the door, HIP-0300 §2.2 "forwarded verbatim") passes it on byte for
/// byte, while a source that acts on it decodes it ([`CallRequest::params`]).
#[derive(Debug, Clone)]
pub struct CallRequest {
    name: String,
    params: Box<RawValue>,
}

impl CallRequest {
    /// A call from its params text: a JSON object with a string `name` and,
    /// when present, an object `arguments` (checked here, without decoding
    /// the arguments, so a malformed call is refused before it runs).
    ///
    /// # Errors
    /// -32602 `tools/call: params.name is required` (or `must be a string`),
    /// or `tools/call: params.arguments must be an object, found …`.
    pub fn new(params: Box<RawValue>) -> Result<Self, ErrorObject> {
        Self::with_meta(params).map(|(call, _)| call)
    }

    /// [`CallRequest::new`], also giving the params' `_meta` (`None`
    /// without one), read in the same pass.
    ///
    /// # Errors
    /// As [`CallRequest::new`].
    pub fn with_meta(params: Box<RawValue>) -> Result<(Self, Option<Value>), ErrorObject> {
        /// The members read; a key another server would read as one of
        /// them (`Name`, see [`mcp_proto::read_as`]) is refused.
        #[derive(Default)]
        struct Head<'a> {
            name: Option<Value>,
            arguments: Option<&'a RawValue>,
            meta: Option<Value>,
        }
        impl<'de> serde::Deserialize<'de> for Head<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_map(HeadVisitor)
            }
        }
        struct HeadVisitor;
        impl<'de> serde::de::Visitor<'de> for HeadVisitor {
            type Value = Head<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Head<'de>, A::Error> {
                use serde::de::Error as _;
                let mut head = Head::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let Some(member) = mcp_proto::read_as(&key, &["name", "arguments", "_meta"])
                    else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        continue;
                    };
                    if member != key {
                        return Err(A::Error::custom(format!(
                            "params key {key:?} is read as {member:?} by servers that ignore \
                             case; write {member:?}"
                        )));
                    }
                    let twice = match member {
                        "name" => head.name.replace(map.next_value()?).is_some(),
                        "arguments" => head.arguments.replace(map.next_value()?).is_some(),
                        _ => head.meta.replace(map.next_value()?).is_some(),
                    };
                    if twice {
                        return Err(A::Error::duplicate_field(member));
                    }
                }
                Ok(head)
            }
        }
        let bad = |e: serde_json::Error| ErrorObject::invalid_params(format!("tools/call: {e}"));
        // Strict first; only text with an escaped lone surrogate is read
        // again with U+FFFD in its place.
        let replaced;
        let head: Head<'_> = match serde_json::from_str(params.get()) {
            Ok(head) => head,
            Err(error) => match mcp_proto::recover::replace_lone_surrogates(params.get()) {
                std::borrow::Cow::Owned(text) => {
                    replaced = text;
                    serde_json::from_str(&replaced).map_err(bad)?
                }
                std::borrow::Cow::Borrowed(_) => return Err(bad(error)),
            },
        };
        if let Some(arguments) = head.arguments
            && !matches!(arguments.get().as_bytes()[0], b'{' | b'n')
        {
            let value: Value = serde_json::from_str(arguments.get()).unwrap_or_default();
            return Err(ErrorObject::invalid_params(format!(
                "tools/call: params.arguments must be an object, found {}",
                mcp_proto::decode::json_type_name(&value)
            )));
        }
        let meta = head.meta;
        match head.name {
            Some(Value::String(name)) => Ok((Self { name, params }, meta)),
            Some(other) => Err(ErrorObject::invalid_params(format!(
                "tools/call: params.name must be a string, found {}",
                mcp_proto::decode::json_type_name(&other)
            ))),
            None => Err(ErrorObject::invalid_params(
                "tools/call: params.name is required",
            )),
        }
    }

    /// A call made of typed params (for callers inside the process).
    pub fn from_params(params: &CallToolRequestParams) -> Self {
        Self {
            name: params.name.clone(),
            params: serde_json::value::to_raw_value(params)
                .expect("tools/call params are always valid JSON"),
        }
    }

    /// Refuses a call whose `arguments` name a discriminator key
    /// (`action`, `op`, or `name`) more than once: gating and modes read
    /// one value, and a source that reads another would run what was not
    /// checked (the crate docs, "Gating"). Called wherever a call is
    /// checked before it is passed on. Arguments that cannot be read are
    /// refused too (closed, never open).
    ///
    /// # Errors
    /// -32602 `tools/call: arguments name "op" twice; give each key once`
    /// with `data` `{"tool": …, "key": …}`.
    pub fn refuse_duplicated_discriminator(&self) -> Result<(), ErrorObject> {
        self.refuse_duplicated_keys(&[])
    }

    /// [`refuse_duplicated_discriminator`](Self::refuse_duplicated_discriminator),
    /// also for each of `also` (a mounted server's own discriminator, such
    /// as `method`).
    ///
    /// # Errors
    /// As [`refuse_duplicated_discriminator`](Self::refuse_duplicated_discriminator).
    pub fn refuse_duplicated_keys(&self, also: &[&str]) -> Result<(), ErrorObject> {
        let text = mcp_proto::recover::replace_lone_surrogates(self.params.get());
        let mut keys: Vec<&str> = vec!["action", "op", "name"];
        for key in also {
            if !keys.contains(key) {
                keys.push(key);
            }
        }
        let key = match mcp_proto::repeated_argument(&text, &keys) {
            Ok(None) => return Ok(()),
            Ok(Some(key)) => key,
            Err(error) => {
                return Err(ErrorObject::invalid_params(format!(
                    "tools/call: the arguments cannot be read: {error}"
                )));
            }
        };
        let mut error = ErrorObject::invalid_params(format!(
            "tools/call: arguments name {key:?} twice; give each key once"
        ));
        error.data = Some(serde_json::json!({
            "tool": mcp_proto::error::excerpt(&self.name, mcp_proto::error::MAX_QUOTED_BYTES),
            "key": key,
        }));
        Err(error)
    }

    /// The tool called.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The params object as the caller wrote it.
    pub fn raw(&self) -> &RawValue {
        &self.params
    }

    /// The params decoded; an escaped lone surrogate reads as U+FFFD.
    ///
    /// # Errors
    /// -32602 naming the member at fault (`tools/call: …`).
    pub fn params(&self) -> Result<CallToolRequestParams, ErrorObject> {
        let (value, _) = mcp_proto::recover::from_str_lossy::<Value>(self.params.get())
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call: {e}")))?;
        CallToolRequestParams::from_value(value)
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call: {}", e.at_key("params"))))
    }
}

/// `result` as the JSON text a [`ToolSource`] answers with.
///
/// # Errors
/// -32603 when `result` cannot be written as JSON (never for mcp-proto's
/// types).
pub fn result_text<T: serde::Serialize>(result: &T) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot encode the result: {e}")))
}

/// The tools one source offers right now, with the `_meta` its list carried
/// (for the door: `hanzo.ai/refused`, `hanzo.ai/unavailable`; HIP-0300 §1.4).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceList {
    /// The tools, in the source's order.
    pub tools: Vec<Tool>,
    /// The list result's `_meta`, kept on the merged result.
    pub meta: Option<Meta>,
}

/// What a call carries besides its params.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Present when the request's `_meta.progressToken` was set
    /// (MCP 2025-11-25 basic/utilities/progress).
    pub progress: Option<ProgressReporter>,
    /// Fires when the caller cancels the request
    /// (`notifications/cancelled`); long work checks it and stops.
    pub cancel: CancellationToken,
    /// Present when the server has logging: sends
    /// `notifications/message` filtered by the level the client asked for.
    pub log: Option<Arc<dyn ClientLog>>,
    /// Present on a connection that can carry requests to the client
    /// (revisions 2024-11-05 to 2025-11-25): sampling, elicitation, roots.
    pub client: Option<Arc<dyn ClientRequests>>,
    /// The number of the session the call came on (a stdio connection, an
    /// HTTP session, one stateless request): the key of per-session state
    /// such as the `mode` tool's choice. 0 outside a session.
    pub session: u64,
    /// Whether the call may start programs other than the tools' own
    /// (`git`'s hooks, filters and the other programs its configuration
    /// can name): true when an action that runs programs (`exec`) is
    /// reachable in the caller's session, through the allowlist and its
    /// mode (the crate docs, "Gating"). `false` by default: a call
    /// made outside a session is not trusted with more.
    pub run_programs: bool,
}

impl CallContext {
    /// Sends `notifications/message` at `level` with `data` when the server
    /// has logging and the client's level lets it through; returns whether
    /// it was sent.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        self.log
            .as_ref()
            .is_some_and(|log| log.log(level, logger, data))
    }

    /// The handle for requests to the client, when the connection has one.
    pub fn client(&self) -> Option<&dyn ClientRequests> {
        self.client.as_deref()
    }
}

/// One place tools come from: a local toolbox, a door, another MCP server,
/// or a gated view of one.
///
/// A source's name is its key in the `allowedTools` configuration (`local`,
/// `door`, a mounted server's name).
pub trait ToolSource: Send + Sync {
    /// The source's name (`local`, `door`).
    fn name(&self) -> &str;

    /// The tools this source lists now. May wait a bounded time (the door
    /// waits at most `--door-wait`); never fails: an unavailable source lists
    /// nothing.
    fn list_tools(&self) -> BoxFuture<'_, SourceList>;

    /// Whether a call to `tool` is routed to this source. A source may own
    /// names it does not list (an ungated door accepts op names).
    fn owns(&self, tool: &str) -> bool;

    /// When the source cannot take calls now (a mounted server that is
    /// down or not yet started), why, as a tool result's text: a gated
    /// view answers a call of a name it would allow with that
    /// (`isError`), as the source itself would. `None` by default.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// Whether `tool` is this source's name even when the source does not
    /// own it now: a mounted server's names stay its own while it restarts
    /// or has them gated out, so a call of one is never routed to a later
    /// source (the door). The default claims nothing.
    fn claims(&self, tool: &str) -> bool {
        let _ = tool;
        false
    }

    /// Calls `call.name()`. A tool's own failure is `Ok` with `isError:
    /// true`; `Err` is a JSON-RPC error (for example -32602 for arguments the
    /// source refuses outright).
    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_>;

    /// A receiver that changes whenever this source's list changes (the door
    /// when its list arrives or is refreshed). `None` for a fixed list.
    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        None
    }

    /// A stamp of the list [`list_tools`](Self::list_tools) would return
    /// now, when the source can tell it without waiting: two equal stamps
    /// mean the same list, so a [`Composition`] may answer from its memo.
    /// `None` means "ask `list_tools`" (the door before its first list
    /// arrives, which `list_tools` waits for).
    ///
    /// The default suits a fixed list (no [`list_changes`](Self::list_changes):
    /// always `Some(0)`) and asks every time otherwise; a source whose list
    /// changes overrides it with the value its `list_changes` carries.
    fn list_stamp(&self) -> Option<u64> {
        match self.list_changes() {
            None => Some(0),
            Some(_) => None,
        }
    }

    /// How this source's tools are gated: which argument is their
    /// discriminator (`action` for local tools, `op` for the door's
    /// subsystem tools) and the `describe` tool, if any (docs/ARCHITECTURE.md,
    /// "Gating"). Mode presets read a source's tools with its own rules.
    /// The default is [`SurfaceRules::local`] without aliases.
    fn surface_rules(&self) -> SurfaceRules {
        SurfaceRules::local()
    }
}

/// The merged list of a [`Composition`] (every source's tools, first-wins),
/// shared by every `tools/list` answered until a source's list changes,
/// together with the JSON texts made of it.
#[derive(Debug)]
pub struct MergedList {
    list: SourceList,
    /// Where the tools came from: for each source that gave any, its
    /// name, its gating rules and the range of `list.tools` it gave (the
    /// merge keeps sources in order, so each source's tools are one run).
    runs: Vec<SourceRun>,
    /// Each source's [`ToolSource::list_stamp`] as its list was taken.
    stamps: Vec<Option<u64>>,
    rendered: std::sync::Mutex<Vec<(&'static str, JsonText)>>,
    /// Tool name → its `x-mcp-header` annotations, for the tools that have
    /// any; read from the schemas on first use.
    param_headers: std::sync::OnceLock<HashMap<String, Vec<ParamHeader>>>,
}

/// The tools one source gave to a [`MergedList`].
#[derive(Debug, Clone)]
pub struct SourceRun {
    /// The source's name (`local`, `door`).
    pub source: String,
    /// How its tools are gated ([`ToolSource::surface_rules`]).
    pub rules: SurfaceRules,
    /// Its tools' positions in [`MergedList::list`]`.tools`.
    pub tools: std::ops::Range<usize>,
}

impl MergedList {
    fn new(list: SourceList, runs: Vec<SourceRun>, stamps: Vec<Option<u64>>) -> Self {
        Self {
            list,
            runs,
            stamps,
            rendered: std::sync::Mutex::new(Vec::new()),
            param_headers: std::sync::OnceLock::new(),
        }
    }

    /// Each source's [`ToolSource::list_stamp`] (in the composition's
    /// order) read as its list was taken for this merge: equal to
    /// [`Composition::stamps`] now means this list is still current, so a
    /// client that has it needs no `notifications/tools/list_changed`.
    pub fn stamps(&self) -> &[Option<u64>] {
        &self.stamps
    }

    /// The `x-mcp-header` annotations of the input schema of tool `name`
    /// (MCP 2026-07-28 streamable-http, SEP-2243); `None` when the list has
    /// no such tool, the tool has none, or its annotations are broken
    /// (clients drop such tools). Every schema is read once per list.
    pub fn param_headers(&self, name: &str) -> Option<&[ParamHeader]> {
        self.param_headers
            .get_or_init(|| {
                self.list
                    .tools
                    .iter()
                    .filter_map(|tool| {
                        let annotations =
                            mcp_proto::param_header::param_headers(&tool.input_schema).ok()?;
                        (!annotations.is_empty()).then(|| (tool.name.clone(), annotations))
                    })
                    .collect()
            })
            .get(name)
            .map(Vec::as_slice)
    }

    /// The sources the merged tools came from, in order, with the range
    /// of tools each gave.
    pub fn runs(&self) -> &[SourceRun] {
        &self.runs
    }

    /// The merged tools and `_meta`.
    pub fn list(&self) -> &SourceList {
        &self.list
    }

    /// The JSON text `render(list)` writes, made on the first call for
    /// `form` (a name the caller chooses, e.g. `"tools/list handshake"`) and
    /// kept with this list, so it is dropped exactly when the list changes.
    /// Concurrent first calls for one form render it once.
    ///
    /// Errors: what `render` reports.
    pub fn rendered(
        &self,
        form: &'static str,
        render: impl FnOnce(&SourceList) -> Result<Box<RawValue>, serde_json::Error>,
    ) -> Result<JsonText, serde_json::Error> {
        let mut rendered = self
            .rendered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, json)) = rendered.iter().find(|(name, _)| *name == form) {
            return Ok(Arc::clone(json));
        }
        let json: JsonText = render(&self.list)?.into();
        rendered.push((form, Arc::clone(&json)));
        Ok(json)
    }
}

/// JSON text kept as it was written.
type JsonText = Arc<serde_json::value::RawValue>;

/// The last merge and the sources' stamps it was made at.
type Memo = Option<(Vec<u64>, Arc<MergedList>)>;

/// The ordered tool sources of a server.
#[derive(Clone, Default)]
pub struct Composition {
    sources: Vec<Arc<dyn ToolSource>>,
    /// Names only one source may list or be routed: the local toolbox's
    /// (HIP-0300 §2.2, "a local name wins"), with that source's name.
    reserved: Option<Arc<Reserved>>,
    memo: Arc<std::sync::Mutex<Memo>>,
    /// The name collisions already reported (`tool\0first\0later`).
    warned: Arc<std::sync::Mutex<HashSet<String>>>,
}

/// Tool names reserved to one source ([`Composition::reserve`]).
#[derive(Debug)]
struct Reserved {
    owner: String,
    names: HashSet<String>,
}

impl std::fmt::Debug for Composition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.sources.iter().map(|s| s.name()).collect();
        f.debug_struct("Composition")
            .field("sources", &names)
            .finish()
    }
}

impl Composition {
    /// A composition of `sources`, earlier ones winning name collisions.
    pub fn new(sources: Vec<Arc<dyn ToolSource>>) -> Self {
        Self {
            sources,
            reserved: None,
            memo: Arc::default(),
            warned: Arc::default(),
        }
    }

    /// Reserves `names` to the source named `owner`: no other source's
    /// tool of such a name is listed, and a call of such a name is routed
    /// to `owner` or to nobody (-32602, unknown tool), whether `owner`
    /// lists the tool, has it gated out or a mode hides it
    /// (the crate docs, "Gating": local names are reserved). The
    /// local toolbox's names are reserved this way, so that gating a local
    /// tool out never hands its name to the door.
    pub fn reserve(mut self, owner: &str, names: impl IntoIterator<Item = String>) -> Self {
        self.reserved = Some(Arc::new(Reserved {
            owner: owner.to_owned(),
            names: names.into_iter().collect(),
        }));
        self
    }

    /// Whether `tool` from the source named `source` may be listed or
    /// routed there (not a name reserved to another source).
    fn admits(&self, source: &str, tool: &str) -> bool {
        self.reserved
            .as_ref()
            .is_none_or(|r| r.owner == source || !r.names.contains(tool))
    }

    /// The sources, in order.
    pub fn sources(&self) -> &[Arc<dyn ToolSource>] {
        &self.sources
    }

    /// Every source's list merged first-wins: the first source's tools in its
    /// order, then each later source's tools whose names are not yet present
    /// (HIP-0300 §2.2 "a local name wins"). `_meta` keys are merged the same
    /// way. A copy of [`Composition::merged`].
    pub async fn list_tools(&self) -> SourceList {
        self.merged().await.list().clone()
    }

    /// The merged list (as [`Composition::list_tools`] describes), from the
    /// memo while every source's [`ToolSource::list_stamp`] is the one the
    /// memo was made at; otherwise every source is asked (waiting as its
    /// `list_tools` does) and, when every stamp was known, the new merge is
    /// remembered. A repeated `tools/list` thus costs one stamp per source
    /// and an `Arc` clone.
    pub async fn merged(&self) -> Arc<MergedList> {
        let stamps: Option<Vec<u64>> = self.sources.iter().map(|s| s.list_stamp()).collect();
        if let Some(stamps) = &stamps
            && let Some((at, merged)) = &*self
                .memo
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
            && at == stamps
        {
            return Arc::clone(merged);
        }
        let mut merged = SourceList::default();
        let mut runs = Vec::new();
        let mut taken = Vec::with_capacity(self.sources.len());
        // Each listed name and the source that listed it.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (at, source) in self.sources.iter().enumerate() {
            let list = source.list_tools().await;
            taken.push(source.list_stamp());
            let start = merged.tools.len();
            for tool in list.tools {
                if !self.admits(source.name(), &tool.name) {
                    let owner = self
                        .reserved
                        .as_ref()
                        .and_then(|r| self.sources.iter().position(|s| s.name() == r.owner));
                    if let Some(owner) = owner {
                        self.warn_taken(&tool.name, owner, at);
                    }
                    continue;
                }
                let earlier = seen
                    .get(&tool.name)
                    .copied()
                    .or_else(|| self.sources[..at].iter().position(|s| s.claims(&tool.name)));
                match earlier {
                    None => {
                        seen.insert(tool.name.clone(), at);
                        merged.tools.push(tool);
                    }
                    Some(first) => self.warn_taken(&tool.name, first, at),
                }
            }
            if merged.tools.len() > start {
                runs.push(SourceRun {
                    source: source.name().to_owned(),
                    rules: source.surface_rules(),
                    tools: start..merged.tools.len(),
                });
            }
            if let Some(meta) = list.meta {
                let target = merged.meta.get_or_insert_with(Meta::new);
                for (key, value) in meta {
                    target.entry(key).or_insert(value);
                }
            }
        }
        let merged = Arc::new(MergedList::new(merged, runs, taken));
        // Stamps read before the sources were asked: a change while they
        // answered gives new stamps, so the next request merges again.
        if let Some(stamps) = stamps {
            *self
                .memo
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some((stamps, Arc::clone(&merged)));
        }
        merged
    }

    /// One warning line per name and pair of sources when a later source
    /// lists a name an earlier one has (the door's names are expected to
    /// collide with local ones, HIP-0300 §2.2, and are not reported).
    fn warn_taken(&self, tool: &str, first: usize, later: usize) {
        let (first, later) = (self.sources[first].name(), self.sources[later].name());
        if later == "door" {
            return;
        }
        let key = format!("{tool}\0{first}\0{later}");
        let new = self
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key);
        if new {
            tracing::warn!(
                tool,
                kept = first,
                dropped = later,
                "two sources list the same tool name; the earlier source's is kept"
            );
        }
    }

    /// The first source that owns `tool`, or claims it without owning it
    /// now ([`ToolSource::claims`]: a mounted server that is down, or has
    /// the name gated out, answers the call itself, with an `isError`
    /// result or -32602), if any. No later source gets a claimed name.
    pub fn route(&self, tool: &str) -> Option<&Arc<dyn ToolSource>> {
        self.sources
            .iter()
            .find(|source| !matches!(self.decide(source, tool), Decision::Next))
    }

    /// [`Composition::route`], waiting for a source whose first list has
    /// not arrived ([`ToolSource::list_stamp`] is `None`; as long as its
    /// `list_tools` waits, which is bounded) before passing over it, so a
    /// call made before the first `tools/list` goes where the list would
    /// send it. A source before the owner never waits once it has a list.
    pub async fn route_ready(&self, tool: &str) -> Option<&Arc<dyn ToolSource>> {
        for source in &self.sources {
            let mut decision = self.decide(source, tool);
            if !matches!(decision, Decision::Owns) && source.list_stamp().is_none() {
                source.list_tools().await;
                decision = self.decide(source, tool);
            }
            if !matches!(decision, Decision::Next) {
                return Some(source);
            }
        }
        None
    }

    fn decide(&self, source: &Arc<dyn ToolSource>, tool: &str) -> Decision {
        if !self.admits(source.name(), tool) {
            Decision::Next
        } else if source.owns(tool) {
            Decision::Owns
        } else if source.claims(tool) {
            Decision::Claims
        } else {
            Decision::Next
        }
    }

    /// Calls the tool through the first source that owns its name; a name no
    /// source owns is -32602 "unknown tool" (the crate docs, "Conventions").
    pub async fn call_tool(
        &self,
        call: CallRequest,
        cx: CallContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match self.route_ready(call.name()).await {
            Some(source) => source.call_tool(call, cx).await,
            None => Err(unknown_tool(call.name())),
        }
    }

    /// Every source's [`ToolSource::list_stamp`] now, in order (compare
    /// with [`MergedList::stamps`]).
    pub fn stamps(&self) -> Vec<Option<u64>> {
        self.sources.iter().map(|s| s.list_stamp()).collect()
    }

    /// Receivers for every source whose list can change.
    pub fn list_changes(&self) -> Vec<watch::Receiver<u64>> {
        self.sources
            .iter()
            .filter_map(|s| s.list_changes())
            .collect()
    }
}

/// Where one source leaves a call of one name.
enum Decision {
    /// The source owns the name: the call goes there.
    Owns,
    /// The source claims the name without owning it: it answers.
    Claims,
    /// Ask the next source.
    Next,
}

/// The error for a tool name no source owns: -32602 with the name in `data`.
pub fn unknown_tool(name: &str) -> ErrorObject {
    let name = mcp_proto::error::excerpt(name, mcp_proto::error::MAX_QUOTED_BYTES);
    let mut error = ErrorObject::invalid_params(format!("unknown tool: {name:?}"));
    error.data = Some(serde_json::json!({ "tool": name }));
    error
}
