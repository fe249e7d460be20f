//! A gated view of a tool source (the crate docs, "Gating"):
//! the source's list after `allowedTools`, and calls checked against it.
//!
//! Gating happens per source, before the merge. A tool gated out of a source
//! is not listed and the source does not own its name, so the composition
//! routes the call as if the source never had it; a call the gated source
//! owns but refuses (an op or action not allowed, `describe` of a disallowed
//! op) is -32602 like an unknown tool and never reaches the source; its
//! message says which value was refused and which are allowed.

use std::sync::{Arc, PoisonError, RwLock};

use mcp_gating::{AllowedTools, CallDecision, GatedSurface, Policy, Refusal, SurfaceRules};
use mcp_proto::{ErrorObject, Tool};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::source::{
    BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource, unknown_tool,
};

type Surface = Arc<RwLock<Arc<GatedSurface<Tool>>>>;

/// A source seen through an allowlist.
pub struct GatedSource {
    inner: Arc<dyn ToolSource>,
    allowed: Arc<AllowedTools>,
    policy: Policy,
    rules: SurfaceRules,
    surface: Surface,
}

impl std::fmt::Debug for GatedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatedSource")
            .field("source", &self.inner.name())
            .finish_non_exhaustive()
    }
}

impl GatedSource {
    /// Gates `inner` (whose name is its key in `allowed`) under `policy`
    /// with `rules` (`SurfaceRules::local()` or `SurfaceRules::door()`).
    /// `known` is the source's list as known now (the local tools; empty for
    /// a door whose list has not arrived): routing uses it until the next
    /// list. When the source's list can change, the surface is rebuilt in
    /// the background on every change (call inside a Tokio runtime).
    pub fn new(
        inner: Arc<dyn ToolSource>,
        known: &[Tool],
        allowed: Arc<AllowedTools>,
        policy: Policy,
        rules: SurfaceRules,
    ) -> Self {
        let surface = Arc::new(GatedSurface::new(
            inner.name(),
            known,
            &allowed,
            policy,
            rules.clone(),
        ));
        let gated = Self {
            inner,
            allowed,
            policy,
            rules,
            surface: Arc::new(RwLock::new(surface)),
        };
        gated.follow_changes();
        gated
    }

    /// The surface routing uses now.
    pub fn surface(&self) -> Arc<GatedSurface<Tool>> {
        self.surface
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether this source's allowlist names `tool` (whole or by value):
    /// such a name is this source's before its list arrives, so a call of
    /// it is never routed to a later source.
    fn names(&self, tool: &str) -> bool {
        self.allowed
            .server(self.inner.name())
            .is_some_and(|list| list.grant(tool).is_some())
    }

    fn follow_changes(&self) {
        let Some(mut changes) = self.inner.list_changes() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let inner = self.inner.clone();
        let allowed = self.allowed.clone();
        let policy = self.policy;
        let rules = self.rules.clone();
        let surface = Arc::downgrade(&self.surface);
        runtime.spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(surface) = surface.upgrade() else {
                    break;
                };
                let list = inner.list_tools().await;
                rebuild(
                    &surface,
                    inner.name(),
                    &list.tools,
                    &allowed,
                    policy,
                    &rules,
                );
            }
        });
    }
}

fn rebuild(
    surface: &Surface,
    name: &str,
    tools: &[Tool],
    allowed: &AllowedTools,
    policy: Policy,
    rules: &SurfaceRules,
) -> Arc<GatedSurface<Tool>> {
    let fresh = Arc::new(GatedSurface::new(
        name,
        tools,
        allowed,
        policy,
        rules.clone(),
    ));
    let mut current = surface.write().unwrap_or_else(PoisonError::into_inner);
    // The one mismatch that withholds a tool the entry names: said at
    // warn, once, when a list first shows it (not at every rebuild).
    let withheld = |surface: &GatedSurface<Tool>| -> Vec<String> {
        surface
            .unmatched_entries()
            .iter()
            .filter(|u| u.mismatch == mcp_gating::Mismatch::NoDiscriminator)
            .map(ToString::to_string)
            .collect()
    };
    let before = withheld(&current);
    for entry in withheld(&fresh) {
        if !before.contains(&entry) {
            tracing::warn!(source = name, "allowedTools: {entry}");
        }
    }
    *current = fresh.clone();
    fresh
}

