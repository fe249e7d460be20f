//! The `exec` tool against real processes.

use std::time::{Duration, Instant};

use crate::common::{Sandbox, call_tool};
use mcp_local_tools::ToolContext;
use mcp_local_tools::exec::ExecTool;
use serde_json::{Value, json};

/// An `exec` tool whose job spool is in `s`.
struct Exec<'a> {
    s: &'a Sandbox,
    tool: ExecTool,
}

impl Exec<'_> {
    fn new(s: &Sandbox) -> Exec<'_> {
        let tool = ExecTool::new().with_spool_dir(s.base.join("spool"));
        Exec { s, tool }
    }

    /// Calls the tool with `args` in `ctx`; returns (isError, text,
    /// structuredContent).
    async fn call_in(&self, ctx: ToolContext, args: Value) -> (bool, String, Value) {
        call_tool(&self.tool, ctx, args).await
    }

    /// Calls the tool with `args` under the sandbox's roots.
    async fn call(&self, args: Value) -> (bool, String, Value) {
        let ctx = ToolContext::new(self.s.roots.clone());
        self.call_in(ctx, args).await
    }

    /// Runs `command` as a background job; asserts it started and returns
    /// its id, the text and the structured start.
    async fn start(&self, command: impl Into<Value>) -> (String, String, Value) {
        let args = json!({"action": "run", "background": true, "command": command.into()});
        let (is_error, text, started) = self.call(args).await;
        assert!(!is_error, "{text}");
        let id = started["id"].as_str().unwrap().to_owned();
        (id, text, started)
    }

    /// Waits up to 10 s for job `id` to end; asserts the wait succeeded
    /// and returns the text and the job's state.
    async fn wait(&self, id: impl Into<Value>) -> (String, Value) {
        let args = json!({"action": "wait", "id": id.into(), "timeout_ms": 10_000});
        let (is_error, text, state) = self.call(args).await;
        assert!(!is_error, "{text}");
        (text, state)
    }
}

/// Pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // A zombie (state Z) is dead, only not yet reaped by its parent.
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits up to 5 s for every process carrying `marker` to be gone.
async fn gone(marker: &str) -> Vec<u32> {
    for _ in 0..50 {
        if processes_with(marker).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    processes_with(marker)
}

/// A unique sleep duration around 30 s (`30.<digits>`): it marks the
/// sleeping processes of one test in /proc.
fn marker() -> String {
    format!("30.{}{:06}", std::process::id(), rand_suffix())
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(7);
    h.finish() % 1_000_000
}

#[tokio::test]
async fn run_reports_output_and_exit_code() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let shell = json!({"action": "run", "command": "echo out; echo err >&2; exit 3"});
    let (is_error, text, structured) = e.call(shell).await;
    assert!(is_error, "a non-zero exit is an error result");
    assert!(
        text.starts_with("$ echo out; echo err >&2; exit 3\nexit code 3 · "),
        "{text}"
    );
    assert!(
        text.ends_with(" ms\n--- stdout ---\nout\n--- stderr ---\nerr\n"),
        "{text}"
    );
    assert_eq!(structured["exitCode"], 3);
    assert_eq!(structured["stdout"], "out\n");
    assert_eq!(structured["stderr"], "err\n");
    assert_eq!(structured["timedOut"], false);

    let argv = json!({"action": "run", "command": ["printf", "%s|", "a b", "c"]});
    let (is_error, text, structured) = e.call(argv).await;
    assert!(!is_error, "{text}");
    assert_eq!(structured["stdout"], "a b|c|");
    assert_eq!(structured["command"], "printf '%s|' 'a b' c");
    assert_eq!(structured["exitCode"], 0);
}

#[tokio::test]
async fn argv_is_not_a_shell_line() {
    let s = Sandbox::new();
    let argv = json!({"action": "run", "command": ["echo", "$(touch owned); `touch owned`"]});
    let (is_error, _, structured) = Exec::new(&s).call(argv).await;
    assert!(!is_error);
    assert_eq!(structured["stdout"], "$(touch owned); `touch owned`\n");
    assert!(!s.root.join("owned").exists());
}

