//! The server's error type.

/// What can stop `hanzo-mcp` (as opposed to a request's error, which is a
/// JSON-RPC error response and never stops the server).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// Reading the input stream (stdin) failed.
    #[error("reading the input failed: {0}")]
    Read(#[source] std::io::Error),
    /// Writing the output stream (stdout) failed.
    #[error("writing the output failed: {0}")]
    Write(#[source] std::io::Error),
    /// The configuration given on the command line or in the environment is
    /// unusable; the message names the problem.
    #[error("configuration: {0}")]
    Config(String),
}
