//! [`Error`]: every error this crate returns, for callers that want one
//! type.

use crate::decode::DecodeError;
use crate::message::MessageError;

/// Every error this crate returns, for callers that want one type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A message could not be read (see [`MessageError`]).
    #[error(transparent)]
    Message(#[from] MessageError),
    /// A wire type could not be decoded (see [`DecodeError`]).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A tool name breaks the MCP rule (see [`crate::ToolNameError`]).
    #[error(transparent)]
    ToolName(#[from] crate::tool_name::ToolNameError),
    /// A line could not be read or written (see [`crate::framing::FrameError`]).
    #[error(transparent)]
    Frame(#[from] crate::framing::FrameError),
    /// An event stream could not be read (see [`crate::sse::SseError`]).
    #[error(transparent)]
    Sse(#[from] crate::sse::SseError),
}
