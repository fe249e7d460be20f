//! The allowlist configuration: JSON `null` or `{"<server>": ["<tool>", ...]}`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::ConfigError;
use crate::hash::BuildNameHasher;

/// One allowlist entry: a whole tool (`"fs"`) or one value of the tool's
/// discriminator (`"billing:get_invoice"`).
///
/// The discriminator is `op` for the door's grouped subsystem tools
/// (HIP-0300 §1.3) and `action` for local tools (docs/ARCHITECTURE.md, "Gating");
/// the entry only names the value, the surface that applies it knows the key.
/// `:` cannot occur in an MCP tool name, so the split is unambiguous.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    tool: String,
    op: Option<String>,
}

impl Entry {
    /// Parses `"<tool>"` or `"<tool>:<op>"` as written in `server`'s list.
    ///
    /// # Errors
    ///
    /// [`ConfigError::EmptyEntry`] for `""`, [`ConfigError::EmptyToolName`]
    /// for `":op"`, [`ConfigError::EmptyOp`] for `"tool:"`, and
    /// [`ConfigError::ExtraColon`] for more than one `:`. A name that is
    /// well formed but matches no tool is not an error: see
    /// [`unmatched_entries`](crate::unmatched_entries).
    pub fn parse(server: &str, text: &str) -> Result<Self, ConfigError> {
        let server = || server.to_owned();
        let entry = || text.to_owned();
        if text.is_empty() {
            return Err(ConfigError::EmptyEntry { server: server() });
        }
        let Some((tool, op)) = text.split_once(':') else {
            return Ok(Self {
                tool: text.to_owned(),
                op: None,
            });
        };
        if op.contains(':') {
            return Err(ConfigError::ExtraColon {
                server: server(),
                entry: entry(),
            });
        }
        if tool.is_empty() {
            return Err(ConfigError::EmptyToolName {
                server: server(),
                entry: entry(),
            });
        }
        if op.is_empty() {
            return Err(ConfigError::EmptyOp {
                server: server(),
                entry: entry(),
            });
        }
        Ok(Self {
            tool: tool.to_owned(),
            op: Some(op.to_owned()),
        })
    }

    /// The tool the entry names.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The discriminator value the entry allows, or `None` for a whole tool.
    pub fn op(&self) -> Option<&str> {
        self.op.as_deref()
    }
}

impl fmt::Display for Entry {
    /// Writes the entry as it is configured: `tool` or `tool:op`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.op {
            None => f.write_str(&self.tool),
            Some(op) => write!(f, "{}:{op}", self.tool),
        }
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// What one server's list grants one tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolGrant {
    /// The tool is named on its own: every value of its discriminator.
    Whole,
    /// Only `"<tool>:<op>"` entries name the tool: these values, in the order
    /// first written, without repeats.
    Ops(Vec<String>),
}

impl ToolGrant {
    /// Whether the grant admits discriminator value `op`.
    pub fn allows_op(&self, op: &str) -> bool {
        match self {
            Self::Whole => true,
            Self::Ops(ops) => ops.iter().any(|allowed| allowed == op),
        }
    }
}

/// One server's list: the entries as written, and an index by tool name.
///
/// An empty list is an explicit deny: the server keeps no tool. When a tool
/// is named both whole and with ops (`["billing", "billing:get_invoice"]`),
/// the whole-tool entry wins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerAllowlist {
    entries: Vec<Entry>,
    grants: HashMap<String, ToolGrant, BuildNameHasher>,
}

impl ServerAllowlist {
    /// Parses the list configured for `server`; duplicates are allowed and
    /// change nothing.
    ///
    /// # Errors
    ///
    /// The first malformed entry, as [`Entry::parse`] reports it.
    pub fn parse<I, S>(server: &str, entries: I) -> Result<Self, ConfigError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let entries = entries
            .into_iter()
            .map(|text| Entry::parse(server, text.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut grants: HashMap<String, ToolGrant, BuildNameHasher> =
            HashMap::with_capacity_and_hasher(entries.len(), BuildNameHasher::default());
        // A repeated entry changes nothing; skipping it keeps each tool's
        // ops free of repeats without searching them.
        let mut seen = HashSet::with_capacity(entries.len());
        for entry in &entries {
            if !seen.insert(entry) {
                continue;
            }
            let grant = grants
                .entry(entry.tool.clone())
                .or_insert_with(|| ToolGrant::Ops(Vec::new()));
            match (&entry.op, &mut *grant) {
                (None, _) => *grant = ToolGrant::Whole,
                (Some(_), ToolGrant::Whole) => {}
                (Some(op), ToolGrant::Ops(ops)) => ops.push(op.clone()),
            }
        }
        Ok(Self { entries, grants })
    }

    /// The entries in the order they were written, duplicates included.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// What the list grants `tool`, or `None` when no entry names it.
    pub fn grant(&self, tool: &str) -> Option<&ToolGrant> {
        self.grants.get(tool)
    }

    /// Whether any entry names `tool` (whole or with an op).
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.grants.contains_key(tool)
    }

