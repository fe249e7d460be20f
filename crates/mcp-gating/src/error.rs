//! The error type of this crate.

use std::fmt;

/// Why an allowlist configuration was refused.
///
/// Each variant carries the offending input (server name, entry as written,
/// or policy name), so the message points at the mistake:
/// `server "door": entry "billing:" has an empty op after ':'`.
///
/// The crate's only normal dependency is `serde` (docs/ARCHITECTURE.md, "Crates and their direction"), so
/// `Display` and [`std::error::Error`] are written by hand rather than
/// derived with `thiserror`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// An entry is the empty string.
    EmptyEntry {
        /// The server whose list holds the entry.
        server: String,
    },
    /// An entry `":<op>"` has nothing before the `:`.
    EmptyToolName {
        /// The server whose list holds the entry.
        server: String,
        /// The entry as written.
        entry: String,
    },
    /// An entry `"<tool>:"` has nothing after the `:`.
    EmptyOp {
        /// The server whose list holds the entry.
        server: String,
        /// The entry as written.
        entry: String,
    },
    /// An entry has more than one `:`; the form is `"<tool>"` or
    /// `"<tool>:<op>"`, and `:` cannot occur in an MCP tool name.
    ExtraColon {
        /// The server whose list holds the entry.
        server: String,
        /// The entry as written.
        entry: String,
    },
    /// A policy name other than `fail-open` or `deny-by-default`.
    UnknownPolicy {
        /// The name as given.
        input: String,
    },
    /// The same server name appears twice in one configuration.
    DuplicateServer {
        /// The repeated server name.
        server: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyEntry { server } => {
                write!(
                    f,
                    "server {server:?}: an entry is empty; write \"<tool>\" or \"<tool>:<op>\""
                )
            }
            Self::EmptyToolName { server, entry } => {
                write!(
                    f,
                    "server {server:?}: entry {entry:?} has an empty tool name before ':'"
                )
            }
            Self::EmptyOp { server, entry } => {
                write!(
                    f,
                    "server {server:?}: entry {entry:?} has an empty op after ':'"
                )
            }
            Self::ExtraColon { server, entry } => write!(
                f,
                "server {server:?}: entry {entry:?} has more than one ':'; write \"<tool>\" or \"<tool>:<op>\""
            ),
            Self::UnknownPolicy { input } => write!(
                f,
                "unknown gating policy {input:?}; expected \"fail-open\" or \"deny-by-default\""
            ),
            Self::DuplicateServer { server } => {
                write!(f, "server {server:?} is configured twice")
            }
        }
    }
}

impl std::error::Error for ConfigError {}