#[tokio::test]
async fn cwd_env_and_stdin() {
    let s = Sandbox::with_files(&[("sub/file.txt", "x")]);
    let e = Exec::new(&s);
    let (_, text, structured) = e
        .call(
            json!({"action": "exec", "command": "pwd; ls; echo \"$GREETING\"; cat", "cwd": "sub",
               "env": {"GREETING": "hi there"}, "stdin": "from stdin\n"}),
        )
        .await;
    assert_eq!(
        structured["stdout"],
        format!(
            "{}\nfile.txt\nhi there\nfrom stdin\n",
            s.root.join("sub").display()
        ),
        "{text}"
    );
    // Without stdin the child reads /dev/null, never the server's stdin.
    let no_stdin = json!({"action": "run", "command": "readlink /proc/self/fd/0; cat; echo end"});
    let (_, _, structured) = e.call(no_stdin).await;
    assert_eq!(structured["stdout"], "/dev/null\nend\n");
}

#[tokio::test]
async fn cwd_outside_the_roots_is_refused() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let outside = s.abs("outside");
    let absolute = json!({"action": "run", "command": "pwd", "cwd": outside});
    let (is_error, text, _) = e.call(absolute).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!("path '{outside}': outside the roots ({})", s.root.display())
    );
    let relative = json!({"action": "run", "command": "pwd", "cwd": "../outside"});
    let (is_error, text, _) = e.call(relative).await;
    assert!(is_error);
    assert!(
        text.starts_with("path '../outside': outside the roots"),
        "{text}"
    );
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group_and_keeps_the_output() {
    let s = Sandbox::new();
    let mark = marker();
    // A grandchild that ignores SIGTERM, and the child, both sleep past the
    // timeout.
    let command = format!("echo before; sh -c 'trap \"\" TERM; sleep {mark}' & sleep {mark}");
    let started = Instant::now();
    let run = json!({"action": "run", "command": command, "timeout_ms": 1000});
    let (is_error, text, structured) = Exec::new(&s).call(run).await;
    let elapsed = started.elapsed();
    assert!(is_error);
    assert_eq!(structured["timedOut"], true);
    assert_eq!(structured["stdout"], "before\n");
    assert!(
        text.contains("timed out after 1000 ms (process group killed)"),
        "{text}"
    );
    // The call ended at its timeout, not when the 30 s sleeps would have:
    // a bound against waiting for the group, not a speed claim.
    assert!(structured["durationMs"].as_u64().unwrap() >= 1000);
    assert!(
        elapsed < Duration::from_secs(20),
        "returned after {elapsed:?}"
    );
    assert_eq!(
        gone(&mark).await,
        Vec::<u32>::new(),
        "a process of the group is left"
    );
}

#[tokio::test]
async fn leftovers_of_a_finished_command_are_killed() {
    let s = Sandbox::new();
    let mark = marker();
    let run = json!({"action": "run", "command": format!("(sleep {mark}) & echo started")});
    let (is_error, text, _) = Exec::new(&s).call(run).await;
    assert!(!is_error, "{text}");
    assert_eq!(gone(&mark).await, Vec::<u32>::new());
}

#[tokio::test]
async fn cancelling_kills_the_group() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let mark = marker();
    let ctx = ToolContext::new(s.roots.clone());
    let cancel = ctx.cancel.clone();
    let call = e.call_in(
        ctx,
        json!({"action": "run", "command": format!("sleep {mark}")}),
    );
    let canceller = async {
        while processes_with(&mark).is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    };
    let ((is_error, text, structured), ()) = tokio::join!(call, canceller);
    assert!(is_error);
    assert!(text.contains("cancelled (process group killed)"), "{text}");
    assert_eq!(structured["timedOut"], false);
    assert_eq!(gone(&mark).await, Vec::<u32>::new());
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn fifty_megabytes_of_output_are_capped() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let before = rss_kib();
    let run = json!({"action": "run", "command": "yes | head -c 50000000"});
    let (is_error, text, structured) = e.call(run).await;
    let grown = rss_kib().saturating_sub(before);
    assert!(!is_error, "{}", &text[..200.min(text.len())]);
    assert_eq!(structured["stdoutBytes"], 50_000_000);
    let kept = structured["stdout"].as_str().unwrap();
    assert!(kept.len() < 31_000, "{}", kept.len());
    assert!(kept.starts_with("y\ny\n"));
    assert!(kept.ends_with("y\ny\n"));
    assert!(
        kept.contains(" bytes not shown; the middle is not kept; run it with background: true and page it with output ...]\n"),
        "{}",
        &kept[14_000..16_500]
    );
    // The 50 MB never sat in memory (the bound is generous for the
    // allocator and the other tests of this binary running alongside).
    assert!(grown < 40 * 1024, "RSS grew {grown} KiB");
}

