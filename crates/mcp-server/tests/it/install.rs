//! `hanzo-mcp install` and `uninstall` through the binary, for each client
//! on a temporary home and project: the file created, merged into an
//! existing one with its other servers and comments kept, idempotent,
//! backed up, and `uninstall` leaving the file as it was.

use std::path::{Path, PathBuf};

use crate::common::hanzo_mcp;

/// A temporary home and project folder.
struct Place {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        Place {
            home: tempfile::tempdir().expect("home"),
            project: tempfile::tempdir().expect("project"),
        }
    }

    /// Runs `hanzo-mcp <args>` here; exit code and stdout. Nothing is
    /// written to stderr.
    fn run(&self, args: &[&str]) -> (i32, String) {
        let (code, out, err) = self.run_with_stderr(args);
        assert!(err.is_empty(), "{err}");
        (code, out)
    }

    /// As [`Place::run`], with what was written to stderr.
    fn run_with_stderr(&self, args: &[&str]) -> (i32, String, String) {
        let out = hanzo_mcp()
            .args(args)
            .current_dir(self.project.path())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("CODEX_HOME", self.home.path().join(".codex"))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).expect("utf-8"),
            String::from_utf8(out.stderr).expect("utf-8"),
        )
    }
}

/// The binary's absolute path, as the entry names it.
fn binary() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_hanzo-mcp"))
        .expect("binary")
        .display()
        .to_string()
}

/// Each client, its scope, its file under the place, and a file it might
/// already have (another server and a comment where the format has them).
fn clients(place: &Place) -> Vec<(&'static str, &'static str, PathBuf, &'static str)> {
    let home = place.home.path();
    let project = place.project.path();
    vec![
        (
            "claude-code",
            "user",
            home.join(".claude.json"),
            "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": { \"command\": \"other-server\" }\n  }\n}\n",
        ),
        (
            "claude-code",
            "project",
            project.join(".mcp.json"),
            "{\n  \"mcpServers\": {\n    \"kb\": {\"type\": \"http\", \"url\": \"https://kb.example/mcp\"}\n  }\n}\n",
        ),
        (
            "claude-desktop",
            "user",
            home.join(".config/Claude/claude_desktop_config.json"),
            "{\"mcpServers\":{\"other\":{\"command\":\"x\",\"args\":[]}},\"theme\":\"dark\"}\n",
        ),
        (
            "cursor",
            "user",
            home.join(".cursor/mcp.json"),
            "{\n\t// my servers\n\t\"mcpServers\": {\n\t\t\"github\": {\"command\": \"gh-mcp\"}\n\t}\n}\n",
        ),
        (
            "codex",
            "user",
            home.join(".codex/config.toml"),
            "# my Codex settings\nmodel = \"o4\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = []  # none\n",
        ),
        (
            "vscode",
            "project",
            project.join(".vscode/mcp.json"),
            "{\n  // shared with the team\n  \"servers\": {\n    \"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"}\n  }\n}\n",
        ),
    ]
}

/// `text`, the content of a file like `file`, as JSON (TOML converted).
fn parsed(file: &Path, text: &str) -> serde_json::Value {
    if file.extension().is_some_and(|e| e == "toml") {
        let doc: toml::Table = toml::from_str(text).expect("TOML");
        return serde_json::to_value(doc).expect("to JSON");
    }
    jsonc_parser::parse_to_serde_value(text, &Default::default())
        .expect("JSON")
        .expect("a value")
}

/// The `hanzo` entry of `file` as JSON (TOML converted).
fn entry(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).expect("the file");
    let json = parsed(file, &text);
    let key = if file.extension().is_some_and(|e| e == "toml") {
        "mcp_servers"
    } else if file.ends_with(".vscode/mcp.json") {
        "servers"
    } else {
        "mcpServers"
    };
    json[key]["hanzo"].clone()
}

#[test]
fn each_client_is_created_merged_idempotent_backed_up_and_uninstalled_exactly() {
    let place = Place::new();
    for (client, scope, file, existing) in clients(&place) {
        let args = ["--client", client, "--scope", scope];
        let install: Vec<&str> = ["install"].iter().chain(args.iter()).copied().collect();
        let uninstall: Vec<&str> = ["uninstall"].iter().chain(args.iter()).copied().collect();
        let mut expected = serde_json::json!({"command": binary(), "args": ["serve"]});
        if client == "vscode" {
            expected["type"] = "stdio".into();
        }

        // No file: created, then removed.
        let (code, out) = place.run(&install);
        assert_eq!(code, 0, "{client}");
        assert_eq!(
            out,
            format!("installed `hanzo` in {} (a new file)\n", file.display())
        );
        assert_eq!(entry(&file), expected, "{client}");
        let (code, out) = place.run(&uninstall);
        assert_eq!(code, 0, "{client}");
        assert_eq!(
            out,
            format!(
                "removed `hanzo` and {}, which install had created\n",
                file.display()
            )
        );
        assert!(
            !file.exists(),
            "{client}: a file install created is removed"
        );
        // And the folder it made for it, but never the home or project
        // folder the file sits in.
        let folder = file.parent().expect("parent");
        let base = folder == place.home.path() || folder == place.project.path();
        assert_eq!(folder.exists(), base, "{client}: {}", folder.display());

        // An existing file: merged, kept, backed up.
        std::fs::create_dir_all(file.parent().expect("parent")).expect("folder");
        std::fs::write(&file, existing).expect("write");
        let (code, out) = place.run(&install);
        assert_eq!(code, 0, "{client}");
        let backup = PathBuf::from(format!("{}.hanzo-mcp.bak", file.display()));
        assert_eq!(
            out,
            format!(
                "installed `hanzo` in {} (the previous file is {})\n",
                file.display(),
                backup.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&backup).expect("backup"), existing);
        assert_eq!(entry(&file), expected, "{client}");
        let installed = std::fs::read_to_string(&file).expect("file");
        // Everything else is kept: each value, and each comment.
        let mut before = parsed(&file, existing);
        let mut after = parsed(&file, &installed);
        let servers = if client == "codex" {
            "mcp_servers"
        } else if client == "vscode" {
            "servers"
        } else {
            "mcpServers"
        };
        after[servers]
            .as_object_mut()
            .expect("servers")
            .remove("hanzo");
        before[servers].as_object_mut().expect("servers");
        assert_eq!(after, before, "{client}");
        for comment in existing
            .lines()
            .filter_map(|l| l.find("//").or_else(|| l.find('#')).map(|at| &l[at..]))
        {
            assert!(
                installed.contains(comment),
                "{client}: lost {comment:?} in\n{installed}"
            );
        }

        // Idempotent.
        let (code, out) = place.run(&install);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!(
                "`hanzo` is installed in {} already; nothing changed\n",
                file.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&file).expect("file"), installed);

        // --print shows it without writing.
        let printed: Vec<&str> = install.iter().copied().chain(["--print"]).collect();
        let (code, out, err) = place.run_with_stderr(&printed);
        assert_eq!(code, 0);
        assert_eq!(out, installed);
        assert_eq!(
            err,
            format!("hanzo-mcp: {} as install would write it:\n", file.display())
        );

        // Uninstall: the file as it was.
        let (code, _) = place.run(&uninstall);
        assert_eq!(code, 0);
        assert_eq!(
            std::fs::read_to_string(&file).expect("file"),
            existing,
            "{client}"
        );
        let (code, out) = place.run(&uninstall);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!("{} has no `hanzo` entry; nothing changed\n", file.display())
        );
    }
}

