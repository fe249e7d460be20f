//! The pure core: `resolve_allowed_tools` and the report of entries that
//! match nothing.

use std::collections::HashSet;

use crate::{AllowedTools, Entry, Policy, ToolName};

/// The tools of `server_name` that `allowed_tools` permits, fail-open per
/// server (docs/ARCHITECTURE.md, "Gating").
///
/// - `null` (see [`AllowedTools::unrestricted`]) → every tool;
/// - a server absent from the map → every tool;
/// - a server with a list → exactly the tools the list names, in the order
///   the tools came (an entry `"<tool>:<op>"` names its tool);
/// - `[]` → no tool (explicit deny).
///
/// Entries that name no tool are ignored; [`unmatched_entries`] reports them.
/// Pure and total: no I/O, no panic, and the input is never changed (items
/// are moved through as they are; pass `&tools` to borrow them). The same as
/// [`Policy::FailOpen`]`.resolve(...)`; use [`Policy::DenyByDefault`] for the
/// stricter policy. Cost: O(tools), one hash lookup each.
///
/// ```
/// use mcp_gating::{resolve_allowed_tools, AllowedTools};
///
/// let tools = ["fs", "exec", "git"];
/// let config = AllowedTools::from_servers([("local", ["git", "fs", "nope"])]).unwrap();
/// assert_eq!(resolve_allowed_tools(tools, &config, "local"), ["fs", "git"]);
/// assert_eq!(resolve_allowed_tools(tools, &config, "door"), tools);
/// assert_eq!(resolve_allowed_tools(tools, &AllowedTools::unrestricted(), "local"), tools);
/// ```
pub fn resolve_allowed_tools<I>(
    tools: I,
    allowed_tools: &AllowedTools,
    server_name: &str,
) -> Vec<I::Item>
where
    I: IntoIterator,
    I::Item: ToolName,
{
    Policy::FailOpen.resolve(tools, allowed_tools, server_name)
}

/// The entries of `server_name`'s list whose tool is not among `tools`, in
/// the order written, each distinct entry once. Empty when the configuration
/// is `null` or does not name the server.
///
/// A typo in a configuration is silent in [`resolve_allowed_tools`] (an
/// unknown name just matches nothing); a server calls this at start and warns.
/// An op entry whose op the tool does not declare is reported by
/// [`GatedSurface::unmatched_entries`](crate::GatedSurface::unmatched_entries),
/// which knows the tools' schemas.
///
/// ```
/// use mcp_gating::{unmatched_entries, AllowedTools};
///
/// let config = AllowedTools::from_servers([("local", ["fs", "gti", "fs"])]).unwrap();
/// let typos: Vec<String> = unmatched_entries(["fs", "git"], &config, "local")
///     .iter()
///     .map(ToString::to_string)
///     .collect();
/// assert_eq!(typos, ["gti"]);
/// ```
pub fn unmatched_entries<'c, I>(
    tools: I,
    allowed_tools: &'c AllowedTools,
    server_name: &str,
) -> Vec<&'c Entry>
where
    I: IntoIterator,
    I::Item: ToolName,
{
    let Some(list) = allowed_tools.server(server_name) else {
        return Vec::new();
    };
    let names: HashSet<String> = tools
        .into_iter()
        .map(|tool| tool.tool_name().to_owned())
        .collect();
    distinct_entries(list.entries())
        .filter(|entry| !names.contains(entry.tool()))
        .collect()
}

/// `entries` without repeats, first occurrence kept.
pub(crate) fn distinct_entries(entries: &[Entry]) -> impl Iterator<Item = &Entry> {
    let mut seen = HashSet::new();
    entries.iter().filter(move |entry| seen.insert(*entry))
}
