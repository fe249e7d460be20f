//! A source's gated surface: the listed tools after gating, and the routing
//! decision for a call (docs/ARCHITECTURE.md, "Gating"; HIP-0300 §1.3).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::resolve::distinct_entries;
use crate::{AllowedTools, Entry, Grant, OpTool, Policy, ServerAllowlist, ToolGrant};

/// How a kind of tool source treats names and discriminators.
///
/// Use [`SurfaceRules::door`] or [`SurfaceRules::local`]; the fields are
/// public so another kind of source can adjust them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SurfaceRules {
    /// The input property whose value `"<tool>:<value>"` entries allow:
    /// `op` for the door's grouped tools, `action` for local tools.
    pub discriminator: String,
    /// The tool that takes `{"<discriminator>": <op>}` and describes that op
    /// (the door's `describe`, HIP-0300 §1.3). When gated, a call to it is
    /// permitted only for an op some allowed tool allows, and its listed enum
    /// is narrowed to those ops.
    pub describe_tool: Option<String>,
    /// Whether a call by an op's own name is accepted (the door accepts
    /// them). When gated, such a call is permitted only if the op is allowed
    /// in some grouped tool.
    pub op_names_callable: bool,
    /// Whether the source accepts names it did not list (the door does).
    /// Ungated, such a source owns every name; gated, it owns every name its
    /// list allows, listed yet or not (the door's list may still be loading).
    pub owns_unlisted: bool,
    /// Other spellings a tool accepts for its discriminator values: tool
    /// name → (alias → the value it stands for). A local tool answers to
    /// the action names of Hanzo's other servers (`fs` `stat` for `info`),
    /// so an entry `"fs:stat"` allows `info`, and a call with `stat` is
    /// checked as `info`. Empty for [`door`](Self::door) and
    /// [`local`](Self::local); see [`with_aliases`](Self::with_aliases).
    pub aliases: HashMap<String, HashMap<String, String>>,
    /// Whether a `"<tool>:<value>"` entry keeps a listed tool only when its
    /// input schema declares the discriminator's values. A tool that does
    /// not cannot be narrowed, and a call's `<discriminator>` would be
    /// checked while the tool reads another argument, so it is withheld
    /// (and the entry reported, [`Mismatch::NoDiscriminator`]). True for
    /// [`mounted`](Self::mounted) servers, whose tools are anyone's; false
    /// for [`door`](Self::door) and [`local`](Self::local), whose tools all
    /// declare theirs.
    pub ops_need_declared_values: bool,
}

impl SurfaceRules {
    /// The door (HIP-0300 §1.3): discriminator `op`, `describe`, op names
    /// callable, unlisted names accepted.
    pub fn door() -> Self {
        Self {
            discriminator: "op".to_owned(),
            describe_tool: Some("describe".to_owned()),
            op_names_callable: true,
            owns_unlisted: true,
            aliases: HashMap::new(),
            ops_need_declared_values: false,
        }
    }

    /// A local toolbox (docs/ARCHITECTURE.md, "Local tools"): discriminator `action`, no
    /// `describe`, only listed names.
    pub fn local() -> Self {
        Self {
            discriminator: "action".to_owned(),
            describe_tool: None,
            op_names_callable: false,
            owns_unlisted: false,
            aliases: HashMap::new(),
            ops_need_declared_values: false,
        }
    }

    /// Another MCP server mounted as a source: discriminator
    /// `discriminator` (`action` for servers shaped like Hanzo's), no
    /// `describe`, only listed names, and a `"<tool>:<value>"` entry keeps
    /// only a tool whose schema declares that argument's values
    /// ([`ops_need_declared_values`](Self::ops_need_declared_values)).
    ///
    /// ```
    /// use mcp_gating::SurfaceRules;
    ///
    /// let rules = SurfaceRules::mounted("method");
    /// assert_eq!(rules.discriminator, "method");
    /// assert!(rules.ops_need_declared_values && !rules.owns_unlisted);
    /// ```
    pub fn mounted(discriminator: &str) -> Self {
        Self {
            discriminator: discriminator.to_owned(),
            ops_need_declared_values: true,
            ..Self::local()
        }
    }

