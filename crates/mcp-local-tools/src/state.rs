//! The state folder: where the tools keep what outlives one call (job
//! output spools, the state database).
//!
//! `HANZO_MCP_STATE` when set, else the platform's data folder under
//! `hanzo-mcp/` (`$XDG_DATA_HOME/hanzo-mcp`, else
//! `~/.local/share/hanzo-mcp` on Linux; `~/Library/Application
//! Support/hanzo-mcp` on macOS).

use std::path::PathBuf;

/// The variable that names the state folder.
pub const STATE_VAR: &str = "HANZO_MCP_STATE";

/// The state folder (not created). Errors when neither `HANZO_MCP_STATE`
/// nor a home folder is known.
pub fn state_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(STATE_VAR).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::BaseDirs::new()
        .map(|dirs| dirs.data_dir().join("hanzo-mcp"))
        .ok_or_else(|| format!("no state folder: set {STATE_VAR} (no home folder is known)"))
}
