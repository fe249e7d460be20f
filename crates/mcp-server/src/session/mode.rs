//! The session's `mode`: the preset the `mode` tool chose for this session
//! narrows its tools through the gating layer, after and never wider than
//! the server's own allowlist (which shaped the merged list already). A
//! tool or action the mode leaves out is neither listed nor routable: a
//! call to it is refused exactly as a gated-out one. `mode` itself is
//! always kept. Each session has its own number, so one session's mode
//! never changes another's tools; a change is announced with
//! `notifications/tools/list_changed`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::value::RawValue;

use mcp_gating::{AllowedTools, CallDecision, GatedSurface, Policy, SurfaceRules};
use mcp_proto::{ErrorObject, Tool};

use super::Session;
use crate::gated::refused_call;
use crate::source::{CallRequest, MergedList, unknown_tool};

/// The gating key the mode's entries are read under.
const MODE_SOURCE: &str = "mode";

/// Numbers sessions: 0 is never given out (it is the default of a
/// [`crate::CallContext`] made outside a session).
static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// A fresh session number.
pub(super) fn next_session() -> u64 {
    NEXT_SESSION.fetch_add(1, Ordering::Relaxed)
}

/// What narrows a session's tools: the layers of allowlist entries that
/// apply one after the other (the host's `--mode` floor, then the
/// session's own mode), each narrowing what the one before left; `None`
/// when nothing narrows.
pub(super) type Narrowing = Option<Vec<Vec<String>>>;

impl Session {
    /// What each layer of [`Session::narrowing`] is, for a refusal: the
    /// host's `--mode` floor, then the session's own mode.
    pub(super) fn narrowing_labels(&self) -> Vec<String> {
        let floor = self.server.mode_floor_name().map(|name| {
            format!("mode {name:?}, which the host sets for every session (--mode) and no session can leave")
        });
        let own = self.server.modes().and_then(|modes| {
            modes.allowed_for(self.number)?;
            let name = modes.current_name(self.number);
            Some(format!(
                "this session's mode {name:?}; `mode set full` (or `mode reset`) leaves it"
            ))
        });
        floor.into_iter().chain(own).collect()
    }

    /// The layers narrowing this session's tools, when any does.
    pub(super) fn narrowing(&self) -> Narrowing {
        let floor = self.server.mode_floor();
        let own = self
            .server
            .modes()
            .and_then(|modes| modes.allowed_for(self.number));
        let layers: Vec<Vec<String>> = floor.into_iter().cloned().chain(own).collect();
        (!layers.is_empty()).then_some(layers)
    }
}

/// `tools` (one source's, read with that source's `rules`) as the mode's
/// `entries` leave them (tools in their order, the discriminator enums
/// narrowed). Entries that cannot be read leave only `mode` (closed, not
/// open: a broken preset never widens anything).
pub(super) fn surface(
    entries: &[String],
    tools: &[Tool],
    rules: &SurfaceRules,
) -> GatedSurface<Tool> {
    let allowed = AllowedTools::from_servers([(MODE_SOURCE, entries)]).unwrap_or_else(|error| {
        tracing::warn!(%error, "a mode preset cannot be read; only `mode` stays");
        AllowedTools::from_servers([(MODE_SOURCE, ["mode"])])
            .expect("`mode` is a valid allowlist entry")
    });
    GatedSurface::new(
        MODE_SOURCE,
        tools,
        &allowed,
        Policy::FailOpen,
        rules.clone(),
    )
}

/// `tools` as this session lists them under the mode's `entries`: the
/// [`surface`]'s tools, each with at most one "Allowed here" sentence. A
/// tool the allowlist narrowed already ends with one; narrowing it again
/// appends another, so the earlier one is dropped (the later names what is
/// left after both).
pub(super) fn listed(surface: &GatedSurface<Tool>, tools: &[Tool]) -> Vec<Tool> {
    let mut listed = surface.tools().to_vec();
    // The surface keeps tools in their order: walk both lists once.
    let mut originals = tools.iter();
    for tool in &mut listed {
        let Some(before) = originals.find(|t| t.name == tool.name) else {
            break;
        };
        if let (Some(old), Some(new)) = (&before.description, &mut tool.description)
            && let Some(kept) = without_earlier_sentence(old, new)
        {
            *new = kept;
        }
    }
    listed
}

/// How the gating layer's sentence naming the kept values starts.
const ALLOWED_HERE: &str = "\n\nAllowed here: `";

/// `new`, which is `old` and the sentence this narrowing appended, without
/// the sentence `old` ended with; `None` when either is missing.
fn without_earlier_sentence(old: &str, new: &str) -> Option<String> {
    let added = new.strip_prefix(old)?;
    if !added.starts_with(ALLOWED_HERE) {
        return None;
    }
    let at = old.rfind(ALLOWED_HERE)?;
    if old[at + ALLOWED_HERE.len()..].contains('\n') {
        return None;
    }
    Some(format!("{}{added}", &old[..at]))
}

