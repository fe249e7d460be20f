//! One connection to a mounted server, whatever carries it: messages go
//! out through a channel, messages come in through another, and a token
//! fires when the connection is gone.

use mcp_proto::RequestId;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::wire::Incoming;

/// A message for the server: its JSON text, and the request id when it is
/// a request (so a transport that fails to deliver it can answer it).
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) id: Option<RequestId>,
    pub(crate) body: Vec<u8>,
}

/// What a transport gives the client.
pub(crate) struct Link {
    /// Messages to the server.
    pub(crate) out: mpsc::Sender<Outgoing>,
    /// Messages from the server.
    pub(crate) incoming: mpsc::Receiver<Incoming>,
    /// Fires when the connection is gone (a child exited, its pipes
    /// closed, an HTTP session ended).
    pub(crate) closed: CancellationToken,
    /// Ends the connection when dropped (kills the child's process group,
    /// stops the transport's tasks).
    pub(crate) guard: Box<dyn Send + Sync>,
    /// Called once the revision is agreed (streamable HTTP sends it as
    /// `MCP-Protocol-Version` from then on).
    pub(crate) negotiated: Box<dyn Fn(&str) + Send + Sync>,
}

/// How many messages wait in either direction before the sender waits.
pub(crate) const QUEUE: usize = 256;
