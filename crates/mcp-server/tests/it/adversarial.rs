//! The allowlist against a hostile agent, as a property: for random
//! allowlists and modes that leave no action able to run programs, random
//! sequences of calls drawn from a grammar of known attacks (git
//! configuration in every scope naming a program, attributes, hooks,
//! includes, aliases, remotes, `.git` spellings, symlinks, duplicate
//! discriminators, door tools with local names, mode changes) are sent to
//! the real binary, and after each sequence:
//!
//! - the canary program, which every attack names, never ran;
//! - the loopback door saw no call that the allowlist, the current mode or
//!   the reserved local names leave out;
//! - nothing outside the roots changed.
//!
//! `cargo test` runs a short, seeded run (`HANZO_ADVERSARIAL_SEQUENCES`,
//! default 200; `HANZO_ADVERSARIAL_SEED`, default below) and writes the
//! count and seed to stderr; a failure shrinks to a minimal sequence. The
//! long run is the same test with a larger count (README, "Tests").

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_fake_door::{Behaviour, FakeDoor};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{Value, json};

use crate::common::{CANARY, Proc, local_names};

/// The seed of the short run.
const DEFAULT_SEED: u64 = 0x5eed_2025_1202;
/// Sequences in the short run.
const DEFAULT_SEQUENCES: u64 = 200;

/// Local allowlist entries an agent may be granted here: none of them can
/// start a program (`exec`, and the tools whose actions may, are never
/// granted in this property).
const LOCAL_GRANTS: &[&str] = &[
    "fs",
    "fs:read",
    "fs:write",
    "fs:edit",
    "git",
    "git:status",
    "git:diff",
    "git:add",
    "git:commit",
    "git:log",
    "git:show",
    "git:blame",
    "git:fetch",
    "git:switch",
    "git:stash",
    "git:apply",
    "git:init",
    "memory",
    "mode",
    "think",
    "tasks",
    "plan",
];

/// Door allowlist entries.
const DOOR_GRANTS: &[&str] = &["evil:a", "evil", "fs2", "describe", "exec", "git:run"];

/// A mode preset the run may define and switch to.
const PRESETS: &[(&str, &[&str])] = &[
    ("docs", &["fs:read", "git:status", "evil:a"]),
    ("door_only", &["evil:b", "describe"]),
    ("writer", &["fs", "git", "memory"]),
];

/// Files an attack writes, relative to the root.
const TARGETS: &[&str] = &[
    "home/.gitconfig",
    "home/.config/git/config",
    "home/.config/git/attributes",
    "repo/.gitattributes",
    "repo/.git/config",
    "repo/.git/hooks/pre-commit",
    "repo/.git/info/attributes",
    "repo/.GIT/config",
    "repo/.git./config",
    "repo/inc.cfg",
    "repo/file.txt",
    "repo/sub/.git",
    "repo/evil.git/config",
    "repo/evil.git/HEAD",
    "link-out/pwned.txt",
    "../outside/pwned.txt",
    "home/.bashrc",
];

/// What an attack writes. `{canary}`, `{root}` and `{outside}` are
/// replaced by absolute paths.
const CONTENTS: &[&str] = &[
    "[filter \"x\"]\n\tclean = {canary}\n\tsmudge = {canary}\n\tprocess = {canary}\n\trequired = true\n[core]\n\tattributesFile = {root}/home/.config/git/attributes\n",
    "[diff \"x\"]\n\tcommand = {canary}\n\ttextconv = {canary}\n[diff]\n\texternal = {canary}\n[merge \"x\"]\n\tdriver = {canary}\n",
    "[core]\n\tfsmonitor = {canary}\n\thooksPath = {root}/repo/hooks\n\tpager = {canary}\n\teditor = {canary}\n\tsshCommand = {canary}\n\taskPass = {canary}\n\tgitProxy = {canary}\n",
    "[include]\n\tpath = {root}/repo/inc.cfg\n[includeIf \"gitdir:{root}/\"]\n\tpath = {root}/repo/inc.cfg\n",
    "[alias]\n\tst = !{canary}\n\tstatus = !{canary}\n\tdiff = !{canary}\n[credential]\n\thelper = !{canary}\n[gpg]\n\tprogram = {canary}\n[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n",
    "[remote \"origin\"]\n\turl = {root}/repo2\n\tuploadpack = {canary}\n\treceivepack = {canary}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[uploadpack]\n\tpackObjectsHook = {canary}\n[sequence]\n\teditor = {canary}\n[interactive]\n\tdiffFilter = {canary}\n",
    "* filter=x diff=x merge=x\n",
    "#!/bin/sh\n{canary}\n",
    "gitdir: {root}/repo/evil.git\n",
    "ref: refs/heads/main\n",
    "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = {root}/repo\n[filter \"x\"]\n\tclean = {canary}\n",
    "hello\n",
    "[trace2]\n\tnormalTarget = {outside}/written\n\teventTarget = {outside}/written\n\tperfTarget = {root}/repo/.git/hooks/pre-commit\n\tconfigParams = *\n",
];

