//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_local_tools::{Roots, ToolContext, Toolbox};
use mcp_proto::CallToolResult;
use serde_json::{Value, json};

/// `args` as the map a tool is called with.
fn arguments(args: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = args else {
        panic!("args must be an object")
    };
    map
}

/// All the text of `result`.
pub fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

/// Calls `tool` of `toolbox` with `args` in `ctx`; returns the whole
/// result.
pub async fn toolbox_result(
    toolbox: &Toolbox,
    tool: &str,
    ctx: ToolContext,
    args: Value,
) -> CallToolResult {
    toolbox
        .call(tool, arguments(args), ctx)
        .await
        .expect("tool exists")
}

/// Calls `tool` of `toolbox` with `args` in `ctx`; returns (isError, all
/// text).
pub async fn call_in(
    toolbox: &Toolbox,
    tool: &str,
    ctx: ToolContext,
    args: Value,
) -> (bool, String) {
    let result = toolbox_result(toolbox, tool, ctx, args).await;
    (result.is_error == Some(true), text_of(&result))
}

/// Calls `tool` with `args` under `roots`; returns the whole result.
pub async fn call_result(tool: &str, roots: &Roots, args: Value) -> CallToolResult {
    let ctx = ToolContext::new(roots.clone());
    toolbox_result(&Toolbox::with_default_tools(), tool, ctx, args).await
}

/// Calls `tool` with `args` under `roots`; returns (isError, all text).
pub async fn call(tool: &str, roots: &Roots, args: Value) -> (bool, String) {
    let ctx = ToolContext::new(roots.clone());
    call_in(&Toolbox::with_default_tools(), tool, ctx, args).await
}

/// Calls `tool` itself (not through a toolbox) with `args` in `ctx`;
/// returns (isError, all text, structuredContent or null).
pub async fn call_tool(
    tool: &dyn mcp_local_tools::LocalTool,
    ctx: ToolContext,
    args: Value,
) -> (bool, String, Value) {
    let result = tool.call(arguments(args), ctx).await;
    (
        result.is_error == Some(true),
        text_of(&result),
        result.structured_content.unwrap_or(Value::Null),
    )
}

/// Calls `fs`.
pub async fn fs(roots: &Roots, args: Value) -> (bool, String) {
    call("fs", roots, args).await
}

/// A successful answer with `text`, as `call` returns it.
pub fn ok(text: &str) -> (bool, String) {
    (false, text.to_owned())
}

/// An error answer with `text`, as `call` returns it.
pub fn err(text: &str) -> (bool, String) {
    (true, text.to_owned())
}

/// A table of calls and their whole answers, one a line:
/// `{json arguments} => answer`, where the answer is an (isError, text)
/// pair such as `ok("...")` or `err("...")`.
macro_rules! cases {
    ($($args:tt => $answer:expr),* $(,)?) => {
        [$((serde_json::json!($args), $answer)),*]
    };
}
pub(crate) use cases;

/// One tool, called under one set of roots.
pub struct Tool<'a> {
    pub name: &'a str,
    pub roots: &'a Roots,
}

impl Tool<'_> {
    /// Calls the tool with `args`; returns (isError, all text).
    pub async fn call(&self, args: Value) -> (bool, String) {
        call(self.name, self.roots, args).await
    }

    /// Calls the tool with `args`; asserts it succeeded and returns its text.
    pub async fn succeeds(&self, args: Value) -> String {
        succeeded(self.call(args).await)
    }

    /// Calls the tool with `args`; asserts it failed and returns its text.
    pub async fn fails(&self, args: Value) -> String {
        failed(self.call(args).await)
    }

    /// Calls `help`; asserts it succeeded and returns its text.
    pub async fn help(&self) -> String {
        self.succeeds(json!({"action": "help"})).await
    }

    /// Calls the tool with each case's arguments in turn, in order, and
    /// asserts its whole answer.
    pub async fn answers(&self, cases: impl IntoIterator<Item = (Value, (bool, String))>) {
        for (args, expected) in cases {
            let answer = self.call(args.clone()).await;
            assert_eq!(answer, expected, "{} {args}", self.name);
        }
    }
}

/// Asserts an answer (isError, text) is not an error; returns its text.
#[track_caller]
pub fn succeeded((is_error, text): (bool, String)) -> String {
    assert!(!is_error, "expected a success, got the error: {text}");
    text
}