#[tokio::test]
async fn background_job_output_wait_write_kill() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let (id, text, _) = e
        .start("echo ready; while read line; do echo \"got $line\"; done; echo bye")
        .await;
    assert!(
        text.starts_with(&format!("job {id} started (pid ")),
        "{text}"
    );

    let write = json!({"action": "write", "id": id, "text": "one\ntwo\n"});
    let (_, _, w) = e.call(write).await;
    assert_eq!(w, Value::Null);
    let (is_error, text, _) = e
        .call(json!({"action": "write", "id": id, "eof": true}))
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!("job {id}: wrote 0 bytes to stdin and closed it\n")
    );

    let (text, state) = e.wait(id.as_str()).await;
    assert_eq!(state["running"], false, "{text}");
    assert_eq!(state["exitCode"], 0);
    assert!(
        text.starts_with("ready\ngot one\ngot two\nbye\n[job "),
        "{text}"
    );
    assert!(text.contains(": exit code 0, "), "{text}");
    // Read again: nothing new since the last read; from offset 0: all.
    let (_, text, _) = e.call(json!({"action": "logs", "id": id})).await;
    assert!(text.starts_with("[job "), "{text}");
    assert!(text.contains("output bytes 26-26 of 26]"), "{text}");
    for (page, start) in [
        (
            json!({"action": "output", "id": id, "offset": 6}),
            "got one\ngot two\nbye\n[",
        ),
        (
            json!({"action": "output", "id": id, "tail": 2}),
            "got two\nbye\n[",
        ),
    ] {
        let (_, text, _) = e.call(page).await;
        assert!(text.starts_with(start), "{text}");
    }

    // A job that runs until killed.
    let mark = marker();
    let (id2, _, _) = e.start(format!("sleep {mark}")).await;
    let (_, list, listed) = e.call(json!({"action": "ps"})).await;
    let rows = listed["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{list}");
    assert_eq!(rows[1]["state"], "running");
    assert_eq!(rows[1]["command"], format!("sleep {mark}"));
    let kill = json!({"action": "kill", "id": id2, "signal": "KILL"});
    let (is_error, text, _) = e.call(kill).await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(&format!("job {id2}: sent SIGKILL to process group ")),
        "{text}"
    );
    let (_, _, state) = e.call(json!({"action": "wait", "id": id2})).await;
    assert_eq!(state["state"], "killed by signal 9");
    assert_eq!(gone(&mark).await, Vec::<u32>::new());

    for (args, expected) in [
        (
            json!({"action": "kill", "id": "99"}),
            "no job '99' (list shows the jobs)",
        ),
        (
            json!({"action": "kill", "id": id, "signal": "BOOM"}),
            "kill: unknown signal 'BOOM' (accepted: TERM, KILL, INT, HUP, QUIT, USR1, USR2)",
        ),
    ] {
        let (is_error, text, _) = e.call(args).await;
        assert!(is_error);
        assert_eq!(text, expected);
    }
}

#[tokio::test]
async fn dropping_the_tool_kills_running_jobs() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let mark = marker();
    let (_, _, started) = e.start(format!("sleep {mark}")).await;
    assert!(started["pid"].as_u64().unwrap() > 0);
    while processes_with(&mark).is_empty() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(e);
    assert_eq!(gone(&mark).await, Vec::<u32>::new());
    let spool = std::fs::read_dir(s.base.join("spool")).unwrap().count();
    assert_eq!(spool, 0, "spools are removed with the jobs");
}

