//! The `exec` tool: run a command on the machine (HIP-0300 §2.1), bounded.
//!
//! - `run {command, [cwd], [env], [stdin], [timeout_ms], [background]}`
//!   (alias `exec`): `command` is a string (run by `sh -c`, the caller's own
//!   shell line) or an argv array (run directly, no shell). The result has
//!   the exit code or signal, `duration_ms`, and stdout and stderr, each
//!   capped at [`OUTPUT_CAP`] bytes (head and tail kept, the bytes dropped
//!   counted), as text and as `structuredContent`. A non-zero exit, a signal
//!   or a timeout is `isError: true`. With `background: true` it answers a
//!   job id at once.
//! - `output {id, [offset], [tail]}` (alias `logs`), `wait {id,
//!   [timeout_ms]}`, `write {id, text, [eof]}`, `kill {id, [signal]}`,
//!   `list` (alias `ps`): background jobs, their output spooled to a
//!   bounded file under the state folder.
//!
//! Every command runs in a process group of its own (see the process
//! runner): a timeout, `notifications/cancelled` or the server's shutdown
//! (a normal exit, EOF, SIGTERM) kills the whole group, and the output read
//! so far is still returned on a timeout. A server killed outright
//! (SIGKILL) kills only the direct child (on Linux, by its death signal):
//! the children of a `sh -c` line outlive it; for background jobs the next
//! server on the same state folder kills what is left (see the job table's docs). A
//! child never reads the server's stdin nor writes its stdout.
//!
//! A command's environment is the server's without its credentials:
//! `HANZO_API_KEY`, `HANZO_MCP_HTTP_BEARER` and the names given to
//! [`crate::Toolbox::set_secret_env`] are removed (`help` lists them);
//! the call's own `env` (`{"NAME": "value"}`) is set after that.
//!
//! No command blocklist is offered as security: narrowing what an agent may
//! run is the allowlist's job (`exec:run` entries, `--allowed-tools`).

mod jobs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::action::{
    ActionFuture, ActionTool, NoArgs, actions, arguments, field_groups, local_tool,
};
use crate::context::ToolContext;
use crate::process::{self, End, LineProgress, Spec};
use crate::util::{About, Hints, ToolResult};

pub use jobs::MAX_JOB_SPOOL_BYTES;

/// Bytes of stdout, and of stderr, one `run` result keeps (head and tail).
pub const OUTPUT_CAP: usize = 30_000;
/// Default `timeout_ms` of `run`: 120,000 ms.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default largest `timeout_ms` a call may ask for: 600,000 ms.
pub const DEFAULT_MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// The `exec` local tool. Cheap to clone; clones share the job table.
#[derive(Debug, Clone)]
pub struct ExecTool {
    max_timeout: Duration,
    jobs: Arc<jobs::Jobs>,
}

impl Default for ExecTool {
    fn default() -> ExecTool {
        ExecTool::new()
    }
}

impl ExecTool {
    /// The tool with the default limits; job output is spooled under the
    /// state folder ([`crate::state::state_dir`]) in `jobs/`.
    pub fn new() -> ExecTool {
        ExecTool {
            max_timeout: DEFAULT_MAX_TIMEOUT,
            jobs: Arc::new(jobs::Jobs::new(None)),
        }
    }

    /// Spools job output in `dir` instead of the state folder.
    pub fn with_spool_dir(mut self, dir: PathBuf) -> ExecTool {
        self.jobs = Arc::new(jobs::Jobs::new(Some(dir)));
        self
    }

    /// Sets the largest `timeout_ms` a call may ask for (default
    /// [`DEFAULT_MAX_TIMEOUT`]); a larger request is refused.
    pub fn with_max_timeout(mut self, max: Duration) -> ExecTool {
        self.max_timeout = max;
        self
    }

    fn timeout(&self, asked: Option<u64>, default: Duration) -> Result<Duration, String> {
        let Some(ms) = asked else {
            return Ok(default.min(self.max_timeout));
        };
        let asked = Duration::from_millis(ms);
        if ms == 0 || asked > self.max_timeout {
            return Err(format!(
                "timeout_ms must be 1..={} (got {ms})",
                self.max_timeout.as_millis()
            ));
        }
        Ok(asked)
    }
}

