//! The integration tests of `mcp-local-server`, one binary: each module is
//! one area, sharing the helpers in `common` (one stdio client of a
//! process, one HTTP client, one in-process driver, one tool source built
//! from closures). Tests that start processes give each child its whole
//! environment explicitly and never change this process's, so they run
//! side by side.

mod common;

mod adversarial;
mod bad_input;
mod cli;
mod concurrency;
mod config_file;
mod connection;
mod doctor;
mod door;
mod door_e2e;
mod door_ops;
mod features;
mod forwarding;
mod gated_out;
mod gating;
mod http_limits;
mod http_transport;
mod install;
mod lifecycle;
mod list_memo;
mod mode;
mod mounted;
mod rmcp_client;
mod roots;
mod start_up_line;
mod stdio;
