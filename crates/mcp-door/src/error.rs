//! The crate's error type.

/// Why a door could not be built or a document could not be read.
///
/// A bad document is an error value with the offending input named, never a
/// panic (HIP-0300 §1.4: a document that fails to load is listed under
/// `hanzo.ai/unavailable` rather than stopping the door).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DoorError {
    /// The bytes are neither JSON nor YAML.
    #[error("document {source_label:?} is not JSON or YAML: {reason}")]
    Syntax {
        /// The document's label (its file name or the name given to it).
        source_label: String,
        /// The parser's message, with line and column where it has them.
        reason: String,
    },
    /// The document is larger than the door reads, or holds more once its
    /// YAML aliases are expanded than a document of its size can
    /// ([`crate::MAX_DOCUMENT_BYTES`]; twice its size in nodes or bytes of
    /// text).
    #[error("document {source_label:?} is refused: {reason}")]
    TooLarge {
        /// The document's label.
        source_label: String,
        /// Which bound it passed, with the figures.
        reason: String,
    },
    /// The document parsed but is not an OpenAPI 3.0 or 3.1 description.
    #[error("document {source_label:?} is not an OpenAPI 3.0 or 3.1 description: {reason}")]
    NotOpenApi {
        /// The document's label.
        source_label: String,
        /// What is missing or wrong, such as `"openapi" is "2.0"`.
        reason: String,
    },
    /// A document file could not be read.
    #[error("cannot read document {path:?}: {reason}")]
    Read {
        /// The path as given.
        path: String,
        /// The operating system's message, or why the file was not read
        /// (larger than [`crate::MAX_DOCUMENT_BYTES`]).
        reason: String,
    },
    /// An upstream base URL is not an absolute `http` or `https` URL.
    #[error("upstream {url:?} of document {source_label:?} is not an absolute http(s) URL")]
    Upstream {
        /// The document's label.
        source_label: String,
        /// The URL as given.
        url: String,
    },
    /// A command-line `FILE[=UPSTREAM]` or other configuration value is malformed.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The HTTP client for upstreams could not be built (TLS backend missing).
    #[error("cannot build the upstream HTTP client: {0}")]
    Client(String),
}