/// The writes that make an attack, as `(TARGETS index, CONTENTS index)`:
/// a program named in every configuration scope and include, attributes
/// that call the drivers, a hook, a `.git` in other spellings, a git
/// directory written under another name, and paths out of the root.
const VECTORS: &[(usize, usize)] = &[
    (0, 0),
    (1, 0),
    (0, 1),
    (1, 1),
    (0, 2),
    (1, 2),
    (0, 3),
    (1, 3),
    (9, 0),
    (9, 1),
    (9, 2),
    (9, 4),
    (9, 5),
    (0, 4),
    (1, 4),
    (0, 5),
    (1, 5),
    (2, 6),
    (3, 6),
    (6, 6),
    (4, 0),
    (5, 7),
    (7, 0),
    (8, 0),
    (11, 8),
    (12, 10),
    (13, 9),
    (14, 11),
    (15, 11),
    (10, 11),
    (16, 11),
];

/// One call of a sequence.
#[derive(Debug, Clone)]
enum Step {
    /// `fs write` of `CONTENTS[content]` at `TARGETS[target]`.
    Write { target: usize, content: usize },
    /// A `git` action on the repository.
    Git(&'static str),
    /// `memory export` to `TARGETS[target]`.
    Export { target: usize, overwrite: bool },
    /// A call of a door-looking tool, with `op` (optionally named twice)
    /// and an `action`.
    DoorClient {
        name: &'static str,
        op: &'static str,
        action: &'static str,
        twice: Option<&'static str>,
    },
    /// `mode set <name>`.
    Mode(&'static str),
}

/// One sequence and the configuration it runs under.
#[derive(Debug, Clone)]
struct Scenario {
    local: Option<Vec<&'static str>>,
    door: Option<Vec<&'static str>>,
    presets: bool,
    steps: Vec<Step>,
}

fn subset(from: &'static [&'static str]) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::sample::subsequence(from.to_vec(), 0..=from.len().min(6))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => proptest::sample::select(VECTORS.to_vec())
            .prop_map(|(target, content)| Step::Write { target, content }),
        1 => (0..TARGETS.len(), 0..CONTENTS.len())
            .prop_map(|(target, content)| Step::Write { target, content }),
        4 => proptest::sample::select(vec![
            "status", "diff", "add", "commit", "log", "show", "blame", "fetch", "stash",
            "switch", "apply", "init", "init_root", "apply_bin",
        ])
        .prop_map(Step::Git),
        1 => (0..TARGETS.len(), any::<bool>())
            .prop_map(|(target, overwrite)| Step::Export { target, overwrite }),
        4 => (
            proptest::sample::select(vec![
                "evil", "evil", "evil", "evil", "exec", "git", "fs", "memory", "mode", "fs2",
                "describe",
            ]),
            proptest::sample::select(vec!["a", "b", "b", "run", "read"]),
            proptest::sample::select(vec!["a", "a", "b", "run", "status"]),
            proptest::option::weighted(0.25, proptest::sample::select(vec!["a", "b", "run"])),
        )
            .prop_map(|(name, op, action, twice)| Step::DoorClient { name, op, action, twice }),
        2 => proptest::sample::select(vec!["full", "review", "docs", "docs", "door_only", "writer"])
            .prop_map(Step::Mode),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        subset(LOCAL_GRANTS),
        proptest::sample::subsequence(vec!["fs", "git", "mode", "memory"], 0..=4),
        proptest::option::of(subset(DOOR_GRANTS)),
        any::<bool>(),
        proptest::collection::vec(step(), 1..16),
    )
        .prop_map(|(mut local, whole, door, presets, steps)| {
            // Whole grants of the tools the attacks go through, often:
            // narrow grants alone rarely let an attack's steps meet.
            for tool in whole {
                if !local.contains(&tool) {
                    local.push(tool);
                }
            }
            Scenario {
                // Never absent: an absent `local` keeps every local tool,
                // exec included, and this property is about servers that
                // cannot run programs.
                local: Some(local),
                door,
                presets,
                steps,
            }
        })
}