    /// These rules with `aliases`: `(tool, alias, value)` triples, each
    /// saying that `tool` takes `alias` for its discriminator value `value`.
    ///
    /// ```
    /// use mcp_gating::SurfaceRules;
    ///
    /// let rules = SurfaceRules::local().with_aliases([("fs", "stat", "info")]);
    /// assert_eq!(rules.canonical("fs", "stat"), "info");
    /// assert_eq!(rules.canonical("fs", "read"), "read");
    /// assert_eq!(rules.canonical("git", "stat"), "stat");
    /// ```
    pub fn with_aliases<'a>(
        mut self,
        aliases: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> Self {
        for (tool, alias, value) in aliases {
            self.aliases
                .entry(tool.to_owned())
                .or_default()
                .insert(alias.to_owned(), value.to_owned());
        }
        self
    }

    /// The discriminator value `value` stands for in `tool`: the value an
    /// alias names, else `value` itself.
    pub fn canonical<'v>(&'v self, tool: &str, value: &'v str) -> &'v str {
        self.aliases
            .get(tool)
            .and_then(|aliases| aliases.get(value))
            .map_or(value, String::as_str)
    }

    /// `grant` with each op an alias of `tool` replaced by its value (first
    /// spelling's place kept, no repeats); borrowed when `tool` has no
    /// aliases.
    fn canonical_grant<'g>(&self, tool: &str, grant: &'g ToolGrant) -> Cow<'g, ToolGrant> {
        match grant {
            ToolGrant::Ops(ops) if self.aliases.contains_key(tool) => {
                let mut seen = HashSet::with_capacity(ops.len());
                let values = ops
                    .iter()
                    .map(|op| self.canonical(tool, op))
                    .filter(|value| seen.insert(*value))
                    .map(str::to_owned)
                    .collect();
                Cow::Owned(ToolGrant::Ops(values))
            }
            other => Cow::Borrowed(other),
        }
    }
}

/// The discriminator of a call's arguments, as the caller found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpArg<'a> {
    /// The arguments have no such property (or there are no arguments).
    Absent,
    /// The property is this string.
    Value(&'a str),
    /// The property is there but is not a string.
    NotAString,
}

impl<'a> OpArg<'a> {
    /// `Value(s)` for `Some(s)`, `Absent` for `None`.
    pub fn from_option(value: Option<&'a str>) -> Self {
        value.map_or(Self::Absent, Self::Value)
    }

    fn value(self) -> Option<&'a str> {
        match self {
            Self::Value(value) => Some(value),
            Self::Absent | Self::NotAString => None,
        }
    }
}

/// Whether one source takes a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallDecision {
    /// The source owns the name and the call is allowed: route it here.
    Permitted,
    /// The source does not own the name (never had it, or it is gated out):
    /// try the next source; when none owns it, answer -32602 (unknown tool).
    NotOwned,
    /// The source owns the name but the call is gated out: answer -32602
    /// exactly as for an unknown tool, and route it nowhere.
    Refused(Refusal),
}

/// Why an owned call was refused (for logs; the caller sees an unknown tool).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The tool is allowed only for some values of its discriminator, and the
    /// call has another, none (`value: None`), or a non-string.
    OpNotAllowed {
        /// The tool called.
        tool: String,
        /// The discriminator property (`op` or `action`).
        discriminator: String,
        /// The value the call carried, when it was a string.
        value: Option<String>,
    },
    /// `describe` was asked about an op no allowed tool allows (or about
    /// nothing).
    DescribeNotAllowed {
        /// The describe tool called.
        tool: String,
        /// The op asked about, when it was a string.
        op: Option<String>,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OpNotAllowed {
                tool,
                discriminator,
                value: Some(value),
            } => write!(f, "tool {tool:?}: {discriminator} {value:?} is not allowed"),
            Self::OpNotAllowed {
                tool,
                discriminator,
                value: None,
            } => write!(
                f,
                "tool {tool:?}: a call without an allowed {discriminator} string"
            ),
            Self::DescribeNotAllowed { tool, op: Some(op) } => {
                write!(f, "tool {tool:?}: op {op:?} is not allowed")
            }
            Self::DescribeNotAllowed { tool, op: None } => {
                write!(f, "tool {tool:?}: a call without an allowed op string")
            }
        }
    }
}

