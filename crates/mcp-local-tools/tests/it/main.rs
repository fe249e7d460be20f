//! The integration tests of `mcp-local-tools`, one binary: each module is
//! one area (a tool, paths, definitions), sharing the helpers in `common`
//! and, for the network tools, the loopback server in `http_fixture`.

mod common;
#[cfg(any(feature = "fetch", feature = "ui"))]
mod http_fixture;

mod bounds_and_patches;
mod capabilities;
mod child_processes;
mod code_actions;
mod context;
mod definitions;
mod exec_actions;
mod fetch_actions;
mod fs_actions;
mod git_actions;
mod paths;
mod state_tools;
mod ui_actions;
mod workspace_actions;
