//! The sources of a door: an OpenAPI document each, and the upstream its
//! operations are forwarded to.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::error::DoorError;
use crate::openapi;

/// One OpenAPI document and the upstream its operations are forwarded to.
///
/// The document is parsed when the source is made; a document that fails
/// to load is kept as its error and reported under `hanzo.ai/unavailable`.
#[derive(Debug, Clone)]
pub struct OpenApiSource {
    label: String,
    document: Result<Arc<Value>, String>,
    upstream: Option<String>,
    available: bool,
    options: SourceOptions,
    /// Why the last reload of this source failed while an earlier document
    /// is still served (HIP-0300 §1.4 `hanzo.ai/unavailable`).
    stale: Option<String>,
}

/// What one document's configuration adds to the door-wide
/// [`ProjectionConfig`](crate::ProjectionConfig): its own exclusions, op
/// name overrides and readiness probe (the `[[documents]]` tables of the
/// configuration file, [`crate::ConfigFile`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceOptions {
    /// Path prefixes of this document whose operations are not offered,
    /// by whole segments.
    pub excluded_prefixes: Vec<String>,
    /// Tags (or subsystem names) of this document whose operations are not
    /// offered, compared after normalisation.
    pub excluded_tags: Vec<String>,
    /// Op names to use instead of the derived ones, keyed by the
    /// operation's `operationId` or by `"METHOD /path"` (`"GET /v1/items"`).
    pub names: BTreeMap<String, String>,
    /// The path on the upstream that `GET /readyz` probes (`/healthz`);
    /// `None` takes [`crate::ReadinessConfig::probe_path`].
    pub probe: Option<String>,
}

impl OpenApiSource {
    /// A source from the bytes of a JSON or YAML document. `upstream` is
    /// the base URL operations are sent to (`https://api.example.com`);
    /// without it, the document's first absolute `servers[].url` is used.
    pub fn from_bytes(label: impl Into<String>, bytes: &[u8], upstream: Option<&str>) -> Self {
        let label = label.into();
        let document = openapi::parse_document(&label, bytes)
            .map(Arc::new)
            .map_err(|e| e.to_string());
        Self::with(label, document, upstream)
    }

    /// A source from a document file; a file that cannot be read becomes a
    /// source that failed to load, labelled with the path.
    pub fn from_file(path: impl AsRef<Path>, upstream: Option<&str>) -> Self {
        let path = path.as_ref();
        let label = path.display().to_string();
        match read_capped(path) {
            Ok(bytes) => Self::from_bytes(label, &bytes, upstream),
            Err(reason) => {
                let reason = DoorError::Read {
                    path: label.clone(),
                    reason,
                }
                .to_string();
                Self::with(label, Err(reason), upstream)
            }
        }
    }

    /// A source from the command-line form `FILE[=UPSTREAM]`.
    ///
    /// # Errors
    /// [`DoorError::Config`] for an empty file name.
    pub fn from_arg(arg: &str) -> Result<Self, DoorError> {
        let (file, upstream) = match arg.split_once('=') {
            Some((f, u)) => (f, Some(u)),
            None => (arg, None),
        };
        if file.is_empty() {
            return Err(DoorError::Config(format!(
                "{arg:?}: expected FILE or FILE=UPSTREAM"
            )));
        }
        Ok(Self::from_file(file, upstream))
    }

    /// A source that failed to load for `reason` (a URL that did not
    /// answer, say).
    pub(crate) fn failed(label: String, reason: String, upstream: Option<&str>) -> Self {
        Self::with(label, Err(reason), upstream)
    }

    /// A source from a document already parsed (or the reason it failed).
    pub(crate) fn with(
        label: String,
        document: Result<Arc<Value>, String>,
        upstream: Option<&str>,
    ) -> Self {
        Self {
            label,
            document,
            upstream: upstream.map(str::to_owned),
            available: true,
            options: SourceOptions::default(),
            stale: None,
        }
    }

    /// This source with `options` (per-document exclusions, names, probe).
    #[must_use]
    pub fn with_options(mut self, options: SourceOptions) -> Self {
        self.options = options;
        self
    }

