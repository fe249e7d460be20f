//! The action-tool framework every local tool is built on.
//!
//! A local tool is one MCP tool taking `action` plus that action's fields.
//! A tool declares its actions once, with [`actions!`]: wire name, the
//! names Hanzo's other servers use for it (aliases), a usage line, whether
//! it only reads, what it can do (its [`Capability`] list), and whether it
//! runs on tokio's blocking pool. From that table this module derives, for
//! every tool alike:
//!
//! - argument parsing: the `action` (an alias is read as its action), then
//!   the fields; an error names the field and the accepted values;
//! - the `help` action's text (each action's capabilities, and what a
//!   grant of the whole tool gives), answered on the caller's task;
//! - the capability table ([`crate::ActionCapabilities`]) and the actions
//!   the `review` mode may use;
//! - where an action runs (the blocking pool, or the caller's task);
//! - the cap on a result's text (a marker says where it was cut);
//! - the tool definition for `tools/list` (honest annotations, and an
//!   input schema made by schemars from the Rust argument types) and each
//!   action's field list in `help`, both made once, by a test, and kept in
//!   `listed.json` (see [`listed`]): the server runs no schema code.

use std::any::TypeId;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, OnceLock, PoisonError};

use mcp_proto::error::{MAX_QUOTED_BYTES, excerpt};
use mcp_proto::{CallToolResult, ContentBlock, Tool};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::capability::{ActionCapabilities, Capability, describe};
use crate::context::ToolContext;
use crate::tool::CallFuture;
use crate::util::{About, ToolResult, run_blocking};

/// One action of a tool, as the tool's table declares it.
#[derive(Debug)]
pub(crate) struct ActionSpec {
    /// The name on the wire (`read`).
    pub(crate) name: &'static str,
    /// Other names accepted for it (`stat` for `fs info`), listed by `help`.
    pub(crate) aliases: &'static [&'static str],
    /// The help line after the name: `{path, [offset]}: what it does.`
    pub(crate) usage: &'static str,
    /// True when the action changes nothing (files, processes, state,
    /// nothing remote either: an HTTP `POST` does not only read).
    pub(crate) reads_only: bool,
    /// What the action can do, in [`Capability::ALL`] order.
    pub(crate) capabilities: &'static [Capability],
    /// True when the action blocks (file system work): it runs on tokio's
    /// blocking pool, so a slow disk never stalls the connection.
    pub(crate) blocking: bool,
}

/// An enum of a tool's actions; implemented by [`actions!`].
pub(crate) trait Action: Copy + Send + Sync + DeserializeOwned + 'static {
    /// Every action, in the order `help` lists them.
    const ALL: &'static [Self];
    /// This action's row of the table.
    fn spec(self) -> &'static ActionSpec;
}

/// One call of a tool: which action, with that action's own fields
/// (an enum with one variant per action but `help`, each holding the
/// action's argument struct); implemented by [`actions!`].
///
/// Each action's struct says which fields are required (a field without
/// `Option` or a default), so no tool checks for a missing field itself:
/// [`call`] parses the struct of the action named, and the error names the
/// action and the field.
pub(crate) trait ActionArgs: Sized + Send + 'static {
    /// The tool's action enum.
    type Action: Action;
    /// The action this call asks for.
    fn action(&self) -> Self::Action;
    /// Parses `fields` (the call's arguments without `action`) as the
    /// arguments of `action`; for `help`, which takes no fields and is
    /// answered by the framework, `None` when none is given.
    fn parse(action: Self::Action, fields: Map<String, Value>) -> Option<Result<Self, String>>;
    /// The members the struct of `action` reads (its fields' names and
    /// their aliases, [`field_names`]); none for `help`. For
    /// [`WithCommon`], the action's own struct's, without the common
    /// fields.
    // Read by `WithCommon` alone.
    #[cfg_attr(not(any(feature = "git", feature = "memory")), allow(dead_code))]
    fn field_names(action: Self::Action) -> &'static [&'static str];
    /// Each action's field schema (not `help`'s), in table order, made by
    /// schemars from the argument types: what [`listed`] keeps.
    #[cfg(test)]
    fn field_schemas() -> Vec<(&'static ActionSpec, Map<String, Value>)>;
}

