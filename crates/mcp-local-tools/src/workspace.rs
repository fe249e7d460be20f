//! The `workspace` tool: what the roots hold and what this server can do.
//!
//! - `detect {[path]}`: the roots, the git root, project kinds found from
//!   manifests (`Cargo.toml`, `package.json`, `pyproject.toml`, `go.mod`, …,
//!   up to three levels deep) and languages by file count (honouring
//!   `.gitignore`, at most [`MAX_FILES`] files counted).
//! - `capabilities`: the local tools in the toolbox, the Cargo features
//!   compiled in, the roots, and the door's address and whether it answered
//!   (as the server reported it through [`crate::Surroundings`]; never a
//!   bearer, and the address is shown without userinfo or query).
//! - `help`.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::action::{ActionTool, NoArgs, actions, local_tool};
use crate::context::{Surroundings, ToolContext};
use crate::util::{About, Hints, ToolResult, walk_builder};

/// Most files `detect` counts for languages.
pub const MAX_FILES: u64 = 100_000;
/// Most manifests `detect` lists.
pub const MAX_PROJECTS: usize = 200;

/// The `workspace` local tool.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceTool {
    surroundings: Surroundings,
}

impl WorkspaceTool {
    /// The tool, reporting the toolbox and door facts in `surroundings`
    /// (from [`crate::Toolbox::surroundings`]).
    pub fn new(surroundings: Surroundings) -> WorkspaceTool {
        WorkspaceTool { surroundings }
    }
}

actions! {
    /// Which `workspace` action to run.
    pub(crate) enum WorkspaceAction for WorkspaceCall {
        Detect(DetectArgs) = "detect" { reads: true, can: [ReadFiles], pool: true, usage: "roots, git root, project kinds (from Cargo.toml, package.json, pyproject.toml, go.mod, ...) and languages by file count, for `path` or every root." },
        Capabilities(NoArgs) = "capabilities" { reads: true, can: [ReadFiles], pool: true, usage: "the local tools in this server, the features compiled in, the roots, and the door's address and whether it answered." },
    }
}

/// Arguments of `workspace detect`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DetectArgs {
    /// The directory to inspect (default: every root).
    pub path: Option<String>,
}

const DESCRIPTION: &str = "The workspace: detect (roots, git root, project kinds from manifests, languages by file count) and capabilities (local tools on, roots, the door's address and whether it answered). Call with {\"action\":\"help\"} for the fields.";

impl ActionTool for WorkspaceTool {
    type Args = WorkspaceCall;
    const ABOUT: About = About::new("workspace", "Workspace", Hints::READ_ONLY, DESCRIPTION);

    fn run_blocking(&self, call: WorkspaceCall, ctx: &ToolContext) -> ToolResult {
        match call {
            WorkspaceCall::Detect(args) => detect(&args, ctx),
            WorkspaceCall::Capabilities(NoArgs {}) => Ok(capabilities(&self.surroundings, ctx)),
        }
    }
}

local_tool!(WorkspaceTool);

/// Manifest file name → project kind.
const MANIFESTS: &[(&str, &str)] = &[
    ("Cargo.toml", "rust"),
    ("package.json", "node"),
    ("pyproject.toml", "python"),
    ("setup.py", "python"),
    ("requirements.txt", "python"),
    ("go.mod", "go"),
    ("pom.xml", "maven"),
    ("build.gradle", "gradle"),
    ("build.gradle.kts", "gradle"),
    ("Gemfile", "ruby"),
    ("composer.json", "php"),
    ("CMakeLists.txt", "cmake"),
    ("deno.json", "deno"),
];

/// File extension → language.
fn language(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "rs" => "Rust",
        "py" | "pyi" => "Python",
        "ts" | "tsx" | "mts" | "cts" => "TypeScript",
        "js" | "jsx" | "mjs" | "cjs" => "JavaScript",
        "go" => "Go",
        "java" => "Java",
        "kt" | "kts" => "Kotlin",
        "c" | "h" => "C",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "C++",
        "cs" => "C#",
        "rb" => "Ruby",
        "php" => "PHP",
        "swift" => "Swift",
        "sh" | "bash" | "zsh" => "Shell",
        "md" => "Markdown",
        "toml" => "TOML",
        "json" => "JSON",
        "yaml" | "yml" => "YAML",
        "html" | "htm" => "HTML",
        "css" | "scss" => "CSS",
        "sql" => "SQL",
        _ => return None,
    })
}

fn detect(args: &DetectArgs, ctx: &ToolContext) -> ToolResult {
    let dirs: Vec<std::path::PathBuf> = match args.path.as_deref() {
        Some(input) => {
            let resolved = ctx
                .roots
                .resolve_existing(input)
                .map_err(|e| e.to_string())?;
            if !resolved.path.is_dir() {
                return Err(format!("path '{input}': not a directory"));
            }
            vec![resolved.path]
        }
        None => ctx.roots.dirs().to_vec(),
    };
    let mut text = String::from("roots:\n");
    for root in ctx.roots.dirs() {
        text.push_str(&format!("  {}\n", root.to_string_lossy()));
    }
    for dir in &dirs {
        text.push_str(&format!("directory: {}\n", ctx.roots.display(dir)));
        let git = git_root(dir)
            .map(|g| g.to_string_lossy().into_owned())
            .unwrap_or_else(|| "none".to_owned());
        text.push_str(&format!("git root: {git}\n"));
        let (projects, languages, counted, more) = scan(dir, ctx)?;
        text.push_str("projects:\n");
        if projects.is_empty() {
            text.push_str("  none found\n");
        }
        for (kind, manifest) in projects.iter().take(MAX_PROJECTS) {
            text.push_str(&format!("  {kind}: {manifest}\n"));
        }
        if projects.len() > MAX_PROJECTS {
            text.push_str(&format!(
                "  [{} more manifests not shown; pass a narrower path]\n",
                projects.len() - MAX_PROJECTS
            ));
        }
        text.push_str(&format!("languages ({counted} files counted):\n"));
        let mut by_count: Vec<(&&str, &u64)> = languages.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        if by_count.is_empty() {
            text.push_str("  none recognised\n");
        }
        for (name, count) in by_count {
            text.push_str(&format!("  {name}: {count}\n"));
        }
        if more {
            text.push_str(&format!(
                "[stopped counting after {MAX_FILES} files; pass a narrower path]\n"
            ));
        }
    }
    Ok(CallToolResult::text(text))
}

