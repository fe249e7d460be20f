//! Another MCP server as a tool source, named for it (docs/ARCHITECTURE.md,
//! "Mounted servers"): its list is the server's (waited for at most the
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
use tokio::sync::{mpsc, watch};

use crate::peer::Peer;
use crate::source::{BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource};

/// Where the roots a mounted server asks for come from.
#[derive(Clone)]
pub enum RootsFrom {
    /// The `--root` directories (or the working directory).
    Fixed(Vec<std::path::PathBuf>),
    /// The local tools' roots, which follow the client's.
    Client(Arc<crate::client_roots::ClientRootsSource>),
}

impl RootsFrom {
    fn dirs(&self) -> Vec<std::path::PathBuf> {
        match self {
            Self::Fixed(dirs) => dirs.clone(),
            Self::Client(source) => source.roots().dirs().to_vec(),
        }
    }
}

/// The clients of the calls in flight to one mounted server, newest last:
/// the server's `sampling/createMessage` and `elicitation/create` go to the
/// newest that declared the capability.
#[derive(Default)]
struct Callers {
    next: u64,
    peers: Vec<(u64, Peer)>,
}

/// Answers a mounted server's requests: `roots/list` from our roots,
/// sampling and elicitation through our client.
struct Relay {
    roots: RootsFrom,
    callers: Arc<Mutex<Callers>>,
}

impl ClientHandler for Relay {
    fn list_roots(&self) -> MountFuture<'static, Result<Value, ErrorObject>> {
        let roots: Vec<Value> = self
            .roots
            .dirs()
            .iter()
            .map(|dir| {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                json!({ "uri": file_uri(dir), "name": name })
            })
            .collect();
        Box::pin(async move { Ok(json!({ "roots": roots })) })
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
            callers
                .peers
                .iter()
                .rev()
                .find(|(_, peer)| peer.declares(capability))
                .map(|(_, peer)| peer.clone())
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
    /// allowlist entries name (`action` unless configured); `roots` answer
    /// its `roots/list`.
    pub fn start(
        spec: mcp_mount::MountSpec,
        limits: mcp_mount::Limits,
        wait: Duration,
        discriminator: &str,
        roots: RootsFrom,
    ) -> Self {
        let callers = Arc::new(Mutex::new(Callers::default()));
        let handler = Arc::new(Relay {
            roots,
            callers: callers.clone(),
        });
        let info = mcp_mount::ClientInfo {
            name: "hanzo-mcp".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        };
        let server = MountedServer::start(spec, limits, info, handler);
        let mut rules = SurfaceRules::local();
        discriminator.clone_into(&mut rules.discriminator);
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
        callers.peers.retain(|(id, _)| *id != self.1);
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

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let _registered = cx.client.clone().map(|peer| {
                let mut callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
                callers.next += 1;
                let id = callers.next;
                callers.peers.push((id, peer));
                Registered(&self.callers, id)
            });
            let Some(reporter) = cx.progress else {
                return self.server.call_tool_raw(call.raw(), None).await;
            };
            let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
            let relay = tokio::spawn(async move {
                while let Some(progress) = rx.recv().await {
                    reporter.forward(progress);
                }
            });
            let result = self.server.call_tool_raw(call.raw(), Some(tx)).await;
            let _ = relay.await;
            result
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

/// One mounted server as configured (`--server`, `[[servers]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Its name and how to reach it.
    pub spec: mcp_mount::MountSpec,
    /// The argument its `"<tool>:<value>"` allowlist entries name
    /// (`action` unless configured).
    pub discriminator: String,
}

/// The names no mounted server may take: the sources `hanzo-mcp` has
/// itself.
const TAKEN: [&str; 2] = ["local", "door"];

/// Reads `--server NAME=COMMAND [ARG...]` (the command line split as a
/// POSIX shell would, without running one) or `--server NAME=URL`
/// (`http://` or `https://`: streamable HTTP).
///
/// # Errors
/// A sentence naming what is wrong: no `=`, a bad name, an empty command.
pub fn parse_server_flag(text: &str) -> Result<Mount, String> {
    let Some((name, target)) = text.split_once('=') else {
        return Err(format!(
            "{text:?} is not NAME=COMMAND or NAME=URL (for example kb=\"npx -y @acme/kb-mcp\")"
        ));
    };
    let name = name.trim();
    check_name(name)?;
    let target = target.trim();
    let transport = if target.starts_with("http://") || target.starts_with("https://") {
        mcp_mount::Transport::Http(mcp_mount::HttpServer {
            url: target.to_owned(),
            ..mcp_mount::HttpServer::default()
        })
    } else {
        let words = shlex::split(target).ok_or_else(|| {
            format!("server {name:?}: the command {target:?} has an unclosed quote")
        })?;
        let Some((command, args)) = words.split_first() else {
            return Err(format!("server {name:?}: the command is empty"));
        };
        mcp_mount::Transport::Stdio(mcp_mount::StdioServer {
            command: command.clone(),
            args: args.to_vec(),
            ..mcp_mount::StdioServer::default()
        })
    };
    Ok(Mount {
        spec: mcp_mount::MountSpec {
            name: name.to_owned(),
            transport,
        },
        discriminator: "action".to_owned(),
    })
}

/// Checks a mounted server's name: [`mcp_mount::validate_name`], and not
/// `local` or `door`.
///
/// # Errors
/// A sentence naming the fault.
pub fn check_name(name: &str) -> Result<(), String> {
    mcp_mount::validate_name(name)?;
    if TAKEN.contains(&name) {
        return Err(format!(
            "the server name {name:?} is hanzo-mcp's own source; choose another"
        ));
    }
    Ok(())
}

/// Checks that no two of `mounts` share a name.
///
/// # Errors
/// `two servers are named "kb"`.
pub fn check_distinct(mounts: &[Mount]) -> Result<(), String> {
    for (at, mount) in mounts.iter().enumerate() {
        if mounts[..at].iter().any(|m| m.spec.name == mount.spec.name) {
            return Err(format!("two servers are named {:?}", mount.spec.name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_flag_is_a_command_or_an_address() {
        let mount = parse_server_flag(r#"kb=npx -y "@acme/kb mcp" --flag"#).unwrap();
        assert_eq!(mount.spec.name, "kb");
        match mount.spec.transport {
            mcp_mount::Transport::Stdio(stdio) => {
                assert_eq!(stdio.command, "npx");
                assert_eq!(stdio.args, ["-y", "@acme/kb mcp", "--flag"]);
            }
            other => panic!("not stdio: {other:?}"),
        }
        let mount = parse_server_flag("gh=https://example.com/mcp").unwrap();
        assert!(
            matches!(mount.spec.transport, mcp_mount::Transport::Http(h) if h.url == "https://example.com/mcp")
        );
        assert!(
            parse_server_flag("kb")
                .unwrap_err()
                .contains("NAME=COMMAND")
        );
        assert!(
            parse_server_flag("door=x")
                .unwrap_err()
                .contains("hanzo-mcp's own")
        );
        assert!(parse_server_flag("a b=x").unwrap_err().contains("' '"));
        assert!(parse_server_flag("kb=").unwrap_err().contains("empty"));
        assert!(parse_server_flag("kb=\"x").unwrap_err().contains("quote"));
    }
}