#[tokio::test]
async fn bad_arguments_are_named() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    for (args, expected) in [
        (json!({"action": "run"}), "run: missing field 'command'"),
        (
            json!({"action": "run", "command": ""}),
            "run: 'command' is empty",
        ),
        (
            json!({"action": "run", "command": []}),
            "run: 'command' is an empty argv (the program comes first)",
        ),
        (
            json!({"action": "run", "command": "true", "timeout_ms": 700_000}),
            "timeout_ms must be 1..=600000 (got 700000)",
        ),
        (
            json!({"action": "run", "command": "true", "env": {"A=B": "x"}}),
            "env: 'A=B' is not a variable name (no '=' or NUL) with a value without NUL",
        ),
        (json!({"action": "output"}), "output: missing field 'id'"),
        (
            json!({"action": "run", "command": ["definitely-not-a-program-xyz"]}),
            "could not start 'definitely-not-a-program-xyz': No such file or directory (os error 2)",
        ),
    ] {
        let (is_error, text, _) = e.call(args.clone()).await;
        assert!(is_error, "{args}");
        assert_eq!(text, expected, "{args}");
    }
    let (is_error, text, _) = e.call(json!({"action": "launch"})).await;
    assert!(is_error);
    assert!(
        text.starts_with("invalid arguments: unknown variant `launch`"),
        "{text}"
    );
}

#[tokio::test]
async fn progress_carries_the_newest_line() {
    let s = Sandbox::new();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = seen.clone();
    let mut ctx = ToolContext::new(s.roots.clone());
    ctx.progress = mcp_local_tools::Progress::new(move |_, _, message| {
        sink.lock().unwrap().push(message.unwrap_or_default());
    });
    let steps =
        json!({"action": "run", "command": "for i in 1 2 3; do echo step $i; sleep 0.4; done"});
    let (is_error, _, _) = Exec::new(&s).call_in(ctx, steps).await;
    assert!(!is_error);
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert_eq!(seen[0], "step 1");
    assert!(seen.iter().all(|m| m.starts_with("step ")), "{seen:?}");
}

#[tokio::test]
async fn help_lists_aliases_and_reading_actions() {
    let s = Sandbox::new();
    let (is_error, text, _) = Exec::new(&s).call(json!({"action": "help"})).await;
    assert!(!is_error);
    assert!(
        text.starts_with("exec actions (fields in brackets are optional):\nrun {command,"),
        "{text}"
    );
    for line in [
        "(also called: exec) [can: run programs]\n",
        "(also called: logs) [can: state]\n",
        "list: the jobs of this server: id, state, pid, runtime, command. (also called: ps) [can: none]\n",
    ] {
        assert!(text.contains(line), "{text}");
    }
    assert!(
        text.ends_with(
            "A grant of the whole tool (exec) gives: run programs, state.\n\
             Actions that only read: list.\n\
             Removed from every child process's environment: HANZO_API_KEY, HANZO_MCP_HTTP_BEARER.\n"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn job_ids_are_only_the_printed_decimal() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let (id, _, _) = e.start(json!(["true"])).await;
    assert_eq!(id, "1");
    let (is_error, text, _) = e.call(json!({"action": "wait", "id": "1"})).await;
    assert!(!is_error, "{text}");
    for id in ["01", "+1", " 1", "1 ", "1.0", ""] {
        let (is_error, text, _) = e.call(json!({"action": "output", "id": id})).await;
        assert!(is_error, "{id:?} was taken for job 1: {text}");
        assert_eq!(
            text,
            format!("no job '{}' (list shows the jobs)", id.escape_debug()),
            "{id:?}"
        );
    }
}

#[tokio::test]
async fn tail_zero_is_an_empty_page_at_the_end() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let (id, _, _) = e.start("echo one; echo two").await;
    let (text, state) = e.wait(id.as_str()).await;
    assert_eq!(state["exitCode"], 0, "{text}");
    let tail = |n: u64| json!({"action": "output", "id": id, "tail": n});
    let (is_error, text, page) = e.call(tail(0)).await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(&format!("[job {id}: exit code 0, ")),
        "{text}"
    );
    assert!(text.ends_with(" ms; output bytes 8-8 of 8]\n"), "{text}");
    assert_eq!(page["offset"], 8);
    assert_eq!(page["nextOffset"], 8);
    let (_, text, _) = e.call(tail(1)).await;
    assert!(text.starts_with("two\n[job "), "{text}");
}

