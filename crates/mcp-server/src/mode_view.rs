//! The views of a merged tool list that a session's mode narrows: one
//! [`ModeView`] per (merged list, layers) pair, shared by a server's
//! sessions in [`ModeViews`] (the server owns the cache; each session's
//! `mode` picks its layers), and the two steps every layer takes:
//! [`surface`] (the gated surface of one source's tools under a preset's
//! entries) and [`listed`] (the tools as the session lists them).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use mcp_gating::{AllowedTools, GatedSurface, Policy, SurfaceRules};
use mcp_proto::Tool;
use serde_json::value::RawValue;

use crate::source::MergedList;

/// The gating key the mode's entries are read under.
const MODE_SOURCE: &str = "mode";

/// `tools` (one source's, read with that source's `rules`) as the mode's
/// `entries` leave them (tools in their order, the discriminator enums
/// narrowed). Entries that cannot be read leave only `mode` (closed, not
/// open: a broken preset never widens anything).
pub(crate) fn surface(
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
pub(crate) fn listed(surface: &GatedSurface<Tool>, tools: &[Tool]) -> Vec<Tool> {
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

/// One source's tools as a view's layers leave them.
pub(crate) struct RunView {
    /// The names the source listed (before narrowing): a call of one of
    /// these is checked by this run's layers.
    pub(crate) tools: HashSet<String>,
    /// One surface per layer, each over what the layer before left.
    pub(crate) layers: Vec<GatedSurface<Tool>>,
}

/// One merged list as one set of layers leaves it: the routing surfaces
/// per source, the listed tools, and their rendered `tools/list` results
/// (one per form).
pub(crate) struct ModeView {
    pub(crate) merged: Arc<MergedList>,
    layers: Vec<Vec<String>>,
    pub(crate) runs: Vec<RunView>,
    /// The tools as listed ([`listed`]).
    pub(crate) tools: Vec<Tool>,
    /// The rendered results: the handshake form, then the stateless one.
    pub(crate) rendered: [OnceLock<Arc<RawValue>>; 2],
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
    pub(crate) fn get(&self, merged: &Arc<MergedList>, layers: &[Vec<String>]) -> Arc<ModeView> {
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
