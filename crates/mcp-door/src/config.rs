//! The door's configuration file (TOML): its documents (a file or a URL
//! each, with its upstream, exclusions, op name overrides and readiness
//! probe), where it listens, the issuer and the origins. `hanzo-mcp door
//! --config FILE` reads it; flags given beside it win.
//!
//! ```toml
//! listen = "0.0.0.0:8080"
//! issuer = "https://hanzo.id"
//! origin = "https://api.example.com"
//! allowed_origins = ["https://console.example.com"]
//! timeout_secs = 30
//! exclude_prefixes = ["/v1/admin"]
//!
//! [readiness]
//! probe_path = "/healthz"
//! probe_timeout_ms = 2000
//!
//! [[documents]]
//! file = "api.yaml"                  # relative to this file
//! upstream = "http://rest.internal:8080"
//! exclude_tags = ["internal"]
//! names = { placeOrder = "place_order", "GET /v1/items" = "list_items" }
//!
//! [[documents]]
//! url = "https://billing.internal/openapi.json"
//! probe = "/health"
//! ```
//!
//! An unknown key or a value of the wrong kind is an error naming the
//! key's path (`documents[1].upstream`) and the line; so is a value that
//! parses but cannot work (an upstream that is not an absolute http(s)
//! URL, a document with both or neither of `file` and `url`, an op name
//! that breaks the MCP tool-name rule).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::DoorError;
use crate::health::ReadinessConfig;
use crate::source::{MAX_DOCUMENT_BYTES, OpenApiSource, SourceOptions};

/// Why a configuration file was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read the configuration file {file:?}: {reason}")]
    Read {
        /// The file as named.
        file: String,
        /// The operating system's message.
        reason: String,
    },
    /// A key is unknown, a value has the wrong kind or cannot work.
    #[error("configuration file {file:?}: {key}: {reason}")]
    Invalid {
        /// The file as named.
        file: String,
        /// The key's path, such as `documents[1].upstream` (`.` for the
        /// top level).
        key: String,
        /// What is wrong, with the line and column where TOML gives them.
        reason: String,
    },
}

/// The configuration file as written. Every key is optional; unknown keys
/// are refused.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ConfigFile {
    /// Where to listen (`IP:PORT`).
    pub listen: Option<SocketAddr>,
    /// The authorization server the protected-resource metadata names
    /// (RFC 9728 `authorization_servers`, HIP-0300 §1.7).
    pub issuer: Option<String>,
    /// The public origin clients reach the door at
    /// (`https://api.example.com`).
    pub origin: Option<String>,
    /// Browser origins allowed to call the door besides its own
    /// (`https://console.example.com`).
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// The longest a forwarded call may take, in seconds (at least 1).
    pub timeout_secs: Option<u64>,
    /// Path prefixes whose operations are not offered, in every document.
    #[serde(default)]
    pub exclude_prefixes: Vec<String>,
    /// Tags whose operations are not offered, in every document.
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// What `GET /readyz` checks.
    #[serde(default)]
    pub readiness: ReadinessFile,
    /// The documents, in order.
    #[serde(default)]
    pub documents: Vec<DocumentFile>,
}

/// The `[readiness]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReadinessFile {
    /// The path probed on each upstream (default `/`).
    pub probe_path: Option<String>,
    /// How long a probe may take, in milliseconds (default 2,000).
    pub probe_timeout_ms: Option<u64>,
}

/// One `[[documents]]` table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DocumentFile {
    /// The document's file; a relative path is read from the
    /// configuration file's folder.
    pub file: Option<PathBuf>,
    /// The document's `http(s)` URL, fetched at start and at each reload.
    pub url: Option<String>,
    /// The base URL calls are forwarded to (default: the document's first
    /// absolute `servers[].url`).
    pub upstream: Option<String>,
    /// Path prefixes of this document whose operations are not offered.
    #[serde(default)]
    pub exclude_prefixes: Vec<String>,
    /// Tags of this document whose operations are not offered.
    #[serde(default)]
    pub exclude_tags: Vec<String>,
    /// Op names to use, keyed by `operationId` or `"METHOD /path"`.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// The path `GET /readyz` probes on this document's upstream.
    pub probe: Option<String>,
}