impl ToolSource for GatedSource {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            let list = self.inner.list_tools().await;
            let surface = rebuild(
                &self.surface,
                self.inner.name(),
                &list.tools,
                &self.allowed,
                self.policy,
                &self.rules,
            );
            SourceList {
                tools: surface.tools().to_vec(),
                meta: list.meta,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.surface().owns(tool)
    }

    /// What the source claims stays claimed when gated out: a gated-out
    /// name of a mounted server is refused, never passed to a later source.
    fn claims(&self, tool: &str) -> bool {
        self.inner.claims(tool) || self.names(tool)
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            if self.surface().owns(&params.name) {
                call.refuse_duplicated_keys(&[self.rules.discriminator.as_str()])?;
            }
            let decision = self
                .surface()
                .check_call_arguments(&params.name, params.arguments.as_ref());
            match decision {
                CallDecision::Permitted => self.inner.call_tool(call, cx).await,
                CallDecision::Refused(why) => {
                    tracing::debug!(source = self.inner.name(), %why, "call gated out");
                    let allowed = self.surface().allowed_values(&params.name);
                    Err(refused_call(
                        &params.name,
                        &why,
                        allowed.unwrap_or_default(),
                    ))
                }
                CallDecision::NotOwned => match self.inner.unavailable() {
                    // A name this source's allowlist gives it, while the
                    // source is down: its own answer, nothing sent.
                    Some(why) if self.names(&params.name) && self.inner.claims(&params.name) => {
                        crate::source::result_text(&json!({
                            "content": [{ "type": "text", "text": why }],
                            "isError": true
                        }))
                    }
                    _ => Err(unknown_tool(&params.name)),
                },
            }
        })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        self.inner.list_changes()
    }

    fn unavailable(&self) -> Option<String> {
        self.inner.unavailable()
    }

    fn surface_rules(&self) -> SurfaceRules {
        self.rules.clone()
    }

    /// The gated list is a function of the inner list alone (the allowlist
    /// is fixed), so it changes exactly when the inner stamp does.
    fn list_stamp(&self) -> Option<u64> {
        self.inner.list_stamp()
    }
}

/// The -32602 error of a call the gated source owns but refuses (docs/ARCHITECTURE.md,
/// "Gating": refused like an unknown tool, never forwarded):
/// `tool "fs" does not allow action "write" here (allowed: read)` with
/// `data` `{"tool":"fs","action":"write","allowed":["read"]}` (`op` for the
/// door's tools and its `describe`; the value is `null` when the call
/// carried none, or not a string: `tool "fs" needs an allowed action here
/// (allowed: read)`).
pub fn refused_call(name: &str, refusal: &Refusal, allowed: Vec<String>) -> ErrorObject {
    let (tool, discriminator, value) = match refusal {
        Refusal::OpNotAllowed {
            tool,
            discriminator,
            value,
        } => (tool, discriminator.as_str(), value),
        Refusal::DescribeNotAllowed { tool, op } => (tool, "op", op),
        _ => return unknown_tool(name),
    };
    let listed = if allowed.is_empty() {
        "none".to_owned()
    } else {
        allowed.join(", ")
    };
    let message = match value {
        Some(value) => format!(
            "tool {tool:?} does not allow {discriminator} {:?} here (allowed: {listed})",
            short(value)
        ),
        None => format!("tool {tool:?} needs an allowed {discriminator} here (allowed: {listed})"),
    };
    let mut error = ErrorObject::invalid_params(message);
    let mut data = serde_json::Map::new();
    data.insert("tool".to_owned(), json!(tool));
    data.insert(discriminator.to_owned(), json!(value));
    data.insert("allowed".to_owned(), json!(allowed));
    error.data = Some(Value::Object(data));
    error
}

/// At most 128 characters of a caller's value, for a one-line message.
fn short(value: &str) -> String {
    let mut text: String = value.chars().take(128).collect();
    if text.len() < value.len() {
        text.push('…');
    }
    text
}