#[cfg(any(feature = "git", feature = "memory"))]
mod common;
#[cfg(any(feature = "git", feature = "memory"))]
pub(crate) use common::WithCommon;
mod fields;
pub(crate) use fields::arguments;
// Unused in a build without the tools that declare field groups.
#[allow(unused_imports)]
pub(crate) use fields::field_groups;
#[cfg(test)]
pub(crate) mod generate;
mod listed;

/// The future an async action returns.
pub(crate) type ActionFuture<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

/// A local tool built from an action table. [`local_tool!`] turns an
/// `ActionTool` into a [`crate::LocalTool`].
pub(crate) trait ActionTool: Clone + Send + Sync + 'static {
    /// The tool's arguments.
    type Args: ActionArgs;
    /// Its name, title, description and hints in `tools/list`.
    const ABOUT: About;
    /// Lines `help` prints after the actions (limits, conventions).
    const HELP_NOTES: &'static str = "";
    /// True for a tool that starts child processes: its `help` ends with
    /// the variables removed from their environment (which depend on the
    /// toolbox, so they are not part of the cached text).
    const STARTS_CHILDREN: bool = false;
    /// The action a call without `action` gets, if any.
    const DEFAULT_ACTION: Option<&'static str> = None;
    /// True for a tool that takes [`FILE_CHANGES`] itself; for every
    /// other tool an action that writes files holds it shared while it
    /// runs.
    const GUARDS_FILE_CHANGES: bool = false;

    /// How long one call may run when the tool bounds its calls itself
    /// (a `timeout_ms` field); the toolbox's bound then grows to this.
    fn time_limit(&self) -> Option<std::time::Duration> {
        None
    }

    /// Runs an action whose spec says `blocking`, on the blocking pool.
    fn run_blocking(&self, args: Self::Args, ctx: &ToolContext) -> ToolResult {
        let _ = (args, ctx);
        Err(format!(
            "{}: internal error: no blocking actions",
            Self::ABOUT.name
        ))
    }

    /// Runs an action whose spec does not say `blocking`, on the caller's task.
    fn run_async<'a>(&'a self, args: Self::Args, ctx: ToolContext) -> ActionFuture<'a> {
        let _ = (args, ctx);
        Box::pin(async {
            Err(format!(
                "{}: internal error: no async actions",
                Self::ABOUT.name
            ))
        })
    }
}

/// Held shared by every action that writes files under the roots while
/// it runs, and exclusively by a `git` call that may start no program,
/// from its first check of the repository to its last command: what git
/// is allowed to read and run is decided from the files as they were
/// checked, so no other call of this process may change them in between
/// (a directory swapped for a symlink, a branch switched so that a
/// conditional include applies).
pub(crate) static FILE_CHANGES: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// The tool definition of `T` for `tools/list`: its [`About`] and the
/// input schema [`listed`] keeps for it.
pub(crate) fn definition<T: ActionTool>() -> Tool {
    T::ABOUT.definition(listed::input_schema(T::ABOUT.name))
}

