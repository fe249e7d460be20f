//! The merge of local and door tools: local first, a local name wins
//! (HIP-0300 §2.2).

use std::collections::HashSet;

use mcp_proto::{ListToolsResult, Tool};

use crate::list::DoorList;

/// The `tools/list` result of a local server: the `local` tools in their
/// order, then the door's tools whose names are not local, in door order
/// (HIP-0300 §2.2: "a local name wins"). The door's result `_meta`
/// (`hanzo.ai/refused`, `hanzo.ai/unavailable`, HIP-0300 §1.4) is kept on
/// the merged result. `door: None` gives the local-only list. Neither input
/// is changed; `nextCursor`, `ttlMs` and the other members are left unset
/// for the server to fill for its own revision.
///
/// ```
/// use mcp_door_client::merge;
/// use mcp_proto::Tool;
///
/// let tool = |name: &str| Tool { name: name.into(), ..Tool::default() };
/// let merged = merge(&[tool("fs"), tool("git")], None);
/// let names: Vec<_> = merged.tools.iter().map(|t| t.name.as_str()).collect();
/// assert_eq!(names, ["fs", "git"]);
/// ```
pub fn merge(local: &[Tool], door: Option<&DoorList>) -> ListToolsResult {
    let Some(door) = door else {
        return ListToolsResult {
            tools: local.to_vec(),
            ..ListToolsResult::default()
        };
    };
    let local_names: HashSet<&str> = local.iter().map(|t| t.name.as_str()).collect();
    let mut tools = Vec::with_capacity(local.len() + door.tools.len());
    tools.extend_from_slice(local);
    tools.extend(
        door.tools
            .iter()
            .filter(|t| !local_names.contains(t.name.as_str()))
            .cloned(),
    );
    ListToolsResult {
        tools,
        meta: door.meta.clone(),
        ..ListToolsResult::default()
    }
}