    /// The per-document options.
    pub fn options(&self) -> &SourceOptions {
        &self.options
    }

    /// Whether the document loaded (now, or at an earlier load that a
    /// failed reload kept).
    pub fn is_loaded(&self) -> bool {
        self.document.is_ok()
    }

    /// Why the document could not be loaded, if it could not.
    pub fn load_error(&self) -> Option<&str> {
        self.document.as_ref().err().map(String::as_str)
    }

    /// The upstream base URL as configured (`None`: the document's
    /// `servers[].url`; see `upstream_url`).
    pub fn configured_upstream(&self) -> Option<&str> {
        self.upstream.as_deref()
    }

    /// The upstream calls go to, when it can be told: the configured one,
    /// else the loaded document's first absolute `servers[].url`.
    pub fn upstream(&self) -> Option<String> {
        let doc = self.document.as_ref().ok()?;
        self.upstream_url(doc).ok().flatten()
    }

    /// When this source failed to load and `previous` (the same label, an
    /// earlier load) had a document: `previous`'s document, served on,
    /// with this load's error as its stale reason. Otherwise this source.
    #[must_use]
    pub fn or_previous(self, previous: &OpenApiSource) -> Self {
        match (&self.document, &previous.document) {
            (Err(reason), Ok(document)) => Self {
                document: Ok(Arc::clone(document)),
                stale: Some(format!(
                    "reload failed ({reason}); the previously loaded document is served"
                )),
                ..self
            },
            _ => self,
        }
    }

    /// Why the last reload failed while an earlier document is still
    /// served, if it did.
    pub fn stale_reason(&self) -> Option<&str> {
        self.stale.as_deref()
    }

    /// The op name configured for the operation `method` `path` (with
    /// `operation_id`), if any ([`SourceOptions::names`]).
    pub(crate) fn name_override(
        &self,
        method: &str,
        path: &str,
        operation_id: Option<&str>,
    ) -> Option<&str> {
        let names = &self.options.names;
        if names.is_empty() {
            return None;
        }
        operation_id
            .and_then(|id| names.get(id))
            .or_else(|| names.get(&format!("{} {path}", method.to_ascii_uppercase())))
            .map(String::as_str)
    }

    /// The parsed document, or why it could not be loaded.
    pub(crate) fn document(&self) -> Result<&Arc<Value>, &str> {
        self.document.as_ref().map_err(String::as_str)
    }

    /// Whether the source's upstream is available (see
    /// [`set_available`](Self::set_available)).
    pub(crate) fn is_available(&self) -> bool {
        self.available
    }

    /// The source's label: the file path or the name it was given.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Marks the source's upstream as unavailable (or available again): an
    /// unavailable source's operations are not offered and it is listed
    /// under `hanzo.ai/unavailable`.
    pub fn set_available(&mut self, available: bool) {
        self.available = available;
    }

    /// The base URL calls go to: the given upstream, else the document's
    /// first absolute `servers[].url`.
    pub(crate) fn upstream_url(&self, doc: &Value) -> Result<Option<String>, DoorError> {
        if let Some(u) = &self.upstream {
            return if is_http_url(u) {
                Ok(Some(u.trim_end_matches('/').to_owned()))
            } else {
                Err(DoorError::Upstream {
                    source_label: self.label.clone(),
                    url: u.clone(),
                })
            };
        }
        Ok(doc
            .get("servers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("url").and_then(Value::as_str))
            .find(|u| is_http_url(u))
            .map(|u| u.trim_end_matches('/').to_owned()))
    }
}

fn is_http_url(u: &str) -> bool {
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

/// The largest API description [`OpenApiSource::from_file`] reads: 64 MiB
/// (the GitHub REST description, among the largest, is 11 MB as JSON).
pub const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// The bytes of the file at `path`, refused past [`MAX_DOCUMENT_BYTES`]
/// (read no further, so `/dev/zero` or a runaway file costs no memory).
fn read_capped(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(format!(
            "larger than {} MiB; not read",
            MAX_DOCUMENT_BYTES >> 20
        ));
    }
    Ok(bytes)
}