/// Asserts an answer (isError, text) is an error; returns its text.
#[track_caller]
pub fn failed((is_error, text): (bool, String)) -> String {
    assert!(is_error, "expected an error, got: {text}");
    text
}

/// Asserts a direct call's answer (isError, text, structuredContent) is
/// not an error; returns the text and the structured content.
#[track_caller]
pub fn tool_succeeded((is_error, text, structured): (bool, String, Value)) -> (String, Value) {
    assert!(!is_error, "expected a success, got the error: {text}");
    (text, structured)
}

/// Asserts a direct call's answer (isError, text, structuredContent) is an
/// error; returns its text.
#[track_caller]
pub fn tool_failed((is_error, text, _): (bool, String, Value)) -> String {
    failed((is_error, text))
}

/// One file changed by one call in a fresh sandbox: the file (under the
/// root), its text before (`None`: it does not exist), the call's
/// arguments, the whole answer, and the file's text after (`None`: it is
/// gone).
pub type Change<'a> = (
    &'a str,
    Option<&'a str>,
    Value,
    (bool, String),
    Option<&'a str>,
);

/// Checks each change in its own fresh sandbox, calling `tool`.
pub async fn changes(tool: &str, cases: impl IntoIterator<Item = Change<'_>>) {
    for (file, before, args, answer, after) in cases {
        let s = Sandbox::new();
        if let Some(text) = before {
            s.write(file, text);
        }
        assert_eq!(s.tool(tool).call(args.clone()).await, answer, "{args}");
        match after {
            Some(text) => assert_eq!(s.read(file), text, "{args}"),
            None => assert!(!s.root.join(file).exists(), "{args}: {file} is left"),
        }
    }
}

/// Fails unless `answer` is an error that names a path outside the roots.
#[track_caller]
pub fn assert_outside_roots(answer: &(bool, String)) {
    let (is_error, text) = answer;
    assert!(is_error, "expected an error, got: {text}");
    assert!(
        text.contains("outside the roots"),
        "expected 'outside the roots' in: {text}"
    );
}

/// The environment that makes `name <email>` the author and committer of
/// the test's own git commits.
pub fn identity<'a>(name: &'a str, email: &'a str) -> [(&'static str, &'a str); 4] {
    [
        ("GIT_AUTHOR_NAME", name),
        ("GIT_AUTHOR_EMAIL", email),
        ("GIT_COMMITTER_NAME", name),
        ("GIT_COMMITTER_EMAIL", email),
    ]
}

/// Runs the test's own `git args` in `dir`, with no global or system
/// config and `env` set; asserts it succeeded and returns its stdout.
pub fn run_git(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(env.iter().copied())
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A temp folder holding `root/`, `root_evil/` and `outside/` (with
/// `secret.txt` in the last two); the roots are `[root]`.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub roots: Roots,
}

impl Sandbox {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        for d in ["root", "root_evil", "outside"] {
            std::fs::create_dir(base.join(d)).unwrap();
        }
        std::fs::write(base.join("outside/secret.txt"), "SECRET outside\n").unwrap();
        std::fs::write(base.join("root_evil/secret.txt"), "SECRET evil\n").unwrap();
        let roots = Roots::new(vec![root.clone()]).unwrap();
        Sandbox {
            dir,
            base,
            root,
            roots,
        }
    }

    /// A new sandbox whose root holds `files`, (path, content) each.
    pub fn with_files(files: &[(&str, &str)]) -> Sandbox {
        let s = Sandbox::new();
        for (rel, content) in files {
            s.write(rel, content);
        }
        s
    }

    pub fn write(&self, rel: &str, content: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: impl AsRef<Path>) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub fn abs(&self, rel: &str) -> String {
        self.base.join(rel).to_string_lossy().into_owned()
    }

    /// `name`, called under this sandbox's roots.
    pub fn tool<'a>(&'a self, name: &'a str) -> Tool<'a> {
        Tool {
            name,
            roots: &self.roots,
        }
    }

    /// Makes `link` (under the root) a symlink to `target` (under the
    /// base, beside the root).
    pub fn link(&self, target: &str, link: &str) {
        std::os::unix::fs::symlink(self.base.join(target), self.root.join(link)).unwrap();
    }
}
