//! The local toolbox (mcp-local-tools) as the tool source named `local`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use mcp_gating::SurfaceRules;
use mcp_local_tools::{Progress, Roots, ToolContext, Toolbox};
use mcp_proto::Tool;

use crate::error::ServerError;
use crate::source::{
    BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource, result_text,
    unknown_tool,
};

/// The machine's tools (HIP-0300 §2.1), confined to the roots.
#[derive(Debug, Clone)]
pub struct LocalSource {
    toolbox: Toolbox,
    roots: Roots,
    /// The tools' names, for [`ToolSource::owns`].
    names: Vec<&'static str>,
    /// The definitions, built on first use (deriving the input schemas is
    /// the costliest part of start-up, and `initialize` does not need
    /// them).
    definitions: Arc<OnceLock<Vec<Tool>>>,
    /// Whether `list_tools` has answered once: the first answer takes the
    /// definitions as they are built, without keeping a copy (the server
    /// keeps the merged list, and asks again only when another source's
    /// list changes).
    listed: Arc<AtomicBool>,
    /// The gating rules with the tools' action aliases, built on first use.
    rules: Arc<OnceLock<SurfaceRules>>,
}

impl LocalSource {
    /// Every local tool compiled in, confined to `roots` (`--root` flags or
    /// the working directory). Errors when a root does not resolve to a
    /// directory.
    pub fn new(roots: Vec<PathBuf>) -> Result<Self, ServerError> {
        let roots = Roots::new(roots).map_err(|e| ServerError::Config(e.to_string()))?;
        Ok(Self::with_toolbox(Toolbox::with_default_tools(), roots))
    }

    /// A source over a given toolbox and roots.
    pub fn with_toolbox(toolbox: Toolbox, roots: Roots) -> Self {
        Self {
            names: toolbox.names(),
            toolbox,
            roots,
            definitions: Arc::default(),
            listed: Arc::default(),
            rules: Arc::default(),
        }
    }

    /// The tools' definitions (built once, on first use).
    pub fn definitions(&self) -> &[Tool] {
        self.definitions.get_or_init(|| self.toolbox.tools())
    }

    /// The toolbox.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }
}

impl ToolSource for LocalSource {
    fn name(&self) -> &str {
        "local"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let first = !self.listed.swap(true, Ordering::Relaxed);
            let tools = match self.definitions.get() {
                Some(tools) => tools.clone(),
                None if first => self.toolbox.tools(),
                None => self.definitions().to_vec(),
            };
            SourceList { tools, meta: None }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.names.contains(&tool)
    }

    /// `action` is the discriminator, and each action's aliases (Hanzo's
    /// names for it) stand for it.
    fn surface_rules(&self) -> SurfaceRules {
        self.rules
            .get_or_init(|| SurfaceRules::local().with_aliases(self.toolbox.action_aliases()))
            .clone()
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            let progress = match cx.progress {
                Some(reporter) => Progress::new(move |progress, total, message| {
                    reporter.report(progress, total, message.as_deref());
                }),
                None => Progress::none(),
            };
            let ctx = ToolContext {
                roots: self.roots.clone(),
                cancel: cx.cancel,
                progress,
                session: cx.session,
                run_programs: cx.run_programs,
            };
            let arguments = params.arguments.unwrap_or_default();
            match self.toolbox.call(&params.name, arguments, ctx).await {
                Some(result) => result_text(&result),
                None => Err(unknown_tool(&params.name)),
            }
        })
    }
}