#[tokio::test]
async fn writing_to_a_finished_job_or_a_closed_stdin_is_an_error() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let (id, _, _) = e.start(json!(["true"])).await;
    let (text, state) = e.wait(id.as_str()).await;
    assert_eq!(state["exitCode"], 0, "{text}");
    let big_write = |id: &str| json!({"action": "write", "id": id, "text": "x".repeat(100_000)});
    let (is_error, text, _) = e.call(big_write(&id)).await;
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        format!("job {id} has ended (exit code 0); nothing was written")
    );

    // A running job that closed its stdin: the pipe is broken.
    let mark = marker();
    let (id, _, _) = e
        .start(format!("exec 0<&-; echo closed; sleep {mark}"))
        .await;
    let mut seen = String::new();
    while !seen.contains("closed\n") {
        let (_, text, _) = e.call(json!({"action": "output", "id": id})).await;
        seen.push_str(&text);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (is_error, text, _) = e.call(big_write(&id)).await;
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "job {id}: could not write to its stdin: Broken pipe (os error 32); the process closed it"
        )
    );
    let (is_error, text, _) = e
        .call(json!({"action": "write", "id": id, "text": "y"}))
        .await;
    assert!(is_error, "{text}");
    assert_eq!(text, format!("job {id}: stdin is closed"));
    let (is_error, text, _) = e.call(json!({"action": "kill", "id": id})).await;
    assert!(!is_error, "{text}");
    assert_eq!(gone(&mark).await, Vec::<u32>::new());
}

/// The pid of a process that ran and was killed with SIGKILL (and reaped):
/// a server killed outright.
fn killed_pid() -> u32 {
    let mut owner = std::process::Command::new("sleep")
        .arg("1000")
        .spawn()
        .unwrap();
    let pid = owner.id();
    owner.kill().unwrap();
    owner.wait().unwrap();
    pid
}

/// Field 22 of /proc/<pid>/stat: the start time.
fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(") ").unwrap();
    rest.split_whitespace().nth(19).unwrap().parse().unwrap()
}

