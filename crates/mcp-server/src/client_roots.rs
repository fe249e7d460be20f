//! The local toolbox confined to the client's MCP roots (docs/ARCHITECTURE.md, "Local
//! tools": `--root DIR`, else the client's roots when it offers them, else
//! the working directory).
//!
//! A [`ClientRootsSource`] is the `local` tool source whose roots start as
//! the working directory and follow the client: registered as the
//! [`Server`](crate::Server)'s [`RootsListener`], it takes the `file://`
//! roots of each `roots/list` answer (MCP 2025-11-25 client/roots). A call
//! already running keeps the roots it started with. An answer with no
//! usable root (none listed, none `file://`, none a directory) means the
//! client offers no roots any more: the tools go back to the working
//! directory at once, and the client's earlier roots stop working.

use std::sync::{Arc, PoisonError, RwLock};

use mcp_local_tools::{Roots, Toolbox};
use mcp_proto::Root;
use tokio::sync::watch;

use crate::features::RootsListener;
use crate::local::LocalSource;
use crate::source::{BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource};

/// The local tools over roots the client can change.
#[derive(Debug)]
pub struct ClientRootsSource {
    /// The source as built, over the working directory: its tool list and
    /// names never change, and it serves again when the client lists no
    /// usable root.
    base: LocalSource,
    /// The working directory's roots, the fallback.
    fallback: Roots,
    /// The source calls go to, with the roots in force, and those roots.
    current: RwLock<(Arc<LocalSource>, Roots)>,
    /// Bumped whenever the roots change (mounted servers are told).
    changes: watch::Sender<u64>,
    /// Every directory the tools have been confined to, the working
    /// directory first: a program found in one is never run for the
    /// server's own needs (the `hanzo auth token` step), since the agent
    /// could have written it.
    ever: RwLock<Vec<std::path::PathBuf>>,
    /// Whether the client's first roots are known (or it gives none).
    settled: watch::Sender<bool>,
}

impl ClientRootsSource {
    /// `toolbox` confined to `roots` (the working directory) until the
    /// client lists its own.
    pub fn new(toolbox: Toolbox, roots: Roots) -> Self {
        let base = LocalSource::with_toolbox(toolbox, roots.clone());
        Self {
            current: RwLock::new((Arc::new(base.clone()), roots.clone())),
            base,
            ever: RwLock::new(roots.dirs().to_vec()),
            fallback: roots,
            changes: watch::Sender::new(0),
            settled: watch::Sender::new(false),
        }
    }

    /// Completes once the client's first roots are known, or it declared
    /// none ([`RootsListener::roots_settled`]).
    pub fn settled(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut settled = self.settled.subscribe();
        async move {
            let _ = settled.wait_for(|settled| *settled).await;
        }
    }

    /// Every directory the tools have been confined to so far (the
    /// working directory, then each client root taken), each once.
    pub fn ever(&self) -> Vec<std::path::PathBuf> {
        self.ever
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A receiver whose value changes whenever the roots do.
    pub fn roots_changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The directories tools are confined to now.
    pub fn roots(&self) -> Roots {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .clone()
    }
}

impl ToolSource for ClientRootsSource {
    fn name(&self) -> &str {
        "local"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        self.base.list_tools()
    }

    fn owns(&self, tool: &str) -> bool {
        self.base.owns(tool)
    }

    fn surface_rules(&self) -> mcp_gating::SurfaceRules {
        self.base.surface_rules()
    }

    fn call_tool(&self, params: CallRequest, cx: CallContext) -> ToolCall<'_> {
        let local = self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .clone();
        Box::pin(async move { local.call_tool(params, cx).await })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        self.base.list_changes()
    }

    fn list_stamp(&self) -> Option<u64> {
        self.base.list_stamp()
    }
}

impl RootsListener for ClientRootsSource {
    fn roots_settled(&self) {
        self.settled.send_replace(true);
    }

    fn roots_changed(&self, roots: Vec<Root>) {
        // Each usable root on its own: one bad URI must not cost the rest.
        let usable: Vec<_> = roots
            .iter()
            .filter_map(|root| match Roots::from_file_uris(&[root.uri.as_str()]) {
                Ok(one) => Some(one.dirs()[0].clone()),
                Err(error) => {
                    tracing::warn!(uri = root.uri, %error, "client root ignored");
                    None
                }
            })
            .collect();
        let next = match Roots::new(usable) {
            Ok(roots) => {
                tracing::info!(roots = ?roots.dirs(), "local tools confined to the client's roots");
                let next = LocalSource::with_toolbox(self.base.toolbox().clone(), roots.clone());
                (Arc::new(next), roots)
            }
            Err(error) => {
                // docs/ARCHITECTURE.md, "Local tools": no client roots means the
                // working directory; the old client roots must not linger.
                tracing::warn!(
                    %error,
                    roots = ?self.fallback.dirs(),
                    "the client listed no usable root; back to the working directory"
                );
                (Arc::new(self.base.clone()), self.fallback.clone())
            }
        };
        {
            let mut ever = self.ever.write().unwrap_or_else(PoisonError::into_inner);
            for dir in next.1.dirs() {
                if !ever.contains(dir) {
                    ever.push(dir.clone());
                }
            }
        }
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = next;
        self.changes.send_modify(|n| *n += 1);
    }
}