/// The members a struct's derived `Deserialize` reads: its fields' names
/// (as renamed) and their aliases, in declaration order, as serde's
/// derive hands them to a deserializer; empty for a type that is not a
/// struct. Nothing is parsed.
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{Error as _, Visitor, value::Error};
    /// A deserializer that only notes the field list a struct asks for.
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for Names<'_> {
        type Error = Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Error::custom("only the field names are read"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Error> {
            *self.0 = fields;
            Err(Error::custom("only the field names are read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut names));
    names
}

arguments! {
    /// The fields of an action that takes none (any field is refused).
    pub(crate) struct NoArgs {}
}

/// The `help` row every tool's table ends with ([`actions!`] adds it).
pub(crate) const HELP: ActionSpec = ActionSpec {
    name: "help",
    aliases: &[],
    usage: "this text.",
    reads_only: true,
    capabilities: &[],
    blocking: false,
};

impl ActionSpec {
    /// True when the action only reads and has no capability that changes
    /// something (write files, run programs, state): what the `review`
    /// mode is made of.
    pub(crate) fn only_reads(&self) -> bool {
        self.reads_only && !self.capabilities.iter().any(|c| c.changes())
    }
}

/// Every action of `T` with whether it belongs to the `review` mode, in
/// `help` order: it only reads ([`ActionSpec::only_reads`]), and its tool
/// runs no programs (a program runner's reading actions show what its
/// programs printed, which is no file's content: a grant of the whole
/// tool with [`Capability::RunPrograms`] keeps all of them out).
pub(crate) fn action_list<T: ActionTool>() -> Vec<(&'static str, bool)> {
    let runs_programs = tool_capabilities::<T>().contains(&Capability::RunPrograms);
    <<T::Args as ActionArgs>::Action as Action>::ALL
        .iter()
        .map(|a| (a.spec().name, a.spec().only_reads() && !runs_programs))
        .collect()
}

/// The capability table of `T`, one row per action in `help` order.
pub(crate) fn capability_list<T: ActionTool>() -> Vec<ActionCapabilities> {
    <<T::Args as ActionArgs>::Action as Action>::ALL
        .iter()
        .map(|a| {
            let spec = a.spec();
            ActionCapabilities {
                tool: T::ABOUT.name,
                action: spec.name,
                aliases: spec.aliases.to_vec(),
                capabilities: spec.capabilities.to_vec(),
            }
        })
        .collect()
}

/// Every capability some action of `T` has: what a grant of the whole
/// tool gives, in [`Capability::ALL`] order.
pub(crate) fn tool_capabilities<T: ActionTool>() -> Vec<Capability> {
    let actions = <<T::Args as ActionArgs>::Action as Action>::ALL;
    Capability::ALL
        .into_iter()
        .filter(|c| actions.iter().any(|a| a.spec().capabilities.contains(c)))
        .collect()
}

/// Every alias of `T`'s actions with the action it names, in `help` order.
pub(crate) fn alias_list<T: ActionTool>() -> Vec<(&'static str, &'static str)> {
    <<T::Args as ActionArgs>::Action as Action>::ALL
        .iter()
        .flat_map(|a| {
            let spec = a.spec();
            spec.aliases.iter().map(move |alias| (*alias, spec.name))
        })
        .collect()
}

/// Runs one call of `tool`: parse, `help`, dispatch, cap.
pub(crate) fn call<T: ActionTool>(
    tool: &T,
    arguments: Map<String, Value>,
    ctx: ToolContext,
) -> CallFuture<'_> {
    Box::pin(async move {
        let args = match parse_call::<T>(arguments) {
            Ok(Some(args)) => args,
            Ok(None) => return CallToolResult::text(help_with_children::<T>()),
            Err(message) => return CallToolResult::error(message),
        };
        let spec = args.action().spec();
        let _changing =
            if !T::GUARDS_FILE_CHANGES && spec.capabilities.contains(&Capability::WriteFiles) {
                Some(FILE_CHANGES.read().await)
            } else {
                None
            };
        let result = if spec.blocking {
            let tool = tool.clone();
            let work_ctx = ctx.clone();
            run_blocking(&ctx, move || tool.run_blocking(args, &work_ctx)).await
        } else {
            tool.run_async(args, ctx)
                .await
                .unwrap_or_else(CallToolResult::error)
        };
        cap_result(result, crate::util::RESULT_CAP)
    })
}

/// The call `arguments` make: the action they name (the tool's default
/// when they name none), then that action's own fields; `None` for
/// `help`. An error is one line naming what is wrong: a missing field as
/// `read: missing field 'path'`.
pub(crate) fn parse_call<T: ActionTool>(
    mut arguments: Map<String, Value>,
) -> Result<Option<T::Args>, String> {
    /// Only the `action` member of a call (the other members are the
    /// action's and are read once it is known).
    #[derive(serde::Deserialize)]
    struct Named<A> {
        action: A,
    }
    type ActionOf<T> = <<T as ActionTool>::Args as ActionArgs>::Action;
    let named = match arguments.remove("action") {
        Some(action) => Map::from_iter([("action".to_owned(), action)]),
        None => match T::DEFAULT_ACTION {
            Some(default) => Map::from_iter([("action".to_owned(), Value::from(default))]),
            None => Map::new(),
        },
    };
    let action = parse_args::<Named<ActionOf<T>>>(named)?.action;
    // Models send `null` for a field they mean to leave out.
    arguments.retain(|_, value| !value.is_null());
    let name = action.spec().name;
    let parsed = match <T::Args as ActionArgs>::parse(action, arguments) {
        Some(parsed) => parsed.map(Some),
        None => Ok(None),
    };
    parsed.map_err(|message| name_the_action(name, message))
}

/// `message` (from [`parse_args`]) naming `action`: a missing field as
/// `read: missing field 'path'`, an unknown one as `read: unknown field
/// ...` (serde's text names what the action takes); others as they are.
fn name_the_action(action: &str, message: String) -> String {
    let Some(inner) = message.strip_prefix("invalid arguments: ") else {
        return message;
    };
    match inner
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        Some(field) => format!("{action}: missing field '{field}'"),
        // Serde's text names the field and what the action takes; the
        // path after it would name the field again.
        None if inner.starts_with("unknown field") => {
            let text = inner
                .rsplit_once(" (field '")
                .map_or(inner, |(text, _)| text);
            format!("{action}: {text}")
        }
        None => message,
    }
}

/// Parses `arguments` into `T`. The error is one line: serde's message
/// (which names the accepted values of an enum and the known fields), then
/// the field it concerns when serde's message does not say.
pub(crate) fn parse_args<T: DeserializeOwned>(arguments: Map<String, Value>) -> Result<T, String> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        // Both may quote the caller's field names, of any length; the
        // message also lists the accepted values, which must stay whole.
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let (path, inner) = (excerpt(&path, MAX_QUOTED_BYTES), excerpt(&inner, 4096));
        if path.is_empty() || path == "." {
            format!("invalid arguments: {inner}")
        } else {
            format!("invalid arguments: {inner} (field '{path}')")
        }
    })
}