actions! {
    /// Which `exec` action to run.
    pub(crate) enum ExecAction for ExecCall {
        Run(RunArgs) = "run" ["exec"] { reads: false, can: [RunPrograms], pool: false, usage: "run `command` (a string runs under sh -c; an array of strings is an argv, no shell) in cwd (default: the first root) with env added and stdin as its input; waits at most timeout_ms (default 120000, at most 600000), then kills the process group and returns the output so far. Returns the exit code or signal, duration_ms, stdout and stderr (each capped at 30000 bytes, head and tail kept). A non-zero exit is an error result. background: true returns a job id at once. Also accepted: timeout for timeout_ms, run_in_background for background." },
        Output(OutputArgs) = "output" ["logs"] { reads: true, can: [State], pool: false, usage: "a job's output (stdout and stderr as written): since the last read by default, from byte offset, or its last `tail` lines (tail 0: none, an empty page at the end); at most 30000 bytes a read." },
        Wait(WaitArgs) = "wait" { reads: true, can: [State], pool: false, usage: "wait until the job ends or timeout_ms passes (default 30000); returns its state and the output since the last read." },
        Write(WriteArgs) = "write" { reads: false, can: [RunPrograms], pool: false, usage: "write text to the job's stdin; eof: true closes it afterwards (text may then be left out)." },
        Kill(KillArgs) = "kill" { reads: false, can: [RunPrograms], pool: false, usage: "send signal (TERM by default; KILL, INT, HUP, QUIT, USR1, USR2) to the job's whole process group." },
        List(NoArgs) = "list" ["ps"] { reads: true, can: [], pool: false, usage: "the jobs of this server: id, state, pid, runtime, command." },
    }
}

/// A command: a shell line or an argv.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum CommandLine {
    /// Run by `sh -c`.
    Shell(String),
    /// Run directly: program, then its arguments.
    Argv(Vec<String>),
}

impl CommandLine {
    fn argv(&self) -> Result<Vec<String>, String> {
        match self {
            CommandLine::Shell(line) if line.trim().is_empty() => {
                Err("run: 'command' is empty".to_owned())
            }
            CommandLine::Shell(line) => Ok(vec!["sh".to_owned(), "-c".to_owned(), line.clone()]),
            CommandLine::Argv(argv) if argv.is_empty() || argv[0].is_empty() => {
                Err("run: 'command' is an empty argv (the program comes first)".to_owned())
            }
            CommandLine::Argv(argv) => Ok(argv.clone()),
        }
    }

