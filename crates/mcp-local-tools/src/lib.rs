//! The machine's MCP tools: `fs`, `code`, `workspace`, `exec`, `git`,
//! `think`, `memory`, `plan` and `tasks` (HIP-0300 §2.1), each one MCP tool
//! taking an `action`, each confined to the roots.
//!
//! A server holds a [`Toolbox`], lists its tools with [`Toolbox::tools`] for
//! `tools/list`, and runs `tools/call` with [`Toolbox::call`], passing a
//! [`ToolContext`] with the [`Roots`], a cancellation token and a
//! [`Progress`] reporter. A tool's failure is a `CallToolResult` with
//! `isError: true` and a one-line message; an unknown tool name is `None`.
//!
//! # Example: read a file through the toolbox
//!
//! ```
//! # #[cfg(feature = "fs")]
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use mcp_local_tools::{Roots, ToolContext, Toolbox};
//!
//! let dir = std::env::temp_dir().join(format!("mcp-local-tools-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("hello.txt"), "one\ntwo\n").unwrap();
//!
//! let toolbox = Toolbox::with_default_tools();
//! let ctx = ToolContext::new(Roots::new(vec![dir.clone()]).unwrap());
//! let args = serde_json::json!({"action": "read", "path": "hello.txt", "offset": 1});
//! let result = toolbox.call("fs", args.as_object().unwrap().clone(), ctx).await.unwrap();
//! assert_eq!(result.content[0].as_text(), Some("two\n"));
//!
//! let outside = serde_json::json!({"action": "read", "path": "../etc/passwd"});
//! let ctx = ToolContext::new(Roots::new(vec![dir.clone()]).unwrap());
//! let result = toolbox.call("fs", outside.as_object().unwrap().clone(), ctx).await.unwrap();
//! assert_eq!(result.is_error, Some(true));
//! std::fs::remove_dir_all(&dir).unwrap();
//! # });
//! ```
//!
//! The `workspace` tool's `capabilities` action reports the door (HIP-0300
//! §2.2) as the server last saw it: the server calls
//! `toolbox.surroundings().set_door(Some(DoorReport { .. }))` whenever that
//! changes ([`Surroundings`]). No bearer ever passes through this crate.
//!
//! # Paths
//!
//! Every path is resolved by [`Roots::resolve`]: `..` and symlinks are
//! resolved by the operating system, the result must lie inside a root by
//! path components, NUL bytes are refused, names are compared as bytes
//! (never Unicode-normalised). Opens re-walk the path beneath the root with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` on Linux, so a component
//! swapped for a symlink after the check is refused; see [`roots`] for the
//! details and the residual race on other systems.
//!
//! # Capabilities and child processes
//!
//! Every action declares what it can do ([`Capability`]: read files, write
//! files, run programs, network, state) in its tool's action table;
//! [`Toolbox::capabilities`] returns the table and `help` shows it. Only
//! `exec` runs programs: with [`ToolContext::run_programs`] `false`, `git`
//! runs with a configuration from which no program can be named. No child
//! process sees `HANZO_API_KEY`, `HANZO_MCP_HTTP_BEARER` or the names given
//! to [`Toolbox::set_secret_env`].
//!
//! # Bounds
//!
//! Every result is capped (64 KiB of text, and per-action line, entry or
//! match limits); a bracketed line at the end says how to get the rest,
//! usually `continue with offset=N`.
//!
//! # Cargo features
//!
//! - `fs` (default): the `fs` tool.
//! - `code` (default): the `code` tool (tree-sitter grammars for Rust,
//!   Python, TypeScript/JavaScript and Go).
//! - `workspace` (default): the `workspace` tool.
//! - `exec` (default): the [`exec`] tool (commands in their own process
//!   group, bounded; background jobs).
//! - `git` (default): the `git` tool (runs the machine's `git` binary).
//! - `fetch` (default): the `fetch` tool (web pages as Markdown, HTTP
//!   requests, downloads into the roots), through the address guard of
//!   [`net`]: loopback, private and link-local addresses are refused unless
//!   allowed.
//! - `ui` (default): the `ui` tool (component registries in the shadcn
//!   format: list, search, view, install into the roots), through the same
//!   guard.
//! - `think` (default): the [`think`] tool (per connection, in memory).
//! - `memory`, `plan`, `tasks` (default): the [`memory`], [`plan`] and
//!   [`tasks`] tools, on the state database ([`store`], SQLite).
//! - `mode` (default): the `mode` tool (presets of what a connection may
//!   use), added with `Toolbox::with_mode` by a server that applies them.
//!   The presets themselves ([`mode::Modes`]) are there without it.
#![deny(missing_docs)]
// A build with no tool at all leaves the action framework's macros unused.
#![cfg_attr(
    not(any(
        feature = "fs",
        feature = "code",
        feature = "workspace",
        feature = "exec",
        feature = "git",
        feature = "fetch",
        feature = "ui",
        feature = "think",
        feature = "memory",
        feature = "plan",
        feature = "tasks",
        feature = "mode"
    )),
    allow(unused_macros, unused_imports, dead_code)
)]

mod action;
mod capability;
mod child_env;
mod context;
mod error;
#[cfg(any(
    feature = "fs",
    feature = "code",
    feature = "memory",
    feature = "fetch",
    feature = "ui"
))]
mod files;
#[cfg(any(feature = "exec", feature = "git"))]
mod process;
pub mod roots;
mod safe;
pub mod state;
#[cfg(any(feature = "memory", feature = "plan", feature = "tasks"))]
pub mod store;
mod tool;
mod toolbox;
mod util;

#[cfg(feature = "code")]
pub mod code;
#[cfg(feature = "exec")]
pub mod exec;
#[cfg(feature = "fetch")]
pub mod fetch;
#[cfg(feature = "fs")]
pub mod fs;
#[cfg(feature = "git")]
pub mod git;
#[cfg(feature = "memory")]
pub mod memory;
pub mod mode;
#[cfg(any(feature = "fetch", feature = "ui"))]
pub mod net;
#[cfg(feature = "plan")]
pub mod plan;
#[cfg(feature = "tasks")]
pub mod tasks;
#[cfg(feature = "think")]
pub mod think;
#[cfg(feature = "ui")]
pub mod ui;
#[cfg(feature = "workspace")]
pub mod workspace;

pub use capability::{ActionCapabilities, Capability};
pub use context::{DoorReport, Progress, Surroundings, ToolContext};
pub use error::{Error, PathError, PathErrorKind};
pub use roots::{Resolved, Roots};
pub use tool::{CallFuture, LocalTool};
pub use toolbox::{DEFAULT_CALL_TIMEOUT, Toolbox};
pub use util::{MAX_RESULT_BYTES, RESULT_CAP};