/// Where a document is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentLocation {
    /// A file (already resolved against the configuration file's folder).
    File(PathBuf),
    /// An `http(s)` URL.
    Url(String),
}

/// One document to load: where from, its upstream and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSpec {
    /// Where the document is read from.
    pub location: DocumentLocation,
    /// The upstream base URL, if configured.
    pub upstream: Option<String>,
    /// Exclusions, names and probe.
    pub options: SourceOptions,
}

impl ConfigFile {
    /// Reads and checks the configuration file at `path`.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read,
    /// [`ConfigError::Invalid`] naming the key for anything else.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        Self::parse(&file, &text)
    }

    /// Parses and checks configuration `text`; `file` names it in errors.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the key's path.
    pub fn parse(file: &str, text: &str) -> Result<ConfigFile, ConfigError> {
        let invalid = |key: String, reason: String| ConfigError::Invalid {
            file: file.to_owned(),
            key,
            reason,
        };
        let deserializer = toml::Deserializer::parse(text)
            .map_err(|e| invalid(".".into(), one_line(&e.to_string())))?;
        let config: ConfigFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let key = e.path().to_string();
            invalid(key, one_line(&e.into_inner().to_string()))
        })?;
        config
            .check()
            .map_err(|(key, reason)| invalid(key, reason))?;
        Ok(config)
    }

    /// The checks TOML types cannot state.
    fn check(&self) -> Result<(), (String, String)> {
        for (key, url) in [("issuer", &self.issuer), ("origin", &self.origin)] {
            if let Some(url) = url
                && !is_http_url(url)
            {
                return Err((
                    key.into(),
                    format!("{url:?} is not an absolute http(s) URL"),
                ));
            }
        }
        for (i, origin) in self.allowed_origins.iter().enumerate() {
            if !is_http_url(origin) {
                return Err((
                    format!("allowed_origins[{i}]"),
                    format!("{origin:?} is not an absolute http(s) origin"),
                ));
            }
        }
        if self.timeout_secs == Some(0) {
            return Err(("timeout_secs".into(), "must be at least 1".into()));
        }
        if let Some(p) = &self.readiness.probe_path
            && !p.starts_with('/')
        {
            return Err((
                "readiness.probe_path".into(),
                format!("{p:?} must start with /"),
            ));
        }
        if self.readiness.probe_timeout_ms == Some(0) {
            return Err((
                "readiness.probe_timeout_ms".into(),
                "must be at least 1".into(),
            ));
        }
        for (i, doc) in self.documents.iter().enumerate() {
            doc.check()
                .map_err(|(key, reason)| (format!("documents[{i}].{key}"), reason))?;
        }
        Ok(())
    }

    /// The documents to load, relative files resolved against `base` (the
    /// configuration file's folder).
    pub fn document_specs(&self, base: &Path) -> Vec<DocumentSpec> {
        self.documents.iter().map(|d| d.spec(base)).collect()
    }

    /// The `[readiness]` settings over the defaults.
    pub fn readiness(&self) -> ReadinessConfig {
        let mut readiness = ReadinessConfig::default();
        if let Some(p) = &self.readiness.probe_path {
            readiness.probe_path.clone_from(p);
        }
        if let Some(ms) = self.readiness.probe_timeout_ms {
            readiness.probe_timeout = Duration::from_millis(ms);
        }
        readiness
    }
}