/// `install --config FILE` names the file in the entry by its absolute
/// path (a client's server reads no config file it is not named), in
/// JSON and TOML alike; installing again is a no-op, and `uninstall`
/// with the same flag gives the file back as it was.
#[test]
fn install_with_a_config_file_names_it_in_the_entry() {
    let place = Place::new();
    let config = place.project.path().join("hanzo.toml");
    std::fs::write(&config, "log_level = \"warn\"\n").expect("config");
    let config = std::fs::canonicalize(&config).expect("canonical");
    let expected = serde_json::json!(["serve", "--config", config.display().to_string()]);
    for (client, file) in [
        ("cursor", place.home.path().join(".cursor/mcp.json")),
        ("codex", place.home.path().join(".codex/config.toml")),
    ] {
        let (code, _) = place.run(&["install", "--client", client, "--config", "hanzo.toml"]);
        assert_eq!(code, 0, "{client}");
        assert_eq!(entry(&file)["args"], expected, "{client}");
        assert_eq!(entry(&file)["command"], binary(), "{client}");
        let written = std::fs::read_to_string(&file).expect("file");
        let (code, out) = place.run(&["install", "--client", client, "--config", "hanzo.toml"]);
        assert_eq!(code, 0, "{client}");
        assert!(out.contains("already"), "{client}: {out}");
        assert_eq!(std::fs::read_to_string(&file).expect("file"), written);
        let (code, _) = place.run(&["uninstall", "--client", client, "--config", "hanzo.toml"]);
        assert_eq!(code, 0, "{client}");
        assert!(
            !file.exists(),
            "{client}: created by install, gone after uninstall"
        );
    }
}

#[test]
fn uninstall_after_other_changes_removes_only_the_entry() {
    let place = Place::new();
    let file = place.home.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("folder");
    std::fs::write(
        &file,
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n  }\n}\n",
    )
    .expect("write");
    let (code, _) = place.run(&["install", "--client", "cursor"]);
    assert_eq!(code, 0);
    let installed = std::fs::read_to_string(&file).expect("file");
    let edited = installed.replace(
        "\"a\": {\"command\": \"a\"}",
        "\"a\": {\"command\": \"a2\"}",
    );
    assert_ne!(edited, installed);
    std::fs::write(&file, &edited).expect("edit");
    let (code, _) = place.run(&["uninstall", "--client", "cursor"]);
    assert_eq!(code, 0);
    let after = std::fs::read_to_string(&file).expect("file");
    assert!(after.contains("\"a\": {\"command\": \"a2\"}"), "{after}");
    assert!(!after.contains("hanzo"), "{after}");
}

#[test]
fn a_scope_a_client_lacks_and_a_file_that_does_not_parse_are_refused() {
    let place = Place::new();
    let out = hanzo_mcp()
        .args(["install", "--client", "codex", "--scope", "project"])
        .env("HOME", place.home.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hanzo-mcp: this client has no project configuration: use --scope user\n"
    );
    let file = place.home.path().join(".claude.json");
    std::fs::write(&file, "{ not json").expect("write");
    let out = hanzo_mcp()
        .args(["install", "--client", "claude-code"])
        .env("HOME", place.home.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("hanzo-mcp: {}: not JSON: ", file.display())),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "{ not json");
}

#[test]
fn a_config_file_the_server_would_refuse_is_not_installed() {
    let place = Place::new();
    let config = place.project.path().join("bad.toml");
    std::fs::write(&config, "[door]\nwiat = 2\n").expect("write");
    let (code, out, err) =
        place.run_with_stderr(&["install", "--client", "codex", "--config", "bad.toml"]);
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert!(
        err.contains("key door.wiat (line 2): unknown field")
            && err.ends_with("fix it first: the client's server would stop at every start\n"),
        "{err}"
    );
    assert!(
        !place.home.path().join(".codex").exists(),
        "nothing written"
    );
}
