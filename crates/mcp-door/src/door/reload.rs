//! Reloading the documents while the door serves (HIP-0300 §1.4): the new
//! projection takes over for requests that arrive after it; a call in
//! flight keeps the projection it started with, so none is dropped; a
//! document that fails to load keeps its previous version, listed under
//! `hanzo.ai/unavailable` with the reason.

use std::sync::PoisonError;

use super::Door;
use crate::projection::Projection;
use crate::source::OpenApiSource;

/// What a reload did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Reloaded {
    /// Labels of the documents that loaded.
    pub loaded: Vec<String>,
    /// `(label, reason)` of each document that failed to load and whose
    /// previous version is served on.
    pub kept_previous: Vec<(String, String)>,
    /// `(label, reason)` of each document that failed to load and had no
    /// previous version: it offers nothing.
    pub failed: Vec<(String, String)>,
    /// Ops offered after the reload.
    pub ops: usize,
}

impl Door {
    /// Replaces the door's sources with `sources` (freshly loaded) and
    /// projects again. A source that failed to load takes the document of
    /// the current source with the same label, if it had one
    /// ([`OpenApiSource::or_previous`]). Each failure is counted in
    /// `mcp_door_document_load_errors_total`, the reload in
    /// `mcp_door_reloads_total`.
    pub fn reload(&self, sources: Vec<OpenApiSource>) -> Reloaded {
        let mut current = self.sources.lock().unwrap_or_else(PoisonError::into_inner);
        let mut report = Reloaded::default();
        let merged: Vec<OpenApiSource> = sources
            .into_iter()
            .map(|source| {
                let label = source.label().to_owned();
                let Some(reason) = source.load_error().map(str::to_owned) else {
                    report.loaded.push(label);
                    return source;
                };
                self.metrics().load_error(&label);
                match current.iter().find(|p| p.label() == label) {
                    Some(previous) if previous.is_loaded() => {
                        report.kept_previous.push((label, reason));
                        source.or_previous(previous)
                    }
                    _ => {
                        report.failed.push((label, reason));
                        source
                    }
                }
            })
            .collect();
        let projection = Projection::build(&merged, &self.config.projection);
        report.ops = projection.ops().count();
        self.install(projection);
        *current = merged;
        self.metrics()
            .reload(report.kept_previous.is_empty() && report.failed.is_empty());
        report
    }
}