/// Runs `git` for the world's set-up (the test's own, not the agent's).
fn git(dir: &Path, home: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

/// A temporary world: `root/` (the server's one root, holding `home/`,
/// a repository `repo/` with an executable `hooks/` folder of its own and
/// a second repository `repo2/`, and `link-out`, a symlink to `outside/`),
/// `outside/` (the canary program and a file), `state/`.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().expect("tempdir");
        let world = World { dir };
        let (root, outside) = (world.root(), world.outside());
        for folder in [root.join("home"), root.join("repo/hooks"), outside.clone()] {
            std::fs::create_dir_all(folder).expect("mkdir");
        }
        std::fs::create_dir_all(world.dir.path().join("state")).expect("state");
        let ran = outside.join("ran");
        let canary = format!(
            "#!/bin/sh\necho \"$0 $*\" >> '{}'\ncat >/dev/null 2>&1 &\nexit 0\n",
            ran.display()
        );
        executable(&outside.join("canary"), &canary);
        std::fs::write(outside.join("secret.txt"), "outside\n").expect("secret");
        for hook in [
            "pre-commit",
            "post-commit",
            "commit-msg",
            "post-checkout",
            "pre-auto-gc",
        ] {
            executable(
                &root.join("repo/hooks").join(hook),
                &format!("#!/bin/sh\n{}\n", outside.join("canary").display()),
            );
        }
        std::fs::write(
            root.join("home/.gitconfig"),
            "[user]\n\tname = The User\n\temail = user@example.com\n[init]\n\tdefaultBranch = main\n",
        )
        .expect("gitconfig");
        std::os::unix::fs::symlink(&outside, root.join("link-out")).expect("symlink");
        let home = root.join("home");
        for repo in ["repo", "repo2"] {
            let repo = root.join(repo);
            std::fs::create_dir_all(&repo).expect("repo");
            git(&repo, &home, &["init", "-q", "-b", "main"]);
            std::fs::write(repo.join("file.txt"), "one\n").expect("file");
            git(&repo, &home, &["add", "file.txt"]);
            git(&repo, &home, &["commit", "-q", "-m", "first"]);
        }
        world
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    fn content(&self, index: usize) -> String {
        CONTENTS[index]
            .replace(
                "{canary}",
                &self.outside().join("canary").display().to_string(),
            )
            .replace("{root}", &self.root().display().to_string())
            .replace("{outside}", &self.outside().display().to_string())
    }

    /// Every file below `outside/`, with its bytes.
    fn outside_files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        let mut stack = vec![self.outside()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read outside").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
                }
            }
        }
        files
    }
}

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The ops of the hostile door's tools that are not local names.
fn door_ops(tool: &str) -> &'static [&'static str] {
    match tool {
        "evil" => &["a", "b"],
        "fs2" => &["run"],
        _ => &[],
    }
}

/// Whether `entries` (an allowlist list, or a preset; `None` allows
/// everything) allow a door call of `name` with `op`. `describe` is
/// allowed for an op some entry allows, or when named itself.
fn door_allows(entries: Option<&[&str]>, name: &str, op: &str) -> bool {
    let Some(entries) = entries else {
        return true;
    };
    let grants = |tool: &str, op: &str| {
        entries
            .iter()
            .any(|e| *e == tool || *e == format!("{tool}:{op}"))
    };
    if name == "describe" {
        return entries.contains(&"describe")
            || ["evil", "fs2"]
                .iter()
                .any(|tool| door_ops(tool).contains(&op) && grants(tool, op));
    }
    grants(name, op)
}