/// Waits until both `sh -c 'sleep <mark>; true'` and its `sleep` run.
async fn shell_and_sleep(mark: &str) {
    while processes_with(mark).len() < 2 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `sh -c 'sleep <mark>; true'` in a group of its own, once its `sleep`
/// runs: the shell leads the group, `sleep` is its child.
async fn shell_group(mark: &str) -> std::process::Child {
    use std::os::unix::process::CommandExt as _;
    let child = std::process::Command::new("sh")
        .args(["-c", &format!("sleep {mark}; true")])
        .process_group(0)
        .spawn()
        .unwrap();
    shell_and_sleep(mark).await;
    child
}

fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_killed_servers_groups_and_spools_are_cleaned_by_the_next() {
    use std::os::unix::process::ExitStatusExt as _;
    let s = Sandbox::new();
    let spool = s.base.join("spool");
    std::fs::create_dir_all(&spool).unwrap();
    let dead = killed_pid();
    // What the killed server left: a shell's group whose `sleep` survived.
    let mark = marker();
    let mut left = shell_group(&mark).await;
    let pgid = left.id();
    std::fs::write(spool.join(format!("{dead}-1.log")), "old output\n").unwrap();
    std::fs::write(
        spool.join(format!("{dead}-1.pgid")),
        format!("{pgid} {}\n", start_time(pgid)),
    )
    .unwrap();
    // A group whose number matches a record but whose leader started at
    // another time is someone else's: left alone.
    let other_mark = marker();
    assert_ne!(other_mark, mark);
    let mut other = shell_group(&other_mark).await;
    let other_pgid = other.id();
    std::fs::write(
        spool.join(format!("{dead}-2.pgid")),
        format!("{other_pgid} {}\n", start_time(other_pgid) + 1),
    )
    .unwrap();
    // The files of a server that still runs are kept.
    let live = other_pgid;
    std::fs::write(spool.join(format!("{live}-1.log")), "its output\n").unwrap();
    std::fs::write(spool.join("notes.txt"), "not a spool\n").unwrap();

    let (is_error, text, _) = Exec::new(&s).call(json!({"action": "list"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "no jobs\n");
    assert_eq!(left.wait().unwrap().signal(), Some(9));
    assert_eq!(
        gone(&mark).await,
        Vec::<u32>::new(),
        "the group's sleep is left"
    );
    // Its shell and its sleep.
    assert_eq!(processes_with(&other_mark).len(), 2);
    assert_eq!(
        file_names(&spool),
        vec![format!("{live}-1.log"), "notes.txt".to_owned()]
    );

    let killed = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{other_pgid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    other.wait().unwrap();
    assert_eq!(gone(&other_mark).await, Vec::<u32>::new());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_shell_jobs_group_record_lets_the_next_server_kill_it() {
    let s = Sandbox::new();
    let spool = s.base.join("spool");
    let mark = marker();
    let first = Exec::new(&s);
    let (_, text, started) = first.start(format!("sleep {mark}; true")).await;
    let pgid = started["pid"].as_u64().unwrap() as u32;
    shell_and_sleep(&mark).await;
    let me = std::process::id();
    assert_eq!(
        file_names(&spool),
        vec![format!("{me}-1.log"), format!("{me}-1.pgid")],
        "{text}"
    );
    let record = std::fs::read_to_string(spool.join(format!("{me}-1.pgid"))).unwrap();
    assert_eq!(record, format!("{pgid} {}\n", start_time(pgid)));
    // The first server is killed outright: its table is never dropped, and
    // its files now belong to a pid that no longer runs.
    std::mem::forget(first);
    let dead = killed_pid();
    for kind in ["log", "pgid"] {
        std::fs::rename(
            spool.join(format!("{me}-1.{kind}")),
            spool.join(format!("{dead}-1.{kind}")),
        )
        .unwrap();
    }
    let (_, text, _) = Exec::new(&s).call(json!({"action": "list"})).await;
    assert_eq!(text, "no jobs\n");
    assert_eq!(
        gone(&mark).await,
        Vec::<u32>::new(),
        "the job's sleep is left"
    );
    assert_eq!(file_names(&spool), Vec::<String>::new());
}

#[tokio::test]
async fn calls_written_in_claude_codes_bash_vocabulary_succeed_and_ids_take_numbers() {
    let s = Sandbox::new();
    let e = Exec::new(&s);
    let bash =
        json!({"action": "run", "command": "echo hi", "timeout": 5000, "description": "Say hi"});
    let (is_error, text, _) = e.call(bash).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("--- stdout ---\nhi\n"), "{text}");
    let in_background = json!({"action": "run", "command": "echo bg", "run_in_background": true});
    let (is_error, text, started) = e.call(in_background).await;
    assert!(!is_error, "{text}");
    let id = started["id"].as_str().unwrap().to_owned();
    let number: u64 = id.parse().expect("a job id is a number in a string");
    let (text, state) = e.wait(number).await;
    assert_eq!(state["running"], false, "{text}");
    let output = json!({"action": "output", "id": number, "offset": 0});
    let (is_error, text, _) = e.call(output).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("bg\n"), "{text}");
    let (is_error, text, _) = e.call(json!({"action": "output", "id": 1.5})).await;
    assert!(is_error);
    assert!(text.contains("invalid id 1.5"), "{text}");
}

/// A job is its session's: another session neither lists it nor reaches
/// it by id (over streamable HTTP each client is a session).
#[tokio::test]
async fn a_job_is_seen_only_by_the_session_that_started_it() {
    let s = Sandbox::new();
    let exec = Exec::new(&s);
    let in_session = |session: u64| {
        let mut ctx = ToolContext::new(s.roots.clone());
        ctx.session = session;
        ctx
    };
    let args = json!({"action": "run", "background": true, "command": "echo mine; sleep 30"});
    let (is_error, text, started) = exec.call_in(in_session(1), args).await;
    assert!(!is_error, "{text}");
    let id = started["id"].as_str().unwrap().to_owned();
    let (_, listed, _) = exec.call_in(in_session(2), json!({"action": "list"})).await;
    assert_eq!(listed, "no jobs\n");
    for args in [
        json!({"action": "output", "id": id}),
        json!({"action": "wait", "id": id, "timeout_ms": 100}),
        json!({"action": "kill", "id": id}),
    ] {
        let action = args["action"].clone();
        let (is_error, text, _) = exec.call_in(in_session(2), args).await;
        assert!(is_error, "{action}: {text}");
        assert!(text.contains(&format!("no job '{id}'")), "{action}: {text}");
    }
    let (is_error, text, _) = exec
        .call_in(
            in_session(2),
            json!({"action": "write", "id": id, "text": "x"}),
        )
        .await;
    assert!(is_error && text.contains("no job"), "{text}");
    // Its own session still has it, running.
    let (_, listed, _) = exec.call_in(in_session(1), json!({"action": "list"})).await;
    assert!(listed.contains("echo mine; sleep 30"), "{listed}");
    let (is_error, text, _) = exec
        .call_in(in_session(1), json!({"action": "kill", "id": id}))
        .await;
    assert!(!is_error, "{text}");
}
