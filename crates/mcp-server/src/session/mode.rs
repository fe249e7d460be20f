//! The session's `mode`: the preset the `mode` tool chose for this session
//! narrows its tools through the gating layer, after and never wider than
//! the server's own allowlist (which shaped the merged list already). A
//! tool or action the mode leaves out is neither listed nor routable: a
//! call to it is refused exactly as a gated-out one. `mode` itself is
//! always kept. Each session has its own number, so one session's mode
//! never changes another's tools; a change is announced with
//! `notifications/tools/list_changed`.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_gating::CallDecision;
use mcp_proto::ErrorObject;

use super::Session;
use crate::mode_view::ModeView;
use crate::source::{CallRequest, unknown_tool};
use mcp_sources::gated::refused_call;

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
            format!("mode {name:?}, which the host set for every session at start and no session can leave")
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
    let discriminators: Vec<&str> = surfaces
        .iter()
        .map(|surface| surface.rules().discriminator.as_str())
        .collect();
    call.refuse_duplicated_keys(&discriminators)?;
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
