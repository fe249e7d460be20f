//! The command line: values refused with a message naming the flag and
//! the reason (exit status 2) — a `--log-level` that is no filter
//! directive, an `--http` host name, an `--http-*` limit out of its range
//! (`--allowed-tools` values are in `gating`) — and the `--http` limit
//! flags (and their `HANZO_MCP_HTTP_*` variables) becoming the
//! `HttpConfig` that `serve_http` runs with.

use std::time::Duration;

use clap::Parser;
use clap::error::ErrorKind;
use mcp_local_server::cli::{Cli, Command as Sub, ServeArgs};
use mcp_local_server::http::HttpConfig;
use serde_json::json;

use crate::common::http::Http;
use crate::common::{Proc, open_http_args, run};

/// The first line of the parser's refusal of `argv`.
fn refusal(argv: &[&str]) -> String {
    let error = Cli::try_parse_from(argv).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::ValueValidation, "{error}");
    error
        .to_string()
        .lines()
        .next()
        .expect("a message")
        .to_owned()
}

/// `hanzo-mcp serve --http 127.0.0.1:0` and `extra`.
fn http_argv<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut argv = vec!["hanzo-mcp", "serve", "--http", "127.0.0.1:0"];
    argv.extend_from_slice(extra);
    argv
}

fn parse(extra: &[&str]) -> Result<ServeArgs, clap::Error> {
    Cli::try_parse_from(http_argv(extra)).map(|cli| match cli.command {
        Sub::Serve(args) => args,
        other => panic!("not serve: {other:?}"),
    })
}

#[test]
fn an_invalid_log_level_is_refused_with_the_filter_parser_reason() {
    let cases = [
        (
            "[",
            "error: invalid value '[' for '--log-level <LEVEL>': invalid filter directive",
        ),
        (
            "foo=bar",
            "error: invalid value 'foo=bar' for '--log-level <LEVEL>': error parsing level filter: \
             expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \"trace\", \
             or a number 0-5",
        ),
        (
            "loud",
            "error: invalid value 'loud' for '--log-level <LEVEL>': \"loud\" is not a level: \
             give off, error, warn, info, debug or trace, or TARGET=LEVEL",
        ),
        (
            "info,warning",
            "error: invalid value 'info,warning' for '--log-level <LEVEL>': \"warning\" is not \
             a level (did you mean warn?): give off, error, warn, info, debug or trace, or \
             TARGET=LEVEL",
        ),
        (
            "nonsense=[[",
            "error: invalid value 'nonsense=[[' for '--log-level <LEVEL>': error parsing level \
             filter: expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \
             \"trace\", or a number 0-5",
        ),
    ];
    for (level, expected) in cases {
        assert_eq!(
            refusal(&["hanzo-mcp", "serve", "--log-level", level]),
            expected,
            "{level}"
        );
    }
}

#[test]
fn valid_log_levels_are_kept_as_given() {
    for level in [
        "info",
        "warn",
        "mcp_local_server=debug,warn",
        "trace",
        "OFF",
        "3",
    ] {
        let cli = Cli::try_parse_from(["hanzo-mcp", "serve", "--log-level", level])
            .unwrap_or_else(|e| panic!("{level}: {e}"));
        match cli.command {
            Sub::Serve(args) => assert_eq!(args.log_level.as_deref(), Some(level)),
            other => panic!("not serve: {other:?}"),
        }
    }
}