/// The `help` text of `T`, with the variables removed from a child's
/// environment for a tool that starts children.
fn help_with_children<T: ActionTool>() -> String {
    let mut text = help::<T>();
    if T::STARTS_CHILDREN {
        text.push_str(&format!(
            "Removed from every child process's environment: {}.\n",
            crate::child_env::current().removed().join(", ")
        ));
    }
    text
}

/// The `help` text of `T`, built once per tool type and copied out (it
/// depends on the type alone).
pub(crate) fn help<T: ActionTool>() -> String {
    static TEXTS: OnceLock<Mutex<HashMap<TypeId, String>>> = OnceLock::new();
    TEXTS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(TypeId::of::<T>())
        .or_insert_with(help_text::<T>)
        .clone()
}

/// The `help` text of `T`: one line per action with its fields, aliases,
/// what it does and what it can do, then the tool's notes, what a grant of
/// the whole tool gives, and the actions that only read.
fn help_text<T: ActionTool>() -> String {
    let mut text = format!(
        "{} actions (fields in brackets are optional):\n",
        T::ABOUT.name
    );
    let actions = <<T::Args as ActionArgs>::Action as Action>::ALL;
    let fields = listed::field_lists(T::ABOUT.name);
    for spec in actions.iter().map(|a| a.spec()) {
        text.push_str(spec.name);
        if let Some(names) = fields.get(spec.name) {
            text.push_str(&format!(" {{{}}}", names.join(", ")));
        }
        text.push_str(": ");
        text.push_str(spec.usage);
        if !spec.aliases.is_empty() {
            text.push_str(&format!(" (also called: {})", spec.aliases.join(", ")));
        }
        if spec.name != "help" {
            text.push_str(&format!(" [can: {}]", describe(spec.capabilities)));
        }
        text.push('\n');
    }
    if !T::HELP_NOTES.is_empty() {
        text.push_str(T::HELP_NOTES);
        text.push('\n');
    }
    text.push_str(&format!(
        "A grant of the whole tool ({}) gives: {}.\n",
        T::ABOUT.name,
        describe(&tool_capabilities::<T>())
    ));
    let reading: Vec<&str> = actions
        .iter()
        .map(|a| a.spec())
        .filter(|s| s.only_reads() && s.name != "help")
        .map(|s| s.name)
        .collect();
    text.push_str(&format!(
        "Actions that only read: {}.\n",
        if reading.is_empty() {
            "none".to_owned()
        } else {
            reading.join(", ")
        }
    ));
    text
}