impl DocumentFile {
    fn check(&self) -> Result<(), (String, String)> {
        match (&self.file, &self.url) {
            (Some(_), Some(_)) => {
                return Err(("url".into(), "give either `file` or `url`, not both".into()));
            }
            (None, None) => return Err(("file".into(), "give `file` or `url`".into())),
            (None, Some(url)) if !is_http_url(url) => {
                return Err((
                    "url".into(),
                    format!("{url:?} is not an absolute http(s) URL"),
                ));
            }
            _ => {}
        }
        if let Some(u) = &self.upstream
            && !is_http_url(u)
        {
            return Err((
                "upstream".into(),
                format!("{u:?} is not an absolute http(s) URL"),
            ));
        }
        if let Some(p) = &self.probe
            && !p.starts_with('/')
        {
            return Err(("probe".into(), format!("{p:?} must start with /")));
        }
        for (key, name) in &self.names {
            if let Err(e) = mcp_proto::validate_tool_name(name) {
                return Err((format!("names.{key:?}"), format!("{name:?}: {e}")));
            }
        }
        Ok(())
    }

    fn spec(&self, base: &Path) -> DocumentSpec {
        let location = match (&self.file, &self.url) {
            (Some(file), _) => DocumentLocation::File(base.join(file)),
            (None, Some(url)) => DocumentLocation::Url(url.clone()),
            (None, None) => DocumentLocation::File(PathBuf::new()),
        };
        DocumentSpec {
            location,
            upstream: self.upstream.clone(),
            options: SourceOptions {
                excluded_prefixes: self.exclude_prefixes.clone(),
                excluded_tags: self.exclude_tags.clone(),
                names: self.names.clone(),
                probe: self.probe.clone(),
            },
        }
    }
}

impl DocumentSpec {
    /// A document given on the command line as `FILE[=UPSTREAM]`.
    ///
    /// # Errors
    /// [`DoorError::Config`] for an empty file name.
    pub fn from_arg(arg: &str) -> Result<DocumentSpec, DoorError> {
        let (file, upstream) = match arg.split_once('=') {
            Some((f, u)) => (f, Some(u.to_owned())),
            None => (arg, None),
        };
        if file.is_empty() {
            return Err(DoorError::Config(format!(
                "{arg:?}: expected FILE or FILE=UPSTREAM"
            )));
        }
        Ok(DocumentSpec {
            location: DocumentLocation::File(PathBuf::from(file)),
            upstream,
            options: SourceOptions::default(),
        })
    }

    /// Reads the document: a file through [`OpenApiSource::from_file`], a
    /// URL with `client` (a 2xx answer, at most [`MAX_DOCUMENT_BYTES`],
    /// within `timeout`), parsed on the blocking pool. A document that
    /// cannot be read or parsed is a source that failed to load, labelled
    /// with the path or URL, never an error.
    pub async fn load(&self, client: &reqwest::Client, timeout: Duration) -> OpenApiSource {
        let upstream = self.upstream.clone();
        let source = match &self.location {
            DocumentLocation::File(path) => {
                let path = path.clone();
                let label = path.display().to_string();
                let up = upstream.clone();
                tokio::task::spawn_blocking(move || OpenApiSource::from_file(&path, up.as_deref()))
                    .await
                    .unwrap_or_else(|e| {
                        OpenApiSource::failed(label, e.to_string(), upstream.as_deref())
                    })
            }
            DocumentLocation::Url(url) => match fetch(client, url, timeout).await {
                Ok(bytes) => {
                    let label = url.clone();
                    let up = upstream.clone();
                    tokio::task::spawn_blocking(move || {
                        OpenApiSource::from_bytes(label, &bytes, up.as_deref())
                    })
                    .await
                    .unwrap_or_else(|e| {
                        OpenApiSource::failed(url.clone(), e.to_string(), upstream.as_deref())
                    })
                }
                Err(reason) => OpenApiSource::failed(url.clone(), reason, upstream.as_deref()),
            },
        };
        source.with_options(self.options.clone())
    }
}

/// Loads every document of `specs`, in order ([`DocumentSpec::load`]),
/// URLs fetched with one client whose requests take at most `timeout`.
pub async fn load_documents(specs: &[DocumentSpec], timeout: Duration) -> Vec<OpenApiSource> {
    let client = reqwest::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
        .unwrap_or_default();
    let mut sources = Vec::with_capacity(specs.len());
    for spec in specs {
        sources.push(spec.load(&client, timeout).await);
    }
    sources
}

