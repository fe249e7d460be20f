//! The session's `mode`: the preset the `mode` tool chose for this session
//! narrows its tools through the gating layer, after and never wider than
//! the server's own allowlist (which shaped the merged list already). A
//! tool or action the mode leaves out is neither listed nor routable: a
//! call to it is refused exactly as a gated-out one. `mode` itself is
//! always kept. Each session has its own number, so one session's mode
//! never changes another's tools; a change is announced with
//! `notifications/tools/list_changed`.

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

/// The allowlist entries of a session's mode (`None`: it narrows nothing).
pub(super) type Narrowing = Option<Vec<String>>;

impl Session {
    /// The entries this session's mode allows, when it narrows anything.
    pub(super) fn narrowing(&self) -> Narrowing {
        self.server.modes()?.allowed_for(self.number)
    }
}

/// `tools` as the mode's `entries` leave them (tools in their order, the
/// `action` enums narrowed). Entries that cannot be read leave only `mode`
/// (closed, not open: a broken preset never widens anything).
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

/// Refuses `call` when the view's mode leaves its tool or action out:
/// -32602 as for a gated-out call (unknown tool, or the allowed actions).
pub(super) fn check_call(view: &ModeView, call: &CallRequest) -> Result<(), ErrorObject> {
    let surface = &view.surface;
    let params = call.params()?;
    match surface.check_call_arguments(call.name(), params.arguments.as_ref()) {
        CallDecision::Permitted => Ok(()),
        CallDecision::Refused(why) => {
            let allowed = surface.allowed_values(call.name()).unwrap_or_default();
            Err(refused_call(call.name(), &why, allowed))
        }
        CallDecision::NotOwned => Err(unknown_tool(call.name())),
    }
}

/// One merged list as one preset leaves it: the routing surface, the
/// listed tools, and their rendered `tools/list` results (one per form).
pub(crate) struct ModeView {
    merged: Arc<MergedList>,
    entries: Vec<String>,
    surface: GatedSurface<Tool>,
    /// The tools as listed ([`listed`]).
    pub(super) tools: Vec<Tool>,
    /// The rendered results: the handshake form, then the stateless one.
    pub(super) rendered: [OnceLock<Arc<RawValue>>; 2],
}

/// The views of the most recent (merged list, preset) pairs, shared by a
/// server's sessions, so that a narrowing mode costs a lookup per
/// `tools/list` and `tools/call`, not a rebuild of every tool's schema.
pub(crate) struct ModeViews {
    views: Mutex<Vec<Arc<ModeView>>>,
    /// The tools' action aliases, `(tool, alias, action)`.
    aliases: Vec<(&'static str, &'static str, &'static str)>,
    /// How presets are read: `action` entries, with the aliases (built on
    /// the first view: a session that never narrows never needs it).
    rules: OnceLock<SurfaceRules>,
}

/// How many views are kept (most recent first).
const VIEWS_KEPT: usize = 8;

impl Default for ModeViews {
    fn default() -> Self {
        Self::with_aliases(&[])
    }
}

impl ModeViews {
    /// No views yet; presets read with the action `aliases`
    /// (`(tool, alias, action)`).
    pub(crate) fn with_aliases(aliases: &[(&'static str, &'static str, &'static str)]) -> Self {
        Self {
            views: Mutex::default(),
            aliases: aliases.to_vec(),
            rules: OnceLock::new(),
        }
    }

    fn rules(&self) -> &SurfaceRules {
        self.rules
            .get_or_init(|| SurfaceRules::local().with_aliases(self.aliases.iter().copied()))
    }

    /// The view of `merged` under `entries`, built on the first request.
    pub(super) fn get(&self, merged: &Arc<MergedList>, entries: &[String]) -> Arc<ModeView> {
        let mut views = self.views.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = views
            .iter()
            .position(|v| Arc::ptr_eq(&v.merged, merged) && v.entries == entries)
        {
            let view = views.remove(at);
            views.insert(0, view.clone());
            return view;
        }
        let tools = &merged.list().tools;
        // One gating serves both the routing and the listed tools.
        let gated = surface(entries, tools, self.rules());
        let view = Arc::new(ModeView {
            merged: merged.clone(),
            entries: entries.to_vec(),
            tools: listed(&gated, tools),
            surface: gated,
            rendered: Default::default(),
        });
        views.insert(0, view.clone());
        views.truncate(VIEWS_KEPT);
        view
    }
}