/// Cuts the text blocks of `result` so their bytes add up to at most `cap`
/// (on a character boundary), with a marker line where it was cut.
pub(crate) fn cap_result(mut result: CallToolResult, cap: usize) -> CallToolResult {
    // The structured copy repeats the text's facts: past the cap it is left
    // out, never sent uncut.
    let structured = result
        .structured_content
        .as_ref()
        .map(|v| serde_json::to_string(v).map_or(usize::MAX, |s| s.len()));
    let dropped = structured.filter(|&b| b > cap);
    if dropped.is_some() {
        result.structured_content = None;
    }
    let mut left = cap;
    let mut cut = false;
    for block in &mut result.content {
        let ContentBlock::Text(text) = block else {
            continue;
        };
        if cut {
            text.text.clear();
            continue;
        }
        if text.text.len() <= left {
            left -= text.text.len();
            continue;
        }
        let total = text.text.len();
        let mut end = left;
        while !text.text.is_char_boundary(end) {
            end -= 1;
        }
        text.text.truncate(end);
        text.text.push_str(&format!(
            "\n[result cut at {cap} bytes ({total} in this block); narrow the request or page it]\n"
        ));
        cut = true;
    }
    if cut {
        result
            .content
            .retain(|b| !matches!(b, ContentBlock::Text(t) if t.text.is_empty()));
    }
    if let Some(bytes) = dropped {
        result.content.push(ContentBlock::text(format!(
            "[structured copy left out: {bytes} bytes, over the {cap}-byte cap; narrow or page the request]\n"
        )));
    }
    result
}

/// Declares a tool's action enum, its table (see [`ActionSpec`]; the
/// `help` row is added) and the enum of its calls, one variant per action
/// holding that action's argument struct:
///
/// ```text
/// actions! {
///     /// Which `fs` action to run.
///     pub(crate) enum FsAction for FsCall {
///         Read(ReadArgs) = "read" { reads: true, can: [ReadFiles], pool: true, usage: "the file's lines." },
///         Info(PathArgs) = "info" ["stat"] { reads: true, can: [ReadFiles], pool: true, usage: "type and size." },
///     }
/// }
/// ```
///
/// An argument struct derives `Deserialize` (with `deny_unknown_fields`)
/// and `JsonSchema`; its doc comments are the fields' descriptions, and
/// the fields it requires are those without `Option` or a default.
/// Fields every action of a tool takes (`git`'s `path` and `timeout_ms`)
/// are declared once, in a struct of their own: the tool's arguments are
/// then `WithCommon<ThatStruct, FsCall>` (see `WithCommon`).
macro_rules! actions {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident for $Call:ident {
            $(
                $Variant:ident($Args:ty) = $name:literal $([$($alias:literal),+])?
                { reads: $reads:expr, can: [$($cap:ident),* $(,)?], pool: $pool:expr, usage: $usage:expr $(,)? }
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
        $vis enum $Enum {
            $(
                #[serde(rename = $name $($(, alias = $alias)+)?)]
                $Variant,
            )+
            /// The tool's actions and their fields (answered by the framework).
            #[serde(rename = "help")]
            Help,
        }

        impl crate::action::Action for $Enum {
            const ALL: &'static [Self] = &[$($Enum::$Variant,)+ $Enum::Help];
            fn spec(self) -> &'static crate::action::ActionSpec {
                match self {
                    $(
                        $Enum::$Variant => &crate::action::ActionSpec {
                            name: $name,
                            aliases: &[$($($alias),+)?],
                            usage: $usage,
                            reads_only: $reads,
                            capabilities: &[$(crate::capability::Capability::$cap),*],
                            blocking: $pool,
                        },
                    )+
                    $Enum::Help => &crate::action::HELP,
                }
            }
        }

        /// One call: the action with its own fields.
        #[derive(Debug)]
        $vis enum $Call {
            $(
                #[doc = concat!("`", $name, "`.")]
                $Variant($Args),
            )+
        }

        impl crate::action::ActionArgs for $Call {
            type Action = $Enum;

            fn action(&self) -> $Enum {
                match self {
                    $($Call::$Variant(_) => $Enum::$Variant,)+
                }
            }

            fn parse(
                action: $Enum,
                fields: serde_json::Map<String, serde_json::Value>,
            ) -> Option<Result<Self, String>> {
                match action {
                    $(
                        $Enum::$Variant => {
                            Some(crate::action::parse_args::<$Args>(fields).map($Call::$Variant))
                        }
                    )+
                    // `help` takes no fields either; the framework answers it.
                    $Enum::Help => crate::action::parse_args::<crate::action::NoArgs>(fields)
                        .err()
                        .map(Err),
                }
            }

            fn field_names(action: $Enum) -> &'static [&'static str] {
                match action {
                    $($Enum::$Variant => crate::action::field_names::<$Args>(),)+
                    $Enum::Help => &[],
                }
            }

            #[cfg(test)]
            fn field_schemas() -> Vec<(
                &'static crate::action::ActionSpec,
                serde_json::Map<String, serde_json::Value>,
            )> {
                use crate::action::Action as _;
                let mut generator = crate::action::generate::schema_generator();
                vec![$((
                    $Enum::$Variant.spec(),
                    crate::action::generate::input_schema_in::<$Args>(&mut generator),
                ),)+]
            }
        }
    };
}
pub(crate) use actions;