#[test]
fn the_binary_refuses_an_invalid_log_level_with_status_2() {
    let out = run(&["serve", "--no-door", "--log-level", "foo=bar"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.lines().next(),
        Some(
            "error: invalid value 'foo=bar' for '--log-level <LEVEL>': error parsing level \
             filter: expected one of \"off\", \"error\", \"warn\", \"info\", \"debug\", \
             \"trace\", or a number 0-5"
        ),
        "{stderr}"
    );
}

#[test]
fn a_host_name_for_http_is_refused_naming_ip_port() {
    assert_eq!(
        refusal(&["hanzo-mcp", "serve", "--http", "localhost:18084"]),
        "error: invalid value 'localhost:18084' for '--http <ADDR>': \"localhost:18084\" is \
         neither IP:PORT (an IP address and a port) nor a port number (for 127.0.0.1)"
    );
    let cli = Cli::try_parse_from(["hanzo-mcp", "serve", "--http", "[::1]:18084"]).expect("IPv6");
    match cli.command {
        Sub::Serve(args) => assert_eq!(args.http, Some("[::1]:18084".parse().expect("addr"))),
        other => panic!("not serve: {other:?}"),
    }
}

#[test]
fn serve_help_says_http_takes_ip_port() {
    let help = Cli::try_parse_from(["hanzo-mcp", "serve", "--help"])
        .expect_err("help is an early exit")
        .to_string();
    assert!(!help.contains("HOST:PORT"), "{help}");
    assert!(
        help.contains("`IP:PORT`, an IP address and a port, or a port alone for 127.0.0.1"),
        "{help}"
    );
}

#[test]
fn without_flags_the_limits_are_the_library_defaults() {
    let config = parse(&[]).expect("parsed").http_config();
    let defaults = HttpConfig::default();
    assert_eq!(config.max_sessions, 256);
    assert_eq!(config.session_idle, Duration::from_secs(1800));
    assert_eq!(config.header_read_timeout, Duration::from_secs(10));
    assert_eq!(config.max_connections, 512);
    assert_eq!(config.body_read_timeout, Duration::from_secs(30));
    assert_eq!(config.body_read_timeout, defaults.body_read_timeout);
    assert_eq!(config.max_sessions, defaults.max_sessions);
    assert_eq!(config.session_idle, defaults.session_idle);
    assert_eq!(config.header_read_timeout, defaults.header_read_timeout);
    assert_eq!(config.max_connections, defaults.max_connections);
    assert_eq!(config.path, "/mcp");
    assert_eq!(config.max_body_bytes, defaults.max_body_bytes);
}

#[test]
fn each_flag_sets_its_field() {
    let config = parse(&[
        "--http-max-sessions",
        "8",
        "--http-session-idle",
        "90",
        "--http-header-timeout",
        "3",
        "--http-max-connections",
        "64",
        "--http-body-timeout",
        "5",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(config.max_sessions, 8);
    assert_eq!(config.session_idle, Duration::from_secs(90));
    assert_eq!(config.header_read_timeout, Duration::from_secs(3));
    assert_eq!(config.max_connections, 64);
    assert_eq!(config.body_read_timeout, Duration::from_secs(5));
    assert_eq!(config.path, "/mcp");
}

#[test]
fn the_bounds_themselves_are_accepted() {
    let low = parse(&[
        "--http-max-sessions=1",
        "--http-session-idle=1",
        "--http-header-timeout=1",
        "--http-max-connections=1",
        "--http-body-timeout=1",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(
        (
            low.max_sessions,
            low.session_idle,
            low.header_read_timeout,
            low.max_connections,
            low.body_read_timeout
        ),
        (
            1,
            Duration::from_secs(1),
            Duration::from_secs(1),
            1,
            Duration::from_secs(1)
        )
    );
    let high = parse(&[
        "--http-max-sessions=65536",
        "--http-session-idle=604800",
        "--http-header-timeout=600",
        "--http-max-connections=65536",
        "--http-body-timeout=600",
    ])
    .expect("parsed")
    .http_config();
    assert_eq!(
        (
            high.max_sessions,
            high.session_idle,
            high.header_read_timeout,
            high.max_connections,
            high.body_read_timeout
        ),
        (
            65_536,
            Duration::from_secs(604_800),
            Duration::from_secs(600),
            65_536,
            Duration::from_secs(600)
        )
    );
}

#[test]
fn zero_and_absurd_values_are_refused_naming_the_flag_and_range() {
    let cases: [(&[&str], &str); 12] = [
        (
            &["--http-max-sessions", "0"],
            "error: invalid value '0' for '--http-max-sessions <N>': 0 is not in 1..=65536",
        ),
        (
            &["--http-max-sessions", "65537"],
            "error: invalid value '65537' for '--http-max-sessions <N>': 65537 is not in 1..=65536",
        ),
        (
            &["--http-session-idle", "0"],
            "error: invalid value '0' for '--http-session-idle <SECS>': 0 is not in 1..=604800",
        ),
        (
            &["--http-session-idle", "604801"],
            "error: invalid value '604801' for '--http-session-idle <SECS>': 604801 is not in 1..=604800",
        ),
        (
            &["--http-header-timeout", "0"],
            "error: invalid value '0' for '--http-header-timeout <SECS>': 0 is not in 1..=600",
        ),
        (
            &["--http-header-timeout", "86400"],
            "error: invalid value '86400' for '--http-header-timeout <SECS>': 86400 is not in 1..=600",
        ),
        (
            &["--http-body-timeout", "0"],
            "error: invalid value '0' for '--http-body-timeout <SECS>': 0 is not in 1..=600",
        ),
        (
            &["--http-body-timeout", "601"],
            "error: invalid value '601' for '--http-body-timeout <SECS>': 601 is not in 1..=600",
        ),
        (
            &["--http-max-connections", "0"],
            "error: invalid value '0' for '--http-max-connections <N>': 0 is not in 1..=65536",
        ),
        (
            &["--http-max-connections", "18446744073709551615"],
            "error: invalid value '18446744073709551615' for '--http-max-connections <N>': \
             18446744073709551615 is not in 1..=65536",
        ),
        (
            &["--http-max-connections=-1"],
            "error: invalid value '-1' for '--http-max-connections <N>': invalid digit found in string",
        ),
        (
            &["--http-session-idle", "1.5"],
            "error: invalid value '1.5' for '--http-session-idle <SECS>': invalid digit found in string",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(refusal(&http_argv(extra)), expected, "{extra:?}");
    }
}

#[test]
fn serve_help_shows_each_flag_with_its_variable_and_default() {
    let help = Cli::try_parse_from(["hanzo-mcp", "serve", "--help"])
        .expect_err("help is an early exit")
        .to_string();
    for (flag, env, default) in [
        (
            "--http-max-sessions <N>",
            "HANZO_MCP_HTTP_MAX_SESSIONS",
            "256",
        ),
        (
            "--http-session-idle <SECS>",
            "HANZO_MCP_HTTP_SESSION_IDLE",
            "1800",
        ),
        (
            "--http-header-timeout <SECS>",
            "HANZO_MCP_HTTP_HEADER_TIMEOUT",
            "10",
        ),
        (
            "--http-max-connections <N>",
            "HANZO_MCP_HTTP_MAX_CONNECTIONS",
            "512",
        ),
        (
            "--http-body-timeout <SECS>",
            "HANZO_MCP_HTTP_BODY_TIMEOUT",
            "30",
        ),
    ] {
        let at = help
            .find(flag)
            .unwrap_or_else(|| panic!("{flag} missing from:\n{help}"));
        // The flag's own entry runs up to the next flag.
        let entry = &help[at..];
        let entry = &entry[..entry[2..].find("\n  -").map_or(entry.len(), |end| end + 2)];
        assert!(entry.contains(&format!("[env: {env}=]")), "{flag}: {entry}");
        assert!(
            entry.contains(&format!("[default: {default}]")),
            "{flag}: {entry}"
        );
    }
}

/// `hanzo-mcp serve --http 127.0.0.1:0 --no-door` with `env`, logging at
/// info on stderr; stopped when dropped.
fn serve_http(env: &[(&str, &str)]) -> Proc {
    let root = std::env::temp_dir();
    let args = open_http_args(&root);
    let mut all = vec![("RUST_LOG", "info")];
    all.extend_from_slice(env);
    Proc::spawn_with_env(&args, &all)
}

/// The address from the "serving MCP over streamable HTTP" log line.
fn bound(server: &mut Proc) -> String {
    loop {
        let line = server.stderr_line();
        if let Some(rest) = line.split("bound=").nth(1) {
            return rest
                .split_whitespace()
                .next()
                .expect("an address")
                .to_owned();
        }
    }
}

/// A variable the parser refuses stops the binary: its message first on
/// stderr, exit status 2.
macro_rules! refused_variable {
    ($($name:ident: $variable:literal = $value:literal says $expected:literal;)*) => {$(
        #[test]
        fn $name() {
            let mut server = serve_http(&[($variable, $value)]);
            assert_eq!(server.stderr_line(), $expected);
            assert_eq!(server.wait().code(), Some(2));
        }
    )*};
}

refused_variable! {
    a_refused_variable_stops_the_binary_with_the_parser_message:
        "HANZO_MCP_HTTP_MAX_CONNECTIONS" = "0"
        says "error: invalid value '0' for '--http-max-connections <N>': 0 is not in 1..=65536";
    a_refused_body_timeout_variable_stops_the_binary_with_the_parser_message:
        "HANZO_MCP_HTTP_BODY_TIMEOUT" = "601"
        says "error: invalid value '601' for '--http-body-timeout <SECS>': 601 is not in 1..=600";
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cap_from_the_environment_reaches_the_server() {
    let mut server = serve_http(&[("HANZO_MCP_HTTP_MAX_SESSIONS", "1")]);
    let http = Http::new(&format!("http://{}/mcp", bound(&mut server)));
    let first = http.initialize(1, json!({})).await;
    assert_eq!(first.status(), reqwest::StatusCode::OK);
    assert!(first.headers().contains_key("mcp-session-id"));
    let second = http.initialize(2, json!({})).await;
    assert_eq!(second.status(), reqwest::StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        second.json::<serde_json::Value>().await.expect("JSON")["error"]["code"],
        json!(-32603)
    );
}

#[test]
fn completions_and_the_manual_page_cover_every_subcommand() {
    for (shell, marker) in [
        ("bash", "complete -F _hanzo__mcp"),
        ("zsh", "#compdef hanzo-mcp"),
        ("fish", "complete -c hanzo-mcp"),
    ] {
        let out = run(&["completions", shell], &[]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).expect("utf-8");
        assert!(script.contains(marker), "{shell}: {script}");
        for word in [
            "serve",
            "tools",
            "config",
            "door",
            "allowed-tools",
            "door-wait",
        ] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let out = run(&["man"], &[]);
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).expect("utf-8");
    assert!(page.contains("\n.TH hanzo-mcp 1 "), "{page}");
    for word in ["serve", "tools", "config", "completions", "door"] {
        assert!(page.contains(word), "the page lacks {word}");
    }
    // Every page, written into a folder and named.
    let folder = tempfile::tempdir().expect("folder");
    let man1 = folder.path().join("man1");
    let out = run(&["man", "--dir", man1.to_str().expect("utf-8")], &[]);
    assert!(out.status.success(), "{out:?}");
    let listed = String::from_utf8(out.stdout).expect("utf-8");
    for page in [
        "hanzo-mcp",
        "hanzo-mcp-serve",
        "hanzo-mcp-doctor",
        "hanzo-mcp-config-show",
    ] {
        let path = man1.join(format!("{page}.1"));
        assert!(
            listed
                .lines()
                .any(|line| line == path.to_str().expect("utf-8")),
            "{page} not named: {listed}"
        );
        let text = std::fs::read_to_string(&path).expect("the page");
        assert!(text.contains(&format!("\n.TH {page} 1 ")), "{page}: {text}");
    }
    // It names only pages that exist (no `help` subcommand page), and
    // every page carries the version.
    assert!(!page.contains("hanzo\\-mcp\\-help"), "{page}");
    let version = env!("CARGO_PKG_VERSION");
    let serve = std::fs::read_to_string(man1.join("hanzo-mcp-serve.1")).expect("serve's page");
    assert!(serve.contains(&format!("\"serve {version}\"")), "{serve}");
    assert!(serve.contains("allowed\\-tools"), "serve's flags: {serve}");
    let refused = run(&["completions", "tcsh"], &[]);
    assert_eq!(refused.status.code(), Some(2));
}

/// The bash script completes a subcommand's own flags and values, not
/// only the subcommands (the program's name has a `-`, which
/// clap_complete spells two ways).
#[test]
fn bash_completes_after_the_subcommand() {
    let out = run(&["completions", "bash"], &[]);
    assert!(out.status.success());
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("hanzo-mcp.bash");
    std::fs::write(&script, &out.stdout).expect("write the script");
    let complete = |words: &[&str]| -> String {
        let line = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _hanzo__mcp hanzo-mcp '{}' '{}'; \
             echo \"${{COMPREPLY[*]}}\"",
            script.display(),
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &line])
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let install = complete(&["hanzo-mcp", "install", "--"]);
    assert!(install.contains("--client"), "{install}");
    assert_eq!(
        complete(&["hanzo-mcp", "serve", "--all"]),
        "--allowed-tools"
    );
    let config = complete(&["hanzo-mcp", "config", ""]);
    assert!(config.contains("show"), "{config}");
}

/// Subcommands build their flags only when they run: built all at once,
/// the command line still passes clap's own consistency checks (no flag
/// named twice, the global `--config` included), and each subcommand's
/// help opens with its own description, not another's.
#[test]
fn every_deferred_subcommand_builds_and_describes_itself() {
    use clap::CommandFactory;
    let mut command = Cli::command();
    command.build();
    command.clone().debug_assert();
    let flags = |name: &str| -> Vec<String> {
        let sub = command.find_subcommand(name).expect(name);
        sub.get_arguments()
            .filter_map(|a| a.get_long().map(str::to_owned))
            .collect()
    };
    assert!(flags("serve").contains(&"allowed-tools".to_owned()));
    assert!(flags("serve").contains(&"config".to_owned()));
    assert!(flags("tools").contains(&"capabilities".to_owned()));
    assert!(flags("install").contains(&"client".to_owned()));
    assert!(flags("uninstall").contains(&"client".to_owned()));
    for (argv, first) in [
        (&["serve", "--help"][..], "Serve MCP over stdin/stdout"),
        (&["tools", "--help"], "Print the assembled tool list"),
        (&["install", "--help"], "Add the `hanzo` server entry"),
        (&["uninstall", "--help"], "Remove the `hanzo` entry"),
        (&["doctor", "--help"], "Check what a start with these flags"),
        (&["config", "show", "--help"], "Print every setting `serve`"),
        (&["door", "--help"], "Serve a HIP-0300 door"),
    ] {
        let out = run(argv, &[]);
        assert!(out.status.success(), "{argv:?}");
        let help = String::from_utf8(out.stdout).expect("utf-8");
        assert!(help.starts_with(first), "{argv:?}: {help}");
    }
}