/// Why an entry of a source's list matches nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// No listed tool has the entry's name.
    NoSuchTool,
    /// The tool exists and declares its discriminator's values, and the
    /// entry's op is not one of them.
    NoSuchOp,
    /// The entry names an op of a tool whose schema declares no values
    /// for the discriminator, under rules that then withhold the tool
    /// ([`SurfaceRules::ops_need_declared_values`]).
    NoDiscriminator,
}

/// An entry that matches nothing in a source, for a start-up warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmatchedEntry {
    /// The entry as configured.
    pub entry: Entry,
    /// What is missing.
    pub mismatch: Mismatch,
}

impl fmt::Display for UnmatchedEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mismatch {
            Mismatch::NoSuchTool => write!(f, "{:?} matches no tool", self.entry.to_string()),
            Mismatch::NoSuchOp => write!(
                f,
                "{:?}: tool {:?} has no such op",
                self.entry.to_string(),
                self.entry.tool()
            ),
            Mismatch::NoDiscriminator => write!(
                f,
                "{:?}: tool {:?} declares no values for the argument this entry narrows, so it is withheld (name the tool alone, or set the server's discriminator)",
                self.entry.to_string(),
                self.entry.tool()
            ),
        }
    }
}

/// Which values of the discriminator a call to an owned tool may carry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Access {
    Any,
    Ops(Ops),
}

impl Access {
    fn allows(&self, value: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Ops(ops) => ops.set.contains(value),
        }
    }
}

/// Discriminator values without repeats: in order, and as a set for
/// constant-time lookups.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ops {
    order: Vec<String>,
    set: HashSet<String>,
}

impl Ops {
    /// `values` without repeats, first occurrence kept.
    fn new<'v>(values: impl IntoIterator<Item = &'v String>) -> Self {
        let mut ops = Self {
            order: Vec::new(),
            set: HashSet::new(),
        };
        for value in values {
            if !ops.set.contains(value) {
                ops.set.insert(value.clone());
                ops.order.push(value.clone());
            }
        }
        ops
    }
}

/// One tool source's surface after gating: what it lists and what it takes.
///
/// Built per source, before the merge (docs/ARCHITECTURE.md, "Gating"), from the
/// source's name (`local`, `door`), its tools, the configuration, the policy
/// and the source's [`SurfaceRules`]. A tool gated out is not in
/// [`tools`](Self::tools) and [`check_call`](Self::check_call) says
/// [`CallDecision::NotOwned`] for it, so routing treats the name as if this
/// source never had it. A tool kept through `"<tool>:<op>"` entries is listed
/// with its discriminator's enum narrowed (a new schema; the input tools are
/// never changed), and a call with another value is
/// [`CallDecision::Refused`].
///
/// Rebuild the surface whenever the source's list changes (it is a pure
/// function of its inputs; cost linear in the tools, the discriminator
/// values they declare, and the entries).
#[derive(Clone, Debug)]
pub struct GatedSurface<T> {
    source: String,
    rules: SurfaceRules,
    gated: bool,
    tools: Vec<T>,
    /// Owned tool names (listed ones, plus allowed unlisted ones when the
    /// source accepts those) and what their calls may carry.
    owned: HashMap<String, Access>,
    /// Ops allowed in some grouped tool (gated surfaces only).
    allowed_ops: HashSet<String>,
    /// Names the source lists but the gating removed: never callable, not
    /// even as an op name that happens to be spelled the same.
    gated_out: HashSet<String>,
    unmatched: Vec<UnmatchedEntry>,
}