/// Implements [`crate::LocalTool`] for an [`ActionTool`].
macro_rules! local_tool {
    ($Tool:ty) => {
        impl crate::tool::LocalTool for $Tool {
            fn name(&self) -> &'static str {
                <$Tool as crate::action::ActionTool>::ABOUT.name
            }

            fn definition(&self) -> mcp_proto::Tool {
                crate::action::definition::<$Tool>()
            }

            fn call<'a>(
                &'a self,
                arguments: serde_json::Map<String, serde_json::Value>,
                ctx: crate::context::ToolContext,
            ) -> crate::tool::CallFuture<'a> {
                crate::action::call(self, arguments, ctx)
            }

            fn time_limit(&self) -> Option<std::time::Duration> {
                <$Tool as crate::action::ActionTool>::time_limit(self)
            }

            fn actions(&self) -> Vec<(&'static str, bool)> {
                crate::action::action_list::<$Tool>()
            }

            fn action_aliases(&self) -> Vec<(&'static str, &'static str)> {
                crate::action::alias_list::<$Tool>()
            }

            fn capabilities(&self) -> Vec<crate::capability::ActionCapabilities> {
                crate::action::capability_list::<$Tool>()
            }
        }
    };
}
pub(crate) use local_tool;

#[cfg(all(test, feature = "fs", feature = "git"))]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::FILE_CHANGES;
    use crate::{Roots, ToolContext, Toolbox};

    /// Calls `tool` with `args` on its own task; `run_programs` as given.
    fn spawn_call(
        roots: &Roots,
        run_programs: bool,
        tool: &'static str,
        args: Value,
    ) -> tokio::task::JoinHandle<bool> {
        let mut ctx = ToolContext::new(roots.clone());
        ctx.run_programs = run_programs;
        let Value::Object(args) = args else {
            unreachable!("arguments are an object")
        };
        tokio::spawn(async move {
            let result = Toolbox::with_default_tools()
                .call(tool, args, ctx)
                .await
                .expect("a known tool");
            result.is_error != Some(true)
        })
    }

    /// A locked `git` call waits for a file write in progress, and a file
    /// write waits for a locked `git` call: neither runs while the other
    /// holds the lock (held here by hand, as the other call would).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn locked_git_calls_and_file_writes_exclude_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(init.success());
        let roots = Roots::new(vec![root.clone()]).unwrap();

        let writing = FILE_CHANGES.read().await;
        let status = spawn_call(&roots, false, "git", json!({"action": "status"}));
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!status.is_finished(), "git ran during a file write");
        drop(writing);
        assert!(status.await.unwrap(), "git status runs once the write ends");

        let git_call = FILE_CHANGES.write().await;
        let write = spawn_call(
            &roots,
            false,
            "fs",
            json!({"action": "write", "path": "a.txt", "content": "x"}),
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!write.is_finished(), "a file was written during a git call");
        assert!(!root.join("a.txt").exists());
        drop(git_call);
        assert!(write.await.unwrap(), "the write runs once git ends");
        assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "x");
    }
}
