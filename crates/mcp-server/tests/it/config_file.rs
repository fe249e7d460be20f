//! The configuration file through the binary: precedence flag >
//! environment > file > default for each kind of setting (`hanzo-mcp
//! config show`), an unknown key and a bad value stopping the start with
//! the key's path, the default file ignored inside a root unless named,
//! a bad registries variable stopping the start, and `serve` using what
//! the file says.

use std::path::Path;

use serde_json::json;

use crate::common::{Proc, hanzo_mcp, names, run, tool_names};

/// `hanzo-mcp <args>` with `env`, its exit code, stdout and stderr.
fn outcome(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = run(args, env);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The line of `config show` output for `key`: its value and origin.
fn shown(output: &str, key: &str) -> String {
    output
        .lines()
        .find(|line| line.split(" = ").next().map(str::trim) == Some(key))
        .unwrap_or_else(|| panic!("no {key} in {output}"))
        .split_once(" = ")
        .expect("key = value")
        .1
        .to_owned()
}

/// A configuration file with `text` in a new temporary folder.
fn config_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).expect("write config");
    let path = path.to_str().expect("utf-8").to_owned();
    (dir, path)
}

const FILE: &str = r#"
mode = "review"
secret_env = ["FROM_FILE"]
max_in_flight = 7

[allowed_tools]
local = ["fs", "git:status"]

[door]
enabled = true
address = "https://door.example/v1/mcp"
wait = 7.5
allow_cleartext_bearer = true

[http]
max_sessions = 9
no_auth = true
"#;