/// Refuses `call` when the view leaves its tool or action out: -32602 as
/// for a gated-out call (unknown tool, or the allowed values), checked by
/// every layer with the rules of the source the tool came from. A call
/// that names its discriminator twice is refused
/// ([`CallRequest::duplicated_discriminator`]).
///
/// A refusal by a layer says which: `labels` names each layer (the
/// host's floor, the session's mode; [`Session::narrowing_labels`]).
pub(super) fn check_call(
    view: &ModeView,
    call: &CallRequest,
    labels: &[String],
) -> Result<(), ErrorObject> {
    let Some(surfaces) = view
        .runs
        .iter()
        .find(|run| run.tools.contains(call.name()))
        .map(|run| &run.layers)
    else {
        return Err(unknown_tool(call.name()));
    };
    call.refuse_duplicated_discriminator()?;
    let params = call.params()?;
    // The layers of the allowlist come first; the mode layers are the
    // last `labels.len()`.
    let first_mode = surfaces.len().saturating_sub(labels.len());
    for (i, surface) in surfaces.iter().enumerate() {
        let label = i.checked_sub(first_mode).and_then(|at| labels.get(at));
        let error = match surface.check_call_arguments(call.name(), params.arguments.as_ref()) {
            CallDecision::Permitted => continue,
            CallDecision::Refused(why) => {
                let allowed = surface.allowed_values(call.name()).unwrap_or_default();
                let error = refused_call(call.name(), &why, allowed);
                // A value the listed tool never offered was refused by the
                // allowlist, not by the mode.
                if !listed_offers(view, call.name(), &why) {
                    return Err(error);
                }
                error
            }
            CallDecision::NotOwned => match label {
                Some(_) => {
                    let mut error = unknown_tool(call.name());
                    error.message = format!("tool {:?} is hidden", call.name());
                    error
                }
                None => unknown_tool(call.name()),
            },
        };
        return Err(match label {
            Some(label) => by_mode(error, label),
            None => error,
        });
    }
    Ok(())
}

/// Whether the tool `name` as the merged list has it (before any mode)
/// offers the value `why` refused: its discriminator's enum holds it, or
/// it has no enum (`false` when the call gave no value).
fn listed_offers(view: &ModeView, name: &str, why: &mcp_gating::Refusal) -> bool {
    let mcp_gating::Refusal::OpNotAllowed {
        discriminator,
        value,
        ..
    } = why
    else {
        return true;
    };
    // A call without the discriminator is refused whatever the mode.
    let Some(value) = value else {
        return false;
    };
    let Some(tool) = view.merged.list().tools.iter().find(|t| t.name == name) else {
        return true;
    };
    match tool
        .input_schema
        .get("properties")
        .and_then(|p| p.get(discriminator.as_str()))
        .and_then(|d| d.get("enum"))
        .and_then(|e| e.as_array())
    {
        Some(values) => values.iter().any(|v| v.as_str() == Some(value)),
        None => true,
    }
}

/// `error` with the mode that refused it named: `... by mode "review";
/// mode set full leaves it`.
fn by_mode(mut error: ErrorObject, label: &str) -> ErrorObject {
    error.message = format!("{} by {label}", error.message);
    error
}

/// One source's tools as a view's layers leave them.
struct RunView {
    /// The names the source listed (before narrowing): a call of one of
    /// these is checked by this run's layers.
    tools: HashSet<String>,
    /// One surface per layer, each over what the layer before left.
    layers: Vec<GatedSurface<Tool>>,
}

/// One merged list as one set of layers leaves it: the routing surfaces
/// per source, the listed tools, and their rendered `tools/list` results
/// (one per form).
pub(crate) struct ModeView {
    merged: Arc<MergedList>,
    layers: Vec<Vec<String>>,
    runs: Vec<RunView>,
    /// The tools as listed ([`listed`]).
    pub(super) tools: Vec<Tool>,
    /// The rendered results: the handshake form, then the stateless one.
    pub(super) rendered: [OnceLock<Arc<RawValue>>; 2],
}

/// The views of the most recent (merged list, layers) pairs, shared by a
/// server's sessions, so that a narrowing mode costs a lookup per
/// `tools/list` and `tools/call`, not a rebuild of every tool's schema.
#[derive(Default)]
pub(crate) struct ModeViews {
    views: Mutex<Vec<Arc<ModeView>>>,
}

/// How many views are kept (most recent first).
const VIEWS_KEPT: usize = 8;

impl ModeViews {
    /// The view of `merged` under `layers`, built on the first request.
    /// Each source's tools are read with that source's rules (`action`
    /// for local tools, `op` and `describe` for the door's).
    pub(super) fn get(&self, merged: &Arc<MergedList>, layers: &[Vec<String>]) -> Arc<ModeView> {
        let mut views = self.views.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = views
            .iter()
            .position(|v| Arc::ptr_eq(&v.merged, merged) && v.layers == layers)
        {
            let view = views.remove(at);
            views.insert(0, view.clone());
            return view;
        }
        let all = &merged.list().tools;
        let mut runs = Vec::new();
        let mut tools = Vec::new();
        for run in merged.runs() {
            let original = &all[run.tools.clone()];
            let mut current = original.to_vec();
            let mut surfaces = Vec::new();
            for entries in layers {
                let gated = surface(entries, &current, &run.rules);
                current = listed(&gated, &current);
                surfaces.push(gated);
            }
            tools.extend(current);
            runs.push(RunView {
                tools: original.iter().map(|t| t.name.clone()).collect(),
                layers: surfaces,
            });
        }
        let view = Arc::new(ModeView {
            merged: merged.clone(),
            layers: layers.to_vec(),
            runs,
            tools,
            rendered: Default::default(),
        });
        views.insert(0, view.clone());
        views.truncate(VIEWS_KEPT);
        view
    }
}