    /// How the command is shown in results and job lists.
    fn display(&self) -> String {
        match self {
            CommandLine::Shell(line) => line.clone(),
            CommandLine::Argv(argv) => argv
                .iter()
                .map(|a| {
                    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c);
                    if a.is_empty() || !a.chars().all(plain) {
                        format!("'{}'", a.replace('\'', "'\\''"))
                    } else {
                        a.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// Arguments of `exec run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunArgs {
    /// A shell line (run by sh -c) or an argv array (run directly).
    command: CommandLine,
    /// The working directory, inside the roots (default: the first root).
    cwd: Option<String>,
    /// Environment variables to add or replace.
    env: Option<BTreeMap<String, String>>,
    /// Text given to the command's stdin (default: empty).
    stdin: Option<String>,
    /// Milliseconds before the process group is killed (default 120000, at most 600000; also accepted: timeout).
    #[serde(alias = "timeout")]
    timeout_ms: Option<u64>,
    /// Start as a background job and return its id at once (default false; also accepted: run_in_background).
    #[serde(default, alias = "run_in_background")]
    background: bool,
    /// What the command is for, in a few words; not used by the tool.
    #[allow(dead_code)]
    description: Option<String>,
}

field_groups! {
    /// The background job `output`, `wait`, `write` and `kill` work on.
    job_id {
        /// The job id that run with background: true returned (list shows them; a string, its number is accepted too).
        #[serde(deserialize_with = "crate::util::text_id")]
        id: String,
    }
}

arguments! {
    /// Arguments of `exec output`.
    pub(crate) struct OutputArgs {
        ..job_id,
        /// Byte offset to read from (default: where the last read stopped).
        offset: Option<u64>,
        /// Only the last this many lines (0: none, an empty page at the end).
        tail: Option<u64>,
    }
}

arguments! {
    /// Arguments of `exec wait`.
    pub(crate) struct WaitArgs {
        ..job_id,
        /// How long to wait, in milliseconds (default 30000, at most 600000; also accepted: timeout).
        #[serde(alias = "timeout")]
        timeout_ms: Option<u64>,
    }
}

arguments! {
    /// Arguments of `exec write`.
    pub(crate) struct WriteArgs {
        ..job_id,
        /// The text to send to the job's stdin (required unless eof is true).
        text: Option<String>,
        /// Close the job's stdin after the text (default false).
        #[serde(default)]
        eof: bool,
    }
}

arguments! {
    /// Arguments of `exec kill`.
    pub(crate) struct KillArgs {
        ..job_id,
        /// TERM (default), KILL, INT, HUP, QUIT, USR1 or USR2.
        signal: Option<String>,
    }
}

const DESCRIPTION: &str = "Run a command on this machine: a shell line (sh -c) or an argv array, in a directory inside the roots, with a timeout (the whole process group is killed, the output so far returned), capped stdout and stderr, and background jobs (output, wait, write, kill, list). A non-zero exit is an error result. This tool runs whatever it is given; to narrow what an agent may run, use the server's tool allowlist (for example only exec:list), not this tool. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for ExecTool {
    type Args = ExecCall;
    const ABOUT: About = About::new("exec", "Run commands", Hints::CHANGES_ANYWHERE, DESCRIPTION);
    const STARTS_CHILDREN: bool = true;
    const HELP_NOTES: &'static str = "Commands run in their own process group: a timeout, a cancelled request or the server's exit kills the whole group. stdin is the given text or empty, never the server's. A command gets the server's environment without its credentials (the variables named below), then env: {\"NAME\": \"value\"} of the call. Background job output is kept in a spool file of at most 64 MiB; finished jobs are kept for an hour (at most 32). A job belongs to the session that started it: over streamable HTTP another client's session neither lists it nor reaches it.";

    fn time_limit(&self) -> Option<Duration> {
        // The tool bounds its own calls (timeout_ms, at most max_timeout);
        // the toolbox's bound must not cut a long command short.
        Some(self.max_timeout + process::KILL_GRACE + process::DRAIN_AFTER_KILL * 2)
    }

    fn run_async<'a>(&'a self, call: ExecCall, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            match call {
                ExecCall::Run(args) if args.background => self.start_job(&args, &ctx),
                ExecCall::Run(args) => self.run(&args, &ctx).await,
                ExecCall::Output(args) => {
                    self.jobs
                        .output(ctx.session, &args.id, args.offset, args.tail)
                }
                ExecCall::Wait(args) => {
                    let limit = self.timeout(args.timeout_ms, jobs::DEFAULT_WAIT)?;
                    self.jobs
                        .wait(ctx.session, &args.id, limit, &ctx.cancel)
                        .await
                }
                ExecCall::Write(args) => {
                    // Text may be left out only to close stdin.
                    if args.text.is_none() && !args.eof {
                        return Err("write: missing field 'text'".to_owned());
                    }
                    let text = args.text.as_deref().unwrap_or("");
                    self.jobs.write(ctx.session, &args.id, text, args.eof).await
                }
                ExecCall::Kill(args) => {
                    self.jobs
                        .kill(ctx.session, &args.id, args.signal.as_deref())
                }
                ExecCall::List(NoArgs {}) => Ok(self.jobs.list(ctx.session)),
            }
        })
    }
}

local_tool!(ExecTool);

impl ExecTool {
    fn spec(args: &RunArgs, ctx: &ToolContext) -> Result<(Spec, String), String> {
        let command = &args.command;
        let cwd = match args.cwd.as_deref() {
            Some(cwd) => {
                let resolved = ctx.roots.resolve_existing(cwd).map_err(|e| e.to_string())?;
                if !resolved.path.is_dir() {
                    return Err(format!("cwd '{cwd}': not a directory"));
                }
                resolved.path
            }
            None => ctx.roots.primary().to_path_buf(),
        };
        let mut env = Vec::new();
        for (name, value) in args.env.iter().flatten() {
            if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
                return Err(format!(
                    "env: '{}' is not a variable name (no '=' or NUL) with a value without NUL",
                    name.escape_debug()
                ));
            }
            env.push((name.clone(), value.clone()));
        }
        let spec = Spec {
            argv: command.argv()?,
            cwd,
            env,
            env_remove: Vec::new(),
            stdin: args.stdin.clone(),
        };
        Ok((spec, command.display()))
    }

    async fn run(&self, args: &RunArgs, ctx: &ToolContext) -> ToolResult {
        let timeout = self.timeout(args.timeout_ms, DEFAULT_TIMEOUT)?;
        let (spec, shown) = Self::spec(args, ctx)?;
        let progress = ctx.progress.clone();
        let counter = std::sync::atomic::AtomicU64::new(0);
        let report = move |line: &str| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.report(n as f64, None, Some(line.to_owned()));
        };
        let hook = ctx.progress.is_enabled().then_some(LineProgress {
            report: &report,
            every: Duration::from_millis(250),
        });
        let outcome = process::run(&spec, timeout, &ctx.cancel, OUTPUT_CAP, hook).await?;
        Ok(run_result(&shown, &outcome, timeout))
    }

    fn start_job(&self, args: &RunArgs, ctx: &ToolContext) -> ToolResult {
        let (mut spec, shown) = Self::spec(args, ctx)?;
        if args.timeout_ms.is_some() {
            return Err(
                "run: timeout_ms does not apply to a background job (stop it with kill)".to_owned(),
            );
        }
        // A job keeps its stdin open for `write`.
        spec.stdin.get_or_insert_with(String::new);
        self.jobs.start(ctx.session, spec, shown)
    }
}

