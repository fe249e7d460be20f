//! The environment every child process starts from: the server's own,
//! plus the variables the embedder adds, minus the server's credentials.
//!
//! [`crate::Toolbox::call`] runs each call inside a scope holding the
//! toolbox's [`ChildEnv`]; the process module reads it when it starts a
//! child. A child started outside that scope (a tool called directly)
//! still loses [`ALWAYS_REMOVED`].

use std::future::Future;
use std::sync::Arc;

/// Variables no child ever sees: the door bearer (HIP-0300 §2.2) and the
/// bearer of the server's own HTTP transport.
pub(crate) const ALWAYS_REMOVED: [&str; 2] = ["HANZO_API_KEY", "HANZO_MCP_HTTP_BEARER"];

/// What a toolbox changes in its children's environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChildEnv {
    /// Names removed besides [`ALWAYS_REMOVED`] (secrets the server knows).
    pub(crate) secret: Vec<String>,
    /// Variables set as if they were in the server's environment (secret
    /// names are still removed afterwards).
    pub(crate) add: Vec<(String, String)>,
}

impl ChildEnv {
    /// Every name removed: [`ALWAYS_REMOVED`], then the configured ones.
    pub(crate) fn removed(&self) -> Vec<String> {
        let mut names: Vec<String> = ALWAYS_REMOVED.map(str::to_owned).to_vec();
        for name in &self.secret {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}

tokio::task_local! {
    static CHILD_ENV: Arc<ChildEnv>;
}

/// Runs `work` with `env` as its children's environment.
pub(crate) fn scope<F: Future>(env: Arc<ChildEnv>, work: F) -> impl Future<Output = F::Output> {
    CHILD_ENV.scope(env, work)
}

/// The environment of the current call (the default outside any scope).
pub(crate) fn current() -> Arc<ChildEnv> {
    CHILD_ENV
        .try_with(Arc::clone)
        .unwrap_or_else(|_| Arc::new(ChildEnv::default()))
}