#[test]
fn each_kind_of_setting_takes_the_flag_then_the_variable_then_the_file_then_the_default() {
    let (_dir, path) = config_file(FILE);
    let show = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["config", "show", "--config", path.as_str()];
        args.extend_from_slice(extra);
        let (code, out, err) = outcome(&args, env);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.starts_with(&format!("# config file: {path}\n")),
            "{out}"
        );
        out
    };

    // The file over the defaults.
    let out = show(&[], &[]);
    assert_eq!(shown(&out, "mode"), "review  (config file)");
    assert_eq!(
        shown(&out, "secret_env"),
        "HANZO_API_KEY, HANZO_MCP_HTTP_BEARER, FROM_FILE  (config file)"
    );
    assert_eq!(shown(&out, "max_in_flight"), "7  (config file)");
    assert_eq!(
        shown(&out, "allowed_tools"),
        r#"{"local":["fs","git:status"]}  (config file)"#
    );
    assert_eq!(shown(&out, "door.enabled"), "true  (config file)");
    assert_eq!(shown(&out, "door.wait"), "7.5 s  (config file)");
    assert_eq!(
        shown(&out, "door.address"),
        "https://door.example/v1/mcp  (config file)"
    );
    assert_eq!(
        shown(&out, "door.allow_cleartext_bearer"),
        "true  (config file)"
    );
    assert_eq!(shown(&out, "http.max_sessions"), "9  (config file)");
    assert_eq!(shown(&out, "http.no_auth"), "true  (config file)");
    assert_eq!(shown(&out, "http.session_idle"), "1800  (default)");
    assert_eq!(shown(&out, "http.listen"), "(off: stdio)  (default)");

    // The environment over the file.
    let out = show(
        &[],
        &[
            ("HANZO_MCP_MODE", "full"),
            ("HANZO_MCP_SECRET_ENV", "FROM_ENV"),
            ("HANZO_MCP_ALLOWED_TOOLS", r#"{"local":["think"]}"#),
            ("HANZO_MCP_DOOR", "https://env.example/v1/mcp"),
            ("HANZO_MCP_HTTP_MAX_SESSIONS", "11"),
            ("HANZO_MCP_DOOR_ALLOW_CLEARTEXT_BEARER", "false"),
            ("HANZO_API_KEY", "sk-never-shown"),
        ],
    );
    assert_eq!(shown(&out, "mode"), "full  (environment HANZO_MCP_MODE)");
    assert_eq!(
        shown(&out, "secret_env"),
        "HANZO_API_KEY, HANZO_MCP_HTTP_BEARER, FROM_ENV  (environment HANZO_MCP_SECRET_ENV)"
    );
    assert_eq!(
        shown(&out, "allowed_tools"),
        r#"{"local":["think"]}  (environment HANZO_MCP_ALLOWED_TOOLS)"#
    );
    assert_eq!(
        shown(&out, "door.address"),
        "https://env.example/v1/mcp  (environment HANZO_MCP_DOOR)"
    );
    assert_eq!(
        shown(&out, "http.max_sessions"),
        "11  (environment HANZO_MCP_HTTP_MAX_SESSIONS)"
    );
    assert_eq!(
        shown(&out, "door.allow_cleartext_bearer"),
        "false  (environment HANZO_MCP_DOOR_ALLOW_CLEARTEXT_BEARER)"
    );
    assert_eq!(
        shown(&out, "door.bearer"),
        "set (masked)  (environment HANZO_API_KEY)"
    );
    assert!(!out.contains("sk-never-shown"), "{out}");

    // Flags over the environment.
    let out = show(
        &[
            "--mode",
            "review",
            "--secret-env",
            "FROM_FLAG",
            "--allowed-tools",
            r#"{"local":["plan"]}"#,
            "--http-max-sessions",
            "12",
            "--door-wait",
            "0.5",
            "--no-door",
            "--http-no-auth",
            "--max-in-flight",
            "3",
        ],
        &[
            ("HANZO_MCP_MODE", "full"),
            ("HANZO_MCP_SECRET_ENV", "FROM_ENV"),
            ("HANZO_MCP_ALLOWED_TOOLS", r#"{"local":["think"]}"#),
            ("HANZO_MCP_HTTP_MAX_SESSIONS", "11"),
        ],
    );
    assert_eq!(shown(&out, "mode"), "review  (flag --mode)");
    assert_eq!(
        shown(&out, "secret_env"),
        "HANZO_API_KEY, HANZO_MCP_HTTP_BEARER, FROM_FLAG  (flag --secret-env)"
    );
    assert_eq!(
        shown(&out, "allowed_tools"),
        r#"{"local":["plan"]}  (flag --allowed-tools)"#
    );
    assert_eq!(
        shown(&out, "http.max_sessions"),
        "12  (flag --http-max-sessions)"
    );
    assert_eq!(shown(&out, "door.wait"), "0.5 s  (flag --door-wait)");
    assert_eq!(shown(&out, "door.enabled"), "false  (flag --no-door)");
    assert_eq!(shown(&out, "http.no_auth"), "true  (flag --http-no-auth)");
    assert_eq!(shown(&out, "max_in_flight"), "3  (flag --max-in-flight)");

    // No file: the defaults.
    let (code, out, err) = outcome(&["config", "show"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# config file: none\n"), "{out}");
    assert_eq!(
        shown(&out, "door.address"),
        "https://api.hanzo.ai/v1/mcp  (default)"
    );
    assert_eq!(shown(&out, "door.wait"), "2 s  (default)");
    assert_eq!(shown(&out, "allowed_tools"), "null (every tool)  (default)");
}

#[test]
fn an_unknown_key_or_a_bad_value_stops_the_start_naming_the_file_and_the_key() {
    let cases: [(&str, &str); 8] = [
        (
            "secret_env = [\"A B\"]\n",
            "key secret_env: \"A B\" is not a variable name",
        ),
        (
            "roots = [\"/nonexistent/hanzo-root\"]\n",
            "key roots: \"/nonexistent/hanzo-root\" is not a directory",
        ),
        (
            "modes = \"/nonexistent/modes.json\"\n",
            "key modes: \"/nonexistent/modes.json\": No such file",
        ),
        (
            "[door]\nwiat = 2\n",
            "key door.wiat (line 2): unknown field `wiat`, expected one of `enabled`",
        ),
        (
            "[door]\nwait = \"2\"\n",
            "key door.wait (line 2): invalid type: string \"2\", expected f64",
        ),
        (
            "[http]\nmax_sessions = 0\n",
            "key http.max_sessions: 0 is not from 1 to 65536",
        ),
        (
            "[allowed_tools]\nlocl = [\"fs\"]\n",
            "key allowed_tools: unknown server \"locl\"",
        ),
        (
            "[ui]\nregistries = \"acme\"\n",
            "key ui.registries: registry 'acme': expected name=URL",
        ),
    ];
    for (text, expected) in cases {
        let (_dir, path) = config_file(text);
        for command in [&["serve"][..], &["tools"][..]] {
            let mut args = command.to_vec();
            args.extend_from_slice(&["--config", path.as_str()]);
            let (code, out, err) = outcome(&args, &[]);
            assert_eq!(code, 2, "{text}: {err}");
            assert!(out.is_empty(), "{out}");
            assert!(
                err.starts_with(&format!("hanzo-mcp: configuration: {path}: {expected}")),
                "{text}: {err}"
            );
        }
    }
    let (code, _, err) = outcome(&["serve", "--config", "/nonexistent/hanzo.toml"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("config file /nonexistent/hanzo.toml: No such file"),
        "{err}"
    );
}

#[test]
fn a_bad_registries_variable_stops_the_start_naming_it() {
    let (code, out, err) = outcome(
        &["serve", "--no-door"],
        &[("HANZO_MCP_UI_REGISTRIES", "http://host/registry.json")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert_eq!(
        err.trim_end(),
        "hanzo-mcp: configuration: HANZO_MCP_UI_REGISTRIES: registry 'http://host/registry.json': \
         expected name=URL (the form: name=URL pairs separated by commas)"
    );
}

/// `config show` with HOME and the config folder in `home`, the working
/// directory `cwd`, and `extra` arguments.
fn show_in(home: &Path, cwd: &Path, extra: &[&str]) -> String {
    let mut command = hanzo_mcp();
    command
        .args(["config", "show"])
        .args(extra)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .stdin(std::process::Stdio::null());
    let out = command.output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_default_file_inside_a_root_or_under_client_roots_is_read_only_when_named() {
    let home = tempfile::tempdir().expect("home");
    let folder = home.path().join(".config/hanzo-mcp");
    std::fs::create_dir_all(&folder).expect("config folder");
    let file = folder.join("config.toml");
    std::fs::write(&file, "mode = \"review\"\n").expect("write");
    let elsewhere = tempfile::tempdir().expect("elsewhere");

    let default = "(none: every session may choose)  (default)";
    let home_root = home.path().to_str().expect("utf-8");
    let other_root = elsewhere.path().to_str().expect("utf-8");

    // The home folder as a root: not read.
    let out = show_in(home.path(), elsewhere.path(), &["--root", home_root]);
    assert!(
        out.starts_with(&format!(
            "# config file: none ({} is inside the root {}",
            file.display(),
            home.path().display()
        )),
        "{out}"
    );
    assert_eq!(shown(&out, "mode"), default);
    // Over stdio without --root the client names the roots: not read.
    let out = show_in(home.path(), elsewhere.path(), &[]);
    assert!(
        out.starts_with(&format!(
            "# config file: none ({} is not read without --root: the client names the roots",
            file.display()
        )),
        "{out}"
    );
    assert_eq!(shown(&out, "mode"), default);
    // Over HTTP the working directory is the root: inside it, not read;
    // elsewhere, read.
    let out = show_in(home.path(), home.path(), &["--http", "127.0.0.1:1"]);
    assert_eq!(shown(&out, "mode"), default);
    let out = show_in(home.path(), elsewhere.path(), &["--http", "127.0.0.1:1"]);
    assert_eq!(shown(&out, "mode"), "review  (config file)");
    // A root elsewhere: read.
    let out = show_in(home.path(), elsewhere.path(), &["--root", other_root]);
    assert!(
        out.starts_with(&format!("# config file: {}\n", file.display())),
        "{out}"
    );
    assert_eq!(shown(&out, "mode"), "review  (config file)");
    // Named: read, root or not.
    let named = file.to_str().expect("utf-8");
    let out = show_in(home.path(), home.path(), &["--config", named]);
    assert_eq!(shown(&out, "mode"), "review  (config file)");
}

#[test]
fn tools_reads_the_default_file_exactly_when_stdio_serve_would() {
    let home = tempfile::tempdir().expect("home");
    let folder = home.path().join(".config/hanzo-mcp");
    std::fs::create_dir_all(&folder).expect("config folder");
    std::fs::write(
        folder.join("config.toml"),
        "[allowed_tools]\nlocal = [\"think\"]\n",
    )
    .expect("write");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let tools = |extra: &[&str]| {
        let out = hanzo_mcp()
            .args(["tools", "--no-door"])
            .args(extra)
            .current_dir(elsewhere.path())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
        let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (
            tool_names(&listed),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Without --root, as `serve` over stdio: not read, and said.
    let (listed, stderr) = tools(&[]);
    assert_eq!(listed.len(), 12, "{listed:?}");
    assert!(stderr.contains("is not read without --root"), "{stderr}");
    // With a root elsewhere: read.
    let root = elsewhere.path().to_str().expect("utf-8");
    let (listed, _) = tools(&["--root", root]);
    assert_eq!(listed, ["think"]);
}

#[test]
fn serve_uses_the_file_and_names_it_in_the_start_up_line() {
    let (_dir, path) = config_file(
        "log_level = \"info\"\n[allowed_tools]\nlocal = [\"fs\", \"think\"]\n[door]\nenabled = false\n",
    );
    let root = tempfile::tempdir().expect("root");
    let root_arg = root.path().to_str().expect("utf-8");
    let mut server = Proc::spawn_with_env(
        &["serve", "--root", root_arg],
        &[("HANZO_MCP_CONFIG", path.as_str()), ("RUST_LOG", "")],
    );
    let line = loop {
        let line = server.stderr_line();
        if line.contains("hanzo-mcp ") {
            break line;
        }
    };
    assert!(
        line.ends_with(&format!(
            ": 2 local tools, roots {root_arg}, door off, config {path}"
        )),
        "{line}"
    );
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs", "think"]);
    server.wait();
}

#[test]
fn the_readmes_server_samples_are_valid_configuration() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .expect("README.md");
    let samples: Vec<&str> = readme
        .split("```toml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .filter(|block| block.contains("[[servers]]"))
        .collect();
    assert_eq!(
        samples.len(),
        2,
        "the configuration sample and the servers sample"
    );
    for sample in samples {
        let file =
            mcp_local_server::config::parse(sample).unwrap_or_else(|e| panic!("{e}\n{sample}"));
        let servers = file.servers.expect("[[servers]]");
        let names: Vec<String> = servers
            .iter()
            .enumerate()
            .map(|(at, entry)| entry.mount(at).expect("a valid entry").spec.name)
            .collect();
        assert_eq!(names, ["knowledge-base", "github"]);
    }
}

#[test]
fn a_server_bearer_over_plain_http_to_another_host_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        "[[servers]]\nname = \"remote\"\nurl = \"http://192.0.2.2:8080/mcp\"\nbearer_env = \"TOKEN\"\n",
    )
    .unwrap();
    let output = run(
        &["serve", "--no-door", "--config", config.to_str().unwrap()],
        &[("TOKEN", "t")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("servers[0].url") && stderr.contains("clear text"),
        "{stderr}"
    );
    // Loopback and https are fine: `config show` names the server.
    std::fs::write(
        &config,
        "server_wait = 3\n[[servers]]\nname = \"local-web\"\nurl = \"http://127.0.0.1:8080/mcp\"\nbearer_env = \"TOKEN\"\n",
    )
    .unwrap();
    let output = run(
        &["config", "show", "--config", config.to_str().unwrap()],
        &[("TOKEN", "t")],
    );
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");
    assert!(
        shown.contains("local-web (http://127.0.0.1:8080/mcp, with a bearer)"),
        "{shown}"
    );
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("server_wait") && l.contains("= 3 s")),
        "{shown}"
    );
}

#[test]
fn a_server_flag_that_cannot_be_read_is_a_usage_error() {
    for (flag, says) in [
        ("bad name=x", "' '"),
        ("door=x", "hanzo-mcp's own"),
        ("kb", "NAME=COMMAND"),
    ] {
        let output = run(&["serve", "--no-door", "--server", flag], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains("--server") && stderr.contains(says),
            "{flag}: {stderr}"
        );
    }
}

#[test]
fn a_mode_that_names_no_preset_stops_serve_and_config_show_naming_where_it_was_set() {
    let (_dir, path) = config_file("mode = \"nonexistent\"\n");
    let known = "no such mode (known: full, review)";
    /// Flags, variables, and the refusal expected.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], String);
    let cases: [Case; 3] = [
        (
            &["--config", &path],
            &[],
            format!("hanzo-mcp: configuration: {path}: key mode: \"nonexistent\": {known}\n"),
        ),
        (
            &[],
            &[("HANZO_MCP_MODE", "nonexistent")],
            format!("hanzo-mcp: configuration: HANZO_MCP_MODE=nonexistent: {known}\n"),
        ),
        (
            &["--mode", "nonexistent"],
            &[],
            format!("hanzo-mcp: configuration: --mode nonexistent: {known}\n"),
        ),
    ];
    let root = tempfile::tempdir().expect("root");
    let root = root.path().to_str().expect("utf-8");
    for (flags, env, expected) in &cases {
        for command in [&["serve", "--no-door"][..], &["config", "show"][..]] {
            let mut args = command.to_vec();
            args.extend_from_slice(&["--root", root]);
            args.extend_from_slice(flags);
            let (code, stdout, stderr) = outcome(&args, env);
            assert_eq!(code, 2, "{args:?} {env:?}: {stderr}");
            assert_eq!(stdout, "", "{args:?}");
            // The refusal alone: no start-up line before it.
            assert_eq!(&stderr, expected, "{args:?} {env:?}");
        }
    }
}

/// The `ui` registries file in a state folder that a root holds (the
/// agent could have written it) is not read, nor without `--root` (the
/// client names the roots); with the root elsewhere it is, which shows
/// the file is otherwise used.
#[test]
fn a_ui_registries_file_inside_a_root_is_not_read() {
    let root = tempfile::tempdir().expect("root");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let state = root.path().join("state");
    std::fs::create_dir_all(&state).expect("state folder");
    std::fs::write(
        state.join("ui.json"),
        r#"{"registries":[{"name":"planted","index_url":"https://planted.example/r/index.json","item_url":"https://planted.example/r/{name}.json"}]}"#,
    )
    .expect("ui.json");
    let state = state.to_str().expect("utf-8");
    let (inside, outside) = (
        root.path().to_str().expect("utf-8"),
        elsewhere.path().to_str().expect("utf-8"),
    );
    // Without --root the client names the roots: not read either.
    for (args, read) in [
        (vec!["--root", inside], false),
        (vec![], false),
        (vec!["--root", outside], true),
    ] {
        let mut argv = vec!["serve", "--no-door"];
        argv.extend(&args);
        let mut server = Proc::spawn_with_env(&argv, &[("HANZO_MCP_STATE", state)]);
        server.initialize("2025-11-25");
        let answer = server.call(
            1,
            "tools/call",
            crate::common::call_params("ui", json!({"action": "registries"})),
        );
        let text = crate::common::first_text(&answer["result"]);
        assert_eq!(text.contains("planted"), read, "{args:?}: {text}");
    }
}