impl<T: OpTool> GatedSurface<T> {
    /// Gates `tools`, the tools of source `source`, by `allowed` under
    /// `policy`, with the source's `rules`.
    ///
    /// Ungated ([`Grant::All`]): every tool is listed as it is; a source that
    /// [`owns_unlisted`](SurfaceRules::owns_unlisted) owns every name, any
    /// other only its listed names. Gated (a list, or [`Grant::Nothing`]):
    /// listed are exactly the tools the list names, in input order, narrowed
    /// for op entries; a tool whose declared values the op entries all miss is
    /// dropped (it could take no call).
    pub fn new(
        source: impl Into<String>,
        tools: &[T],
        allowed: &AllowedTools,
        policy: Policy,
        rules: SurfaceRules,
    ) -> Self {
        let source = source.into();
        let list = match policy.grant(allowed, &source) {
            Grant::All => return Self::ungated(source, tools, rules),
            Grant::Only(list) => Some(list),
            Grant::Nothing => None,
        };
        let mut selection = Selection::of(tools, list, &rules);
        let mut owned = HashMap::new();
        if rules.owns_unlisted {
            selection.own_unlisted(list, &mut owned);
        }
        let listed = selection.listed_tools(tools, &mut owned);
        let gated_out = selection
            .seen
            .iter()
            .filter(|name| !owned.contains_key(**name))
            .map(|name| (*name).to_owned())
            .collect();
        let unmatched = unmatched_entries(list, &selection.declared_by_tool, &rules);
        let allowed_ops = selection.allowed_ops;
        Self {
            source,
            rules,
            gated: true,
            tools: listed,
            owned,
            allowed_ops,
            gated_out,
            unmatched,
        }
    }

    /// The discriminator values a call of `name` may carry here, for the
    /// caller's error when a call is [`Refused`](CallDecision::Refused):
    /// `None` when the surface is ungated, does not own `name`, or takes any
    /// value for it (a whole-tool entry); otherwise the allowed values, in
    /// the order of the tool's listed (narrowed) schema when it is listed
    /// and declares them, else as configured (for `describe`: every op an
    /// allowed tool allows, sorted).
    pub fn allowed_values(&self, name: &str) -> Option<Vec<String>> {
        if !self.gated {
            return None;
        }
        let access = self.owned.get(name)?;
        if self.rules.describe_tool.as_deref() == Some(name) {
            // What check_call permits, whatever describe's own enum declares.
            let mut ops: Vec<String> = self
                .allowed_ops
                .iter()
                .filter(|op| access.allows(op))
                .cloned()
                .collect();
            ops.sort();
            return Some(ops);
        }
        let listed = self
            .tools
            .iter()
            .find(|tool| tool.tool_name() == name)
            .and_then(|tool| tool.op_values(&self.rules.discriminator));
        match access {
            Access::Any => None,
            Access::Ops(ops) => Some(listed.unwrap_or_else(|| ops.order.clone())),
        }
    }

    fn ungated(source: String, tools: &[T], rules: SurfaceRules) -> Self {
        let mut owned = HashMap::with_capacity(tools.len());
        for tool in tools {
            owned
                .entry(tool.tool_name().to_owned())
                .or_insert(Access::Any);
        }
        Self {
            source,
            rules,
            gated: false,
            tools: tools.to_vec(),
            owned,
            allowed_ops: HashSet::new(),
            gated_out: HashSet::new(),
            unmatched: Vec::new(),
        }
    }
}

impl<T> GatedSurface<T> {
    /// The source's name (`local`, `door`), the key in the configuration.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The rules the surface was built with.
    pub fn rules(&self) -> &SurfaceRules {
        &self.rules
    }

    /// Whether a list (or deny-by-default) constrains this source.
    pub fn is_gated(&self) -> bool {
        self.gated
    }

    /// The tools to list, in the source's order, op-narrowed where needed.
    pub fn tools(&self) -> &[T] {
        &self.tools
    }

    /// The listed tools, by value.
    pub fn into_tools(self) -> Vec<T> {
        self.tools
    }

    /// Entries of this source's list that match nothing (empty when
    /// ungated), each once, in the order written: warn about them at start.
    pub fn unmatched_entries(&self) -> &[UnmatchedEntry] {
        &self.unmatched
    }

    /// Whether a call named `name` is routed to this source (it may still be
    /// [`Refused`](CallDecision::Refused) for its arguments).
    pub fn owns(&self, name: &str) -> bool {
        self.check_call(name, OpArg::Absent) != CallDecision::NotOwned
    }