/// The result of a foreground `run`.
fn run_result(shown: &str, outcome: &process::Outcome, timeout: Duration) -> CallToolResult {
    let end = outcome.end;
    let rest = "the middle is not kept; run it with background: true and page it with output";
    let stdout = outcome.stdout.text(rest);
    let stderr = outcome.stderr.text(rest);
    let mut text = format!(
        "$ {shown}\n{} · {} ms\n",
        end.describe(timeout),
        outcome.duration.as_millis()
    );
    for (name, body) in [("stdout", &stdout), ("stderr", &stderr)] {
        if !body.is_empty() {
            text.push_str(&format!("--- {name} ---\n{body}"));
            if !body.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    let (code, signal) = match end {
        End::Exited(code) => (Some(code), None),
        End::Signaled(signal) => (None, Some(signal)),
        End::TimedOut | End::Cancelled => (None, None),
    };
    let structured = json!({
        "command": shown,
        "exitCode": code,
        "signal": signal,
        "timedOut": end == End::TimedOut,
        "durationMs": outcome.duration.as_millis() as u64,
        "stdout": stdout,
        "stderr": stderr,
        "stdoutBytes": outcome.stdout.total(),
        "stderrBytes": outcome.stderr.total(),
        "stdoutDropped": outcome.stdout.dropped(),
        "stderrDropped": outcome.stderr.dropped(),
    });
    let mut result = if end.success() {
        CallToolResult::text(text)
    } else {
        CallToolResult::error(text)
    };
    result.structured_content = Some(structured);
    result
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{ExecCall, ExecTool};
    use crate::util::parse_for_test;

    fn parse(args: Value) -> Result<Option<ExecCall>, String> {
        parse_for_test::<ExecTool>(args)
    }

    #[test]
    fn a_missing_field_is_named_with_the_action_an_alias_names() {
        assert_eq!(
            parse(json!({"action": "logs"})).unwrap_err(),
            "output: missing field 'id'"
        );
    }

    #[test]
    fn ids_are_text_or_whole_numbers() {
        for id in [json!(7), json!("7")] {
            match parse(json!({"action": "output", "id": id})) {
                Ok(Some(ExecCall::Output(args))) => assert_eq!(args.id, "7"),
                other => panic!("{other:?}"),
            }
        }
        let text = parse(json!({"action": "kill", "id": 1.5})).unwrap_err();
        assert_eq!(
            text,
            "invalid arguments: invalid id 1.5: expected a string or a whole number (field 'id')"
        );
        // `null` is read as absent.
        let text = parse(json!({"action": "kill", "id": null})).unwrap_err();
        assert_eq!(text, "kill: missing field 'id'");
    }

    #[test]
    fn aliases_and_defaults_are_read() {
        match parse(
            json!({"action": "exec", "command": "true", "timeout": 5, "run_in_background": true}),
        ) {
            Ok(Some(ExecCall::Run(args))) => {
                assert_eq!(args.timeout_ms, Some(5));
                assert!(args.background);
            }
            other => panic!("{other:?}"),
        }
        match parse(json!({"action": "run", "command": ["ls", "-l"], "description": "list"})) {
            Ok(Some(ExecCall::Run(args))) => {
                assert!(!args.background);
                assert_eq!(args.command.display(), "ls -l");
            }
            other => panic!("{other:?}"),
        }
        match parse(json!({"action": "write", "id": "3", "eof": true})) {
            Ok(Some(ExecCall::Write(args))) => assert!(args.eof && args.text.is_none()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_field_the_action_does_not_take_is_refused() {
        let text = parse(json!({"action": "ps", "id": "1"})).unwrap_err();
        assert!(text.starts_with("list: unknown field `id`"), "{text}");
        let text = parse(json!({"action": "output", "id": "1", "text": "x"})).unwrap_err();
        assert!(text.starts_with("output: unknown field `text`"), "{text}");
    }

    #[test]
    fn help_is_left_to_the_framework() {
        assert!(parse(json!({"action": "help"})).unwrap().is_none());
    }
}
