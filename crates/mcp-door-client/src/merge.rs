//! The merge of local and door tools: local first, a local name wins
//! (HIP-0300 §2.2).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use mcp_proto::{ListToolsResult, PaginatedResult, Tool};

use crate::door::DoorSnapshot;
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
        page: PaginatedResult {
            meta: door.meta.clone(),
            ..PaginatedResult::default()
        },
    }
}

/// [`merge`] remembered for one set of local tools: the merged result is
/// computed again only when the door's list changes (a new
/// [`DoorSnapshot::generation`]), so a `tools/list` answered from the cache
/// costs a lock and an `Arc` clone instead of a copy of every tool.
#[derive(Debug)]
pub struct MergedTools {
    local: Vec<Tool>,
    memo: Mutex<Option<(u64, Arc<ListToolsResult>)>>,
}

impl MergedTools {
    /// A memo over these local tools (already gated, in their order).
    pub fn new(local: Vec<Tool>) -> MergedTools {
        MergedTools {
            local,
            memo: Mutex::new(None),
        }
    }

    /// The local tools.
    pub fn local(&self) -> &[Tool] {
        &self.local
    }

    /// `merge(local, snapshot.list)`, from the memo when `snapshot` has the
    /// generation of the last call.
    pub fn get(&self, snapshot: &DoorSnapshot) -> Arc<ListToolsResult> {
        let mut memo = self.memo.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((generation, merged)) = memo.as_ref()
            && *generation == snapshot.generation
        {
            return Arc::clone(merged);
        }
        let merged = Arc::new(merge(&self.local, snapshot.list.as_deref()));
        *memo = Some((snapshot.generation, Arc::clone(&merged)));
        merged
    }
}