    /// Whether this source takes a `tools/call` of `name` whose
    /// discriminator ([`SurfaceRules::discriminator`]) is `op`.
    ///
    /// - ungated: a listed name is [`Permitted`](CallDecision::Permitted);
    ///   any other name too when the source owns unlisted names (the door);
    /// - gated: an allowed tool is permitted, or refused when its entries
    ///   allow other values of the discriminator than the call's; `describe`
    ///   is permitted only for an op some allowed tool allows; an op's own
    ///   name is permitted only if that op is allowed and no tool of that
    ///   name was gated out of this source; anything else is
    ///   [`NotOwned`](CallDecision::NotOwned).
    pub fn check_call(&self, name: &str, op: OpArg<'_>) -> CallDecision {
        let Some(access) = self.owned.get(name) else {
            let direct_op = self.gated
                && self.rules.op_names_callable
                && self.allowed_ops.contains(name)
                && !self.gated_out.contains(name);
            return if direct_op || (!self.gated && self.rules.owns_unlisted) {
                CallDecision::Permitted
            } else {
                CallDecision::NotOwned
            };
        };
        if !self.gated {
            return CallDecision::Permitted;
        }
        // The refusal names the value as the caller spelled it.
        let given = op.value();
        let value = given.map(|value| self.rules.canonical(name, value));
        if self.rules.describe_tool.as_deref() == Some(name) {
            return match value {
                Some(value) if access.allows(value) && self.allowed_ops.contains(value) => {
                    CallDecision::Permitted
                }
                _ => CallDecision::Refused(Refusal::DescribeNotAllowed {
                    tool: name.to_owned(),
                    op: value.map(str::to_owned),
                }),
            };
        }
        match (access, value) {
            (Access::Any, _) => CallDecision::Permitted,
            (Access::Ops(_), Some(value)) if access.allows(value) => CallDecision::Permitted,
            (Access::Ops(_), _) => CallDecision::Refused(Refusal::OpNotAllowed {
                tool: name.to_owned(),
                discriminator: self.rules.discriminator.clone(),
                value: given.map(str::to_owned),
            }),
        }
    }
}

/// The access a list entry grants a tool: an op grant keeps only the ops the
/// tool declares, when it declares any.
fn access_of(grant: &ToolGrant, declared: Option<&HashSet<&str>>) -> Access {
    match grant {
        ToolGrant::Whole => Access::Any,
        ToolGrant::Ops(ops) => Access::Ops(match declared {
            Some(values) => Ops::new(ops.iter().filter(|op| values.contains(op.as_str()))),
            None => Ops::new(ops),
        }),
    }
}

/// The first pass of gating a source's list: which tools are kept, with
/// what access, and which ops the grouped tools allow.
struct Selection<'t> {
    discriminator: &'t str,
    describe: Option<&'t str>,
    /// Indexes of the kept tools in the input, with their access.
    kept: Vec<(usize, Access)>,
    /// Every name the source lists.
    seen: HashSet<&'t str>,
    /// The discriminator values each granted tool declares (first tool of
    /// a name wins), to tell which entries match nothing.
    declared_by_tool: HashMap<&'t str, Option<HashSet<String>>>,
    /// Ops allowed in some grouped tool; describe's own enum is not a grant
    /// of ops.
    allowed_ops: HashSet<String>,
}

impl<'t> Selection<'t> {
    /// Walks `tools` in order and keeps those `list` grants; a tool whose
    /// declared values the op entries all miss is dropped.
    fn of<T: OpTool>(
        tools: &'t [T],
        list: Option<&ServerAllowlist>,
        rules: &'t SurfaceRules,
    ) -> Self {
        let mut selection = Selection {
            discriminator: rules.discriminator.as_str(),
            describe: rules.describe_tool.as_deref(),
            kept: Vec::new(),
            seen: HashSet::new(),
            declared_by_tool: HashMap::new(),
            allowed_ops: HashSet::new(),
        };
        for (index, tool) in tools.iter().enumerate() {
            let name = tool.tool_name();
            selection.seen.insert(name);
            let Some(grant) = list.and_then(|list| list.grant(name)) else {
                continue;
            };
            let declared = tool.op_values(selection.discriminator);
            let declared_set: Option<HashSet<&str>> = declared
                .as_ref()
                .map(|values| values.iter().map(String::as_str).collect());
            selection.declared_by_tool.entry(name).or_insert_with(|| {
                declared_set
                    .as_ref()
                    .map(|values| values.iter().map(|value| (*value).to_owned()).collect())
            });
            if rules.ops_need_declared_values
                && declared.is_none()
                && matches!(grant, ToolGrant::Ops(_))
            {
                continue;
            }
            let access = access_of(&rules.canonical_grant(name, grant), declared_set.as_ref());
            if matches!(&access, Access::Ops(ops) if ops.order.is_empty()) {
                continue;
            }
            if Some(name) != selection.describe {
                match &access {
                    Access::Any => selection.allowed_ops.extend(declared.unwrap_or_default()),
                    Access::Ops(ops) => selection.allowed_ops.extend(ops.order.iter().cloned()),
                }
            }
            selection.kept.push((index, access));
        }
        selection
    }

