//! Another MCP server as a tool source, named for it: its list is the server's (waited for at most the
//! configured time on the first `tools/list`), a call of a name it lists is
//! passed through byte for byte ([`mcp_mount::MountedServer::call_tool_raw`]),
//! its progress comes back under the caller's own token, and what it asks
//! of its client goes to the client of a call in flight to it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_gating::SurfaceRules;
use mcp_mount::{BoxFuture as MountFuture, ClientHandler, MountedServer};
use mcp_proto::ErrorObject;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::context::ClientRequests;
use crate::source::{BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource};

/// The directories a mounted server is told are its roots when it asks
/// (`roots/list`), read at each request.
pub type RootsFn = Arc<dyn Fn() -> Vec<std::path::PathBuf> + Send + Sync>;

/// The clients of the calls in flight to one mounted server, newest last,
/// with the session each call came on: the server's
/// `sampling/createMessage` and `elicitation/create` go to that client
/// only while every call in flight comes from one session (a request does
/// not say which call it serves, so with two sessions' calls in flight it
/// could be either, and one session's client must never answer for
/// another's call).
#[derive(Default)]
struct Callers {
    next: u64,
    /// (call, session, the call's client when its connection carries
    /// requests to the client): every call in flight, with a client or not.
    peers: Vec<Caller>,
}

/// One call in flight: its number, its session, its client's handle.
type Caller = (u64, u64, Option<Arc<dyn ClientRequests>>);

/// Answers a mounted server's requests: `roots/list` from our roots,
/// sampling and elicitation through our client.
struct Relay {
    roots: RootsFn,
    /// Folders no program of a stdio child is started from.
    untrusted: RootsFn,
    /// Completes when `untrusted` is known.
    ready: Option<ReadyFn>,
    callers: Arc<Mutex<Callers>>,
}

/// A future that completes when the folders a [`MountedSource`]'s
/// children must avoid are known (the client's roots, once it told
/// them), made afresh for each wait.
pub type ReadyFn = Arc<dyn Fn() -> mcp_mount::BoxFuture<'static, ()> + Send + Sync>;

impl ClientHandler for Relay {
    fn list_roots(&self) -> MountFuture<'static, Result<Value, ErrorObject>> {
        let roots: Vec<Value> = (self.roots)()
            .iter()
            .map(|dir| {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                json!({ "uri": file_uri(dir), "name": name })
            })
            .collect();
        Box::pin(async move { Ok(json!({ "roots": roots })) })
    }

    fn untrusted_dirs(&self) -> Vec<std::path::PathBuf> {
        (self.untrusted)()
    }

    fn ready(&self) -> MountFuture<'static, ()> {
        match &self.ready {
            Some(ready) => ready(),
            None => Box::pin(std::future::ready(())),
        }
    }

    fn relay(
        &self,
        method: &'static str,
        params: Option<Value>,
    ) -> MountFuture<'static, Result<Value, ErrorObject>> {
        let capability = if method == mcp_proto::methods::CreateMessage::NAME {
            "sampling"
        } else {
            "elicitation"
        };
        let peer = {
            let callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
            let mut sessions = callers.peers.iter().map(|(_, session, _)| *session);
            let first = sessions.next();
            if sessions.any(|session| Some(session) != first) {
                return Box::pin(async move {
                    Err(ErrorObject::new(
                        mcp_proto::error_code::METHOD_NOT_FOUND,
                        format!(
                            "{method}: calls from several clients are in flight, so none is asked"
                        ),
                    ))
                });
            }
            callers
                .peers
                .iter()
                .rev()
                .filter_map(|(_, _, peer)| peer.as_ref())
                .find(|peer| peer.declares(capability))
                .cloned()
        };
        Box::pin(async move {
            match peer {
                Some(peer) => {
                    peer.request(method, params.unwrap_or_else(|| json!({})))
                        .await
                }
                None => Err(ErrorObject::method_not_found(method)),
            }
        })
    }
}