/// The body of `GET url`, refused past [`MAX_DOCUMENT_BYTES`] or on a
/// status other than 2xx.
async fn fetch(client: &reqwest::Client, url: &str, timeout: Duration) -> Result<Vec<u8>, String> {
    let read = async {
        let mut response = client.get(url).send().await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
            if (bytes.len() + chunk.len()) as u64 > MAX_DOCUMENT_BYTES {
                return Err(format!(
                    "larger than {} MiB; not read",
                    MAX_DOCUMENT_BYTES >> 20
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    };
    tokio::time::timeout(timeout, read)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "GET {url}: no answer within {} s",
                timeout.as_secs()
            ))
        })
}

fn is_http_url(u: &str) -> bool {
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/'))
}

/// TOML's message on one line: what is wrong, then where (`unknown field
/// `x`, expected one of ... (line 3, column 1)`), without the quoted
/// snippet of the file.
fn one_line(message: &str) -> String {
    let mut location = None;
    let mut parts = Vec::new();
    for line in message.lines().map(str::trim) {
        let snippet = line
            .split_once('|')
            .is_some_and(|(before, _)| before.trim().chars().all(|c| c.is_ascii_digit()));
        if line.is_empty() || snippet {
            continue;
        }
        match line.strip_prefix("TOML parse error at ") {
            Some(at) => location = Some(at.to_owned()),
            None => parts.push(line),
        }
    }
    let text = parts.join(" ");
    match location {
        Some(at) => format!("{text} ({at})"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        ConfigFile::parse("door.toml", text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_full_file_parses() {
        let text = r#"
            listen = "127.0.0.1:9000"
            issuer = "https://hanzo.id"
            timeout_secs = 5
            [readiness]
            probe_path = "/healthz"
            [[documents]]
            file = "api.yaml"
            upstream = "http://127.0.0.1:1"
            names = { placeOrder = "place_order" }
            [[documents]]
            url = "http://127.0.0.1:2/openapi.json"
        "#;
        let config = ConfigFile::parse("door.toml", text).unwrap();
        assert_eq!(config.listen, Some("127.0.0.1:9000".parse().unwrap()));
        let specs = config.document_specs(Path::new("/etc/door"));
        assert_eq!(
            specs[0].location,
            DocumentLocation::File("/etc/door/api.yaml".into())
        );
        assert_eq!(specs[0].options.names["placeOrder"], "place_order");
        assert_eq!(
            specs[1].location,
            DocumentLocation::Url("http://127.0.0.1:2/openapi.json".into())
        );
        assert_eq!(config.readiness().probe_path, "/healthz");
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            (
                "listne = \"x\"",
                "door.toml\": listne: unknown field `listne`, expected one of `listen`",
            ),
            ("listen = \"nowhere\"", ": listen: "),
            ("timeout_secs = \"ten\"", ": timeout_secs: "),
            ("timeout_secs = 0", ": timeout_secs: must be at least 1"),
            (
                "[[documents]]\nfile = \"a\"\n[[documents]]\nfile = \"b\"\nupstream = \"ftp://x\"",
                ": documents[1].upstream: \"ftp://x\" is not an absolute http(s) URL",
            ),
            (
                "[[documents]]\nfile = \"a\"\nupstrem = \"http://x\"",
                ": documents[0].upstrem: unknown field `upstrem`",
            ),
            (
                "[[documents]]\nupstream = \"http://x\"",
                ": documents[0].file: give `file` or `url`",
            ),
            (
                "[[documents]]\nfile = \"a\"\nnames = { x = \"bad name!\" }",
                ": documents[0].names.\"x\": \"bad name!\"",
            ),
            (
                "[readiness]\nprobe_path = \"healthz\"",
                ": readiness.probe_path: ",
            ),
        ];
        for (text, expected) in cases {
            let message = error(text);
            assert!(message.contains(expected), "{text:?}: {message}");
        }
    }
}