    /// Whether the list is `[]` (explicit deny).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A whole allowlist configuration (an agent's `allowedTools`).
///
/// JSON: `null` (no filtering; also [`Default`]) or an object mapping each
/// server name to a list of entries, `{"local": ["fs"], "door": []}`.
/// TOML has no `null`: a TOML table maps servers to lists the same way, and
/// a missing `#[serde(default)]` field of this type is `null`.
///
/// How a server's tools are filtered is [`resolve_allowed_tools`]
/// (fail-open per server) or [`Policy`](crate::Policy) (fail-open or
/// deny-by-default).
///
/// [`resolve_allowed_tools`]: crate::resolve_allowed_tools
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedTools {
    servers: Option<BTreeMap<String, ServerAllowlist>>,
}

impl AllowedTools {
    /// The `null` configuration: no server is filtered.
    pub const fn unrestricted() -> Self {
        Self { servers: None }
    }

    /// A map configuration from `(server, entries)` pairs; an empty iterator
    /// gives `{}`, which filters nothing under the fail-open policy.
    ///
    /// # Errors
    ///
    /// A malformed entry (see [`Entry::parse`]), or
    /// [`ConfigError::DuplicateServer`] when a server name repeats.
    pub fn from_servers<I, K, E, S>(servers: I) -> Result<Self, ConfigError>
    where
        I: IntoIterator<Item = (K, E)>,
        K: Into<String>,
        E: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut map = BTreeMap::new();
        for (server, entries) in servers {
            let server = server.into();
            let list = ServerAllowlist::parse(&server, entries)?;
            if map.contains_key(&server) {
                return Err(ConfigError::DuplicateServer { server });
            }
            map.insert(server, list);
        }
        Ok(Self { servers: Some(map) })
    }

    /// Reads a configuration from any serde `deserializer` (a
    /// `serde_json::Value`, a TOML table, …); the same as
    /// [`Deserialize::deserialize`], for callers that do not name `serde`
    /// themselves (the `gating_config` fuzz target).
    ///
    /// # Errors
    ///
    /// The deserializer's error: a wrong shape, or a [`ConfigError`] message
    /// naming the server and the entry.
    pub fn from_deserializer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::deserialize(deserializer)
    }

    /// Whether this is the `null` configuration.
    pub fn is_unrestricted(&self) -> bool {
        self.servers.is_none()
    }

    /// The list configured for `server`; `None` when the configuration is
    /// `null` or does not name the server.
    pub fn server(&self, server: &str) -> Option<&ServerAllowlist> {
        self.servers.as_ref()?.get(server)
    }

    /// The configured servers in name order (none for `null`).
    pub fn servers(&self) -> impl Iterator<Item = (&str, &ServerAllowlist)> {
        self.servers
            .iter()
            .flatten()
            .map(|(name, list)| (name.as_str(), list))
    }
}

impl Serialize for AllowedTools {
    /// Writes `null` or the map of servers to entry strings (`"tool:op"`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(servers) = &self.servers else {
            return serializer.serialize_none();
        };
        let mut map = serializer.serialize_map(Some(servers.len()))?;
        for (name, list) in servers {
            map.serialize_entry(name, &EntriesOut(&list.entries))?;
        }
        map.end()
    }
}

struct EntriesOut<'a>(&'a [Entry]);

impl Serialize for EntriesOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for entry in self.0 {
            seq.serialize_element(entry)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for AllowedTools {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_option(ConfigVisitor)
    }
}

const EXPECTING: &str = "null or an object mapping each server name to a list of tool names";

struct ConfigVisitor;

impl<'de> Visitor<'de> for ConfigVisitor {
    type Value = AllowedTools;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTING)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(AllowedTools::unrestricted())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(AllowedTools::unrestricted())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut servers = BTreeMap::new();
        while let Some(server) = map.next_key::<String>()? {
            let EntryTexts(texts) = map.next_value()?;
            if servers.contains_key(&server) {
                return Err(de::Error::custom(ConfigError::DuplicateServer { server }));
            }
            let list = ServerAllowlist::parse(&server, &texts).map_err(de::Error::custom)?;
            servers.insert(server, list);
        }
        Ok(AllowedTools {
            servers: Some(servers),
        })
    }
}

/// A server's list as written, before its entries are parsed.
struct EntryTexts(Vec<String>);

impl<'de> Deserialize<'de> for EntryTexts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(EntryTextsVisitor)
    }
}

struct EntryTextsVisitor;

impl<'de> Visitor<'de> for EntryTextsVisitor {
    type Value = EntryTexts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tool names (\"<tool>\" or \"<tool>:<op>\")")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The hint comes from the input; cap it so a lying length cannot
        // reserve unbounded memory.
        let mut texts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(text) = seq.next_element::<String>()? {
            texts.push(text);
        }
        Ok(EntryTexts(texts))
    }
}