/// `file://` URI of an absolute path (each byte outside the unreserved
/// set and `/` percent-encoded).
fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// A mounted server as a tool source.
pub struct MountedSource {
    server: MountedServer,
    wait: Duration,
    rules: SurfaceRules,
    callers: Arc<Mutex<Callers>>,
}

impl std::fmt::Debug for MountedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MountedSource")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl MountedSource {
    /// Mounts `spec` (starting it in the background: call inside a Tokio
    /// runtime). `wait` bounds how long the first `tools/list` waits for
    /// its list; `discriminator` is the argument `"<tool>:<value>"`
    /// allowlist entries name (`action` for servers shaped like Hanzo's);
    /// `roots` answer its `roots/list` and, read at each start of a stdio
    /// child, are folders no program is started from
    /// ([`mcp_mount::StdioServer::untrusted_dirs`]); `info` is the
    /// `clientInfo` it is told.
    pub fn start(
        spec: mcp_mount::MountSpec,
        limits: mcp_mount::Limits,
        wait: Duration,
        discriminator: &str,
        roots: RootsFn,
        info: mcp_proto::Implementation,
    ) -> Self {
        let untrusted = roots.clone();
        Self::start_with_untrusted(
            spec,
            limits,
            wait,
            discriminator,
            roots,
            untrusted,
            None,
            info,
        )
    }

    /// [`MountedSource::start`], with the folders no program of a stdio
    /// child is started from given apart from `roots` (`untrusted`, read
    /// at each start: every folder the agent's tools have had, say, when
    /// the roots can change), and the first start held until `ready`
    /// completes (those folders are known), when given.
    #[allow(clippy::too_many_arguments)]
    pub fn start_with_untrusted(
        spec: mcp_mount::MountSpec,
        limits: mcp_mount::Limits,
        wait: Duration,
        discriminator: &str,
        roots: RootsFn,
        untrusted: RootsFn,
        ready: Option<ReadyFn>,
        info: mcp_proto::Implementation,
    ) -> Self {
        let callers = Arc::new(Mutex::new(Callers::default()));
        let handler = Arc::new(Relay {
            roots,
            untrusted,
            ready,
            callers: callers.clone(),
        });
        let server = MountedServer::start(spec, limits, info, handler);
        let rules = SurfaceRules::mounted(discriminator);
        Self {
            server,
            wait,
            rules,
            callers,
        }
    }

    /// The mounted server.
    pub fn server(&self) -> &MountedServer {
        &self.server
    }
}

/// Removes a call's client from [`Callers`] when the call ends.
struct Registered<'a>(&'a Mutex<Callers>, u64);

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let mut callers = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        callers.peers.retain(|(id, _, _)| *id != self.1);
    }
}

impl ToolSource for MountedSource {
    fn name(&self) -> &str {
        self.server.name()
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            let tools = self.server.tools_within(self.wait).await;
            SourceList {
                tools: tools.to_vec(),
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.server.lists(tool)
    }

    fn claims(&self, tool: &str) -> bool {
        self.server.has_listed(tool)
    }

    fn unavailable(&self) -> Option<String> {
        match self.server.status() {
            mcp_mount::Status::Down(why) => Some(format!(
                "the MCP server {:?} is not running ({why}); try again shortly",
                self.server.name()
            )),
            _ => None,
        }
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let _registered = {
                let mut callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
                callers.next += 1;
                let id = callers.next;
                callers.peers.push((id, cx.session, cx.client.clone()));
                Registered(&self.callers, id)
            };
            crate::context::relaying_progress(cx.progress, |progress| {
                self.server.call_tool_raw(call.raw(), progress)
            })
            .await
        })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.server.generations())
    }

    /// The list's generation once the first attempt to connect has ended
    /// (before that `list_tools` waits).
    fn list_stamp(&self) -> Option<u64> {
        self.server.settled().then(|| self.server.generation())
    }

    fn surface_rules(&self) -> SurfaceRules {
        self.rules.clone()
    }
}