type Scan = (
    Vec<(&'static str, String)>,
    BTreeMap<&'static str, u64>,
    u64,
    bool,
);

/// Manifests (depth ≤ 3) and language counts under `dir`.
fn scan(dir: &Path, ctx: &ToolContext) -> Result<Scan, String> {
    let mut projects = Vec::new();
    let mut languages: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut counted: u64 = 0;
    let root = ctx.roots.root_of(dir).unwrap_or(dir);
    for entry in walk_builder(root, dir, true, false).build() {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if counted.is_multiple_of(1024) && ctx.cancel.is_cancelled() {
            return Err("cancelled".to_owned());
        }
        if counted >= MAX_FILES {
            return Ok((projects, languages, counted, true));
        }
        counted += 1;
        let name = entry.file_name().to_string_lossy();
        if entry.depth() <= 3
            && let Some((_, kind)) = MANIFESTS.iter().find(|(m, _)| *m == name)
        {
            projects.push((*kind, ctx.roots.display(entry.path())));
        }
        if let Some(lang) = entry
            .path()
            .extension()
            .and_then(|e| e.to_str())
            .and_then(language)
        {
            *languages.entry(lang).or_default() += 1;
        }
    }
    Ok((projects, languages, counted, false))
}

/// The nearest directory at or above `dir` holding `.git`.
fn git_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// `address` without userinfo, query or fragment: whatever a URL carries
/// besides where it points is not shown.
fn redact_address(address: &str) -> String {
    let cut = address.find(['?', '#']).unwrap_or(address.len());
    let address = &address[..cut];
    match address.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => address.to_owned(),
    }
}

fn capabilities(surroundings: &Surroundings, ctx: &ToolContext) -> CallToolResult {
    let tools = surroundings.tools();
    let features: Vec<&str> = [
        ("fs", cfg!(feature = "fs")),
        ("code", cfg!(feature = "code")),
        ("workspace", cfg!(feature = "workspace")),
        ("exec", cfg!(feature = "exec")),
        ("git", cfg!(feature = "git")),
        ("fetch", cfg!(feature = "fetch")),
        ("ui", cfg!(feature = "ui")),
        ("think", cfg!(feature = "think")),
        ("memory", cfg!(feature = "memory")),
        ("plan", cfg!(feature = "plan")),
        ("tasks", cfg!(feature = "tasks")),
        ("mode", cfg!(feature = "mode")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(name, _)| *name)
    .collect();
    let mut text = format!(
        "local tools: {}\ncompiled features: {}\nroots:\n",
        if tools.is_empty() {
            "none".to_owned()
        } else {
            tools.join(", ")
        },
        features.join(", ")
    );
    for root in ctx.roots.dirs() {
        text.push_str(&format!("  {}\n", root.to_string_lossy()));
    }
    let door = match surroundings.door() {
        None => "door: none configured\n".to_owned(),
        Some(door) => {
            // One parenthesis: the state, then the note that explains it
            // ("unavailable: connection refused", "answered: sign-in required").
            let state = match door.answered {
                Some(true) => "answered",
                Some(false) => "unavailable",
                None => "not tried yet",
            };
            let detail = match door.note {
                Some(note) => format!("{state}: {note}"),
                None => state.to_owned(),
            };
            format!("door: {} ({detail})\n", redact_address(&door.address))
        }
    };
    text.push_str(&door);
    CallToolResult::text(text)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{WorkspaceTool, redact_address};
    use crate::util::call_for_test;

    /// Calls `workspace` with `args` in a fresh root: whether it failed,
    /// and its text.
    async fn call(args: Value) -> (bool, String) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        call_for_test(&WorkspaceTool::default(), dir.path(), args).await
    }

    #[tokio::test]
    async fn detect_takes_a_path_and_capabilities_takes_nothing() {
        let (err, text) = call(json!({"action": "detect", "path": "."})).await;
        assert!(
            !err && text.contains("projects:\n  rust: Cargo.toml\n"),
            "{text}"
        );
        let (err, text) = call(json!({"action": "capabilities"})).await;
        assert!(!err && text.starts_with("local tools: "), "{text}");
        let (err, text) = call(json!({"action": "capabilities", "path": "."})).await;
        assert!(err && text.contains("unknown field `path`"), "{text}");
        let (err, text) = call(json!({"action": "help"})).await;
        assert!(
            !err && text.contains("\ndetect {[path]}: ") && text.contains("\ncapabilities: "),
            "{text}"
        );
    }

    #[test]
    fn redacts_userinfo_query_and_fragment() {
        assert_eq!(
            redact_address("https://user:s3cret@api.hanzo.ai/v1/mcp?key=abc#x"),
            "https://api.hanzo.ai/v1/mcp"
        );
        assert_eq!(
            redact_address("http://127.0.0.1:8080/v1/mcp"),
            "http://127.0.0.1:8080/v1/mcp"
        );
        assert_eq!(redact_address("https://tok@host"), "https://host");
    }
}