    /// For a source that accepts names it did not list: owns every name the
    /// list allows that the source does not list (yet), and counts the ops
    /// granted with them as allowed.
    fn own_unlisted(
        &mut self,
        list: Option<&ServerAllowlist>,
        owned: &mut HashMap<String, Access>,
    ) {
        let Some(list) = list else {
            return;
        };
        for entry in list.entries() {
            let name = entry.tool();
            if self.seen.contains(name) || owned.contains_key(name) {
                continue;
            }
            let access = match list.grant(name) {
                Some(ToolGrant::Ops(ops)) => Access::Ops(Ops::new(ops)),
                _ => Access::Any,
            };
            if let (Access::Ops(ops), false) = (&access, Some(name) == self.describe) {
                self.allowed_ops.extend(ops.order.iter().cloned());
            }
            owned.insert(name.to_owned(), access);
        }
    }

    /// The second pass: the kept tools, narrowed where the access is
    /// limited, each name recorded in `owned` with its access.
    fn listed_tools<T: OpTool>(
        &mut self,
        tools: &[T],
        owned: &mut HashMap<String, Access>,
    ) -> Vec<T> {
        let kept = std::mem::take(&mut self.kept);
        let mut listed = Vec::with_capacity(kept.len());
        for (index, access) in kept {
            let Some(tool) = tools.get(index) else {
                continue;
            };
            listed.push(self.narrowed(tool, &access));
            owned.entry(tool.tool_name().to_owned()).or_insert(access);
        }
        listed
    }

    /// `tool` as listed under `access`: describe's enum keeps the ops some
    /// allowed tool allows; a grouped tool's keeps its granted ops.
    fn narrowed<T: OpTool>(&self, tool: &T, access: &Access) -> T {
        if Some(tool.tool_name()) == self.describe {
            return tool.with_ops_narrowed(self.discriminator, &|value| {
                access.allows(value) && self.allowed_ops.contains(value)
            });
        }
        match access {
            Access::Any => tool.clone(),
            Access::Ops(ops) => {
                tool.with_ops_narrowed(self.discriminator, &|value| ops.set.contains(value))
            }
        }
    }
}

/// The entries of `list` that match nothing the source lists, each once, in
/// the order written.
fn unmatched_entries(
    list: Option<&ServerAllowlist>,
    declared_by_tool: &HashMap<&str, Option<HashSet<String>>>,
    rules: &SurfaceRules,
) -> Vec<UnmatchedEntry> {
    list.map(|list| distinct_entries(list.entries()))
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let mismatch = match declared_by_tool.get(entry.tool()) {
                None => Mismatch::NoSuchTool,
                Some(Some(values)) => {
                    match entry.op().map(|op| rules.canonical(entry.tool(), op)) {
                        Some(op) if !values.contains(op) => Mismatch::NoSuchOp,
                        _ => return None,
                    }
                }
                Some(None) if rules.ops_need_declared_values && entry.op().is_some() => {
                    Mismatch::NoDiscriminator
                }
                Some(None) => return None,
            };
            Some(UnmatchedEntry {
                entry: entry.clone(),
                mismatch,
            })
        })
        .collect()
}

/// The first of `surfaces` (in routing order: `local`, then `door`) that
/// takes the call, as its index; `None` means answer -32602 (unknown tool)
/// and route nowhere: no surface owns the name, or the first that owns it
/// refused the call.
pub fn route_call<'s, 'a, T: 's>(
    surfaces: impl IntoIterator<Item = &'s GatedSurface<T>>,
    name: &str,
    op: impl Fn(&str) -> OpArg<'a>,
) -> Option<usize> {
    for (index, surface) in surfaces.into_iter().enumerate() {
        match surface.check_call(name, op(&surface.rules.discriminator)) {
            CallDecision::Permitted => return Some(index),
            CallDecision::NotOwned => {}
            CallDecision::Refused(_) => return None,
        }
    }
    None
}