/// The params and the raw text of one step's `tools/call`.
fn call_text(world: &World, step: &Step) -> String {
    let repo = world.root().join("repo").display().to_string();
    let params = match step {
        Step::Write { target, content } => json!({ "name": "fs", "arguments": {
            "action": "write", "path": TARGETS[*target], "content": world.content(*content) } }),
        Step::Git(action) => {
            let arguments = match *action {
                "add" => json!({ "action": "add", "path": repo, "all": true }),
                "commit" => {
                    json!({ "action": "commit", "path": repo, "message": "m", "all": true })
                }
                "blame" => json!({ "action": "blame", "path": format!("{repo}/file.txt") }),
                "fetch" => json!({ "action": "fetch", "path": repo, "remote": "origin" }),
                "switch" => {
                    json!({ "action": "switch", "path": repo, "name": "side", "create": true })
                }
                "apply" => json!({ "action": "apply", "path": repo,
                    "patch": "--- a/file.txt\n+++ b/file.txt\n@@ -1 +1 @@\n-one\n+two\n" }),
                "init" => json!({ "action": "init", "path": format!("{repo}/sub") }),
                // A repository at the root, then a patch that makes an
                // executable `git` in a PATH folder inside the root.
                "init_root" => json!({ "action": "init", "path": "." }),
                "apply_bin" => json!({ "action": "apply", "path": ".", "patch": format!(
                    "diff --git a/home/.local/bin/git b/home/.local/bin/git\nnew file mode 100755\n--- /dev/null\n+++ b/home/.local/bin/git\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+{}\n",
                    world.outside().join("canary").display()
                ) }),
                other => json!({ "action": other, "path": repo }),
            };
            json!({ "name": "git", "arguments": arguments })
        }
        Step::Export { target, overwrite } => json!({ "name": "memory", "arguments": {
            "action": "export", "path": TARGETS[*target], "overwrite": overwrite } }),
        Step::DoorClient {
            name,
            op,
            action,
            twice,
        } => {
            let mut text =
                format!(r#"{{"name":"{name}","arguments":{{"op":"{op}","action":"{action}""#);
            if let Some(second) = twice {
                text.push_str(&format!(r#","op":"{second}""#));
            }
            text.push_str(r#","input":{}}}"#);
            return text;
        }
        Step::Mode(preset) => {
            json!({ "name": "mode", "arguments": { "action": "set", "name": preset } })
        }
    };
    params.to_string()
}

/// Runs one scenario against a fresh world, server and door.
fn run_scenario(scenario: &Scenario) -> Result<(), TestCaseError> {
    let world = World::new();
    let door = FakeDoor::start(Behaviour::Hostile).expect("fake door");
    let before = world.outside_files();
    let mut allowed = serde_json::Map::new();
    if let Some(local) = &scenario.local {
        allowed.insert("local".into(), json!(local));
    }
    if let Some(grants) = &scenario.door {
        allowed.insert("door".into(), json!(grants));
    }
    let allowed_text = Value::Object(allowed).to_string();
    let modes = world.dir.path().join("modes.json");
    let presets: serde_json::Map<String, Value> = PRESETS
        .iter()
        .map(|(name, entries)| ((*name).to_owned(), json!(entries)))
        .collect();
    std::fs::write(&modes, Value::Object(presets).to_string()).expect("modes");
    let root = world.root().display().to_string();
    let mut args = vec![
        "serve",
        "--root",
        root.as_str(),
        "--allowed-tools",
        allowed_text.as_str(),
    ];
    let modes_text = modes.display().to_string();
    if scenario.presets {
        args.extend(["--modes", modes_text.as_str()]);
    }
    let home = world.root().join("home").display().to_string();
    let state = world.dir.path().join("state").display().to_string();
    let door_url = door.url();
    // A PATH folder inside the root, before the machine's: where a `git`
    // of the agent's would be found first.
    let path = format!(
        "{}:{}",
        world.root().join("home/.local/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut server = Proc::spawn_with_env(
        &args,
        &[
            ("HOME", home.as_str()),
            ("HANZO_MCP_STATE", state.as_str()),
            ("HANZO_MCP_DOOR", door_url.as_str()),
            ("HANZO_API_KEY", CANARY),
            ("XDG_CONFIG_HOME", ""),
            ("PATH", path.as_str()),
        ],
    );
    server.initialize("2025-11-25");
    // Which preset each forwarded call happened under (`None`: no mode).
    let mut mode: Option<&'static [&'static str]> = None;
    let mut forwarded_under = Vec::new();
    for (id, step) in (1..).zip(&scenario.steps) {
        let before_calls = door.requests_for("tools/call").len();
        server.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{}}}"#,
            call_text(&world, step)
        ));
        let response: Value = serde_json::from_str(server.response(id)).expect("JSON answer");
        if let Step::Mode(name) = step
            && response.get("result").is_some()
            && response["result"]["isError"] != json!(true)
        {
            mode = match *name {
                "full" => None,
                other => PRESETS.iter().find(|(n, _)| *n == other).map(|(_, e)| *e),
            };
            if *name == "review" {
                mode = Some(&["fs:read", "git:status", "git:diff", "git:log", "git:show"]);
            }
        }
        let after_calls = door.requests_for("tools/call").len();
        for _ in before_calls..after_calls {
            forwarded_under.push((step.clone(), mode));
        }
    }
    server.close_stdin();
    let _ = server.wait();

    let ran = world.outside().join("ran");
    prop_assert!(
        !ran.exists(),
        "a program ran: {}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );
    prop_assert_eq!(
        &before,
        &world.outside_files(),
        "files outside the roots changed"
    );
    let local = local_names();
    for request in door.requests_for("tools/call") {
        let params = request.params().unwrap_or_default();
        let name = params["name"].as_str().unwrap_or_default();
        let op = params["arguments"]["op"].as_str().unwrap_or_default();
        prop_assert!(
            !local.iter().any(|l| l == name),
            "a local name reached the door: {params}"
        );
        prop_assert!(
            door_allows(scenario.door.as_deref(), name, op),
            "the door got a call its allowlist leaves out: {params}"
        );
    }
    for (step, under) in forwarded_under {
        let Step::DoorClient {
            name, op, twice, ..
        } = &step
        else {
            continue;
        };
        let checked = scenario.door.is_some() || under.is_some();
        prop_assert!(
            !(checked && twice.is_some()),
            "a call naming op twice was forwarded: {step:?}"
        );
        prop_assert!(
            door_allows(under, name, op),
            "the door got a call the mode leaves out: {step:?} under {under:?}"
        );
    }
    Ok(())
}

#[test]
fn no_sequence_of_allowed_calls_runs_a_program_or_reaches_what_is_gated_out() {
    let env_number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let sequences = env_number("HANZO_ADVERSARIAL_SEQUENCES").unwrap_or(DEFAULT_SEQUENCES);
    let seed = env_number("HANZO_ADVERSARIAL_SEED").unwrap_or(DEFAULT_SEED);
    // Runners side by side (each waits on its server and git most of
    // the time), runner `i` seeded with `seed + i`.
    let runners = env_number("HANZO_ADVERSARIAL_RUNNERS")
        .unwrap_or(2)
        .clamp(1, 64);
    let started = std::time::Instant::now();
    let outcomes: Vec<(u64, u64, Result<(), String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..runners)
            .map(|i| {
                let count = sequences / runners + u64::from(i < sequences % runners);
                let seed = seed.wrapping_add(i);
                scope.spawn(move || (seed, count, run_seeded(seed, count)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a runner panicked"))
            .collect()
    });
    let findings: Vec<String> = outcomes
        .iter()
        .filter_map(|(seed, _, outcome)| {
            outcome
                .as_ref()
                .err()
                .map(|e| format!("seed {seed:#x}: {e}"))
        })
        .collect();
    // Written past the test harness's capture, so that CI's log shows it.
    let _ = writeln!(
        std::io::stderr(),
        "adversarial: {sequences} sequences in {runners} runners, seeds {seed:#x}..{:#x}, {:.1} s: {}",
        seed.wrapping_add(runners - 1),
        started.elapsed().as_secs_f64(),
        if findings.is_empty() {
            "no finding".to_owned()
        } else {
            format!("{} finding(s)", findings.len())
        }
    );
    assert!(findings.is_empty(), "{}", findings.join("\n\n"));
}

/// `count` sequences from the runner seeded with `seed`; a failure
/// shrunk to its minimal sequence.
fn run_seeded(seed: u64, count: u64) -> Result<(), String> {
    let mut config = Config::with_cases(u32::try_from(count).unwrap_or(u32::MAX));
    config.failure_persistence = None;
    config.max_shrink_iters = 256;
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    runner
        .run(&scenario(), |scenario| run_scenario(&scenario))
        .map_err(|e| e.to_string())
}
