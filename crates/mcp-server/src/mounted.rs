//! Other MCP servers mounted as sources (docs/ARCHITECTURE.md, "Mounted
//! servers"): how `--server` and `[[servers]]` name them. The source
//! itself is [`mcp_sources::mounted::MountedSource`].

/// One mounted server as configured (`--server`, `[[servers]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Its name and how to reach it.
    pub spec: mcp_mount::MountSpec,
    /// The argument its `"<tool>:<value>"` allowlist entries name
    /// (`action` unless configured).
    pub discriminator: String,
    /// Warnings to give once logging is up (a `bearer_env` not set).
    pub notes: Vec<String>,
    /// The variables its entry names as secrets (its `bearer_env`): they
    /// are removed from every child's environment, as `--secret-env`
    /// names are.
    pub secret_env: Vec<String>,
}

impl Mount {
    /// `name (command args...)` or `name (url, bearer from VAR)`, for
    /// `config show`; never a bearer's value.
    pub fn describe(&self) -> String {
        let name = &self.spec.name;
        match &self.spec.transport {
            mcp_mount::Transport::Stdio(stdio) => {
                let mut line = stdio.command.clone();
                for arg in &stdio.args {
                    line.push(' ');
                    line.push_str(arg);
                }
                format!("{name} ({line})")
            }
            mcp_mount::Transport::Http(http) => {
                let bearer = if http.bearer.is_some() {
                    ", with a bearer"
                } else {
                    ""
                };
                format!("{name} ({}{bearer})", http.url)
            }
        }
    }
}

/// The names no mounted server may take: the sources `hanzo-mcp` has
/// itself.
const TAKEN: [&str; 2] = ["local", "door"];

/// The name and the command or URL of a `--server NAME=…` value, each
/// trimmed; `None` without a `=`. The name is not checked
/// ([`parse_server_flag`] does).
pub fn split_server_flag(text: &str) -> Option<(&str, &str)> {
    text.split_once('=')
        .map(|(name, target)| (name.trim(), target.trim()))
}

/// Reads `--server NAME=COMMAND [ARG...]` (the command line split as a
/// POSIX shell would, without running one) or `--server NAME=URL`
/// (`http://` or `https://`: streamable HTTP).
///
/// # Errors
/// A sentence naming what is wrong: no `=`, a bad name, an empty command.
pub fn parse_server_flag(text: &str) -> Result<Mount, String> {
    let Some((name, target)) = split_server_flag(text) else {
        return Err(format!(
            "{text:?} is not NAME=COMMAND or NAME=URL (for example kb=\"npx -y @acme/kb-mcp\")"
        ));
    };
    check_name(name)?;
    let transport = if target.starts_with("http://") || target.starts_with("https://") {
        mcp_mount::Transport::Http(mcp_mount::HttpServer {
            url: target.to_owned(),
            ..mcp_mount::HttpServer::default()
        })
    } else {
        let words = shlex::split(target).ok_or_else(|| {
            format!("server {name:?}: the command {target:?} has an unclosed quote")
        })?;
        let Some((command, args)) = words.split_first() else {
            return Err(format!("server {name:?}: the command is empty"));
        };
        mcp_mount::Transport::Stdio(mcp_mount::StdioServer {
            command: command.clone(),
            args: args.to_vec(),
            ..mcp_mount::StdioServer::default()
        })
    };
    Ok(Mount {
        spec: mcp_mount::MountSpec {
            name: name.to_owned(),
            transport,
        },
        discriminator: "action".to_owned(),
        notes: Vec::new(),
        secret_env: Vec::new(),
    })
}

/// Checks a mounted server's name: [`mcp_mount::validate_name`], and not
/// `local` or `door`.
///
/// # Errors
/// A sentence naming the fault.
pub fn check_name(name: &str) -> Result<(), String> {
    mcp_mount::validate_name(name)?;
    if TAKEN.iter().any(|taken| taken.eq_ignore_ascii_case(name)) {
        return Err(format!(
            "the server name {name:?} is hanzo-mcp's own source; choose another"
        ));
    }
    Ok(())
}

/// Checks that no two of `mounts` share a name.
///
/// # Errors
/// `two servers are named "kb"`.
pub fn check_distinct(mounts: &[Mount]) -> Result<(), String> {
    for (at, mount) in mounts.iter().enumerate() {
        if mounts[..at].iter().any(|m| m.spec.name == mount.spec.name) {
            return Err(format!("two servers are named {:?}", mount.spec.name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_flag_is_a_command_or_an_address() {
        let mount = parse_server_flag(r#"kb=npx -y "@acme/kb mcp" --flag"#).unwrap();
        assert_eq!(mount.spec.name, "kb");
        match mount.spec.transport {
            mcp_mount::Transport::Stdio(stdio) => {
                assert_eq!(stdio.command, "npx");
                assert_eq!(stdio.args, ["-y", "@acme/kb mcp", "--flag"]);
            }
            other => panic!("not stdio: {other:?}"),
        }
        let mount = parse_server_flag("gh=https://example.com/mcp").unwrap();
        assert!(
            matches!(mount.spec.transport, mcp_mount::Transport::Http(h) if h.url == "https://example.com/mcp")
        );
        assert!(
            parse_server_flag("kb")
                .unwrap_err()
                .contains("NAME=COMMAND")
        );
        assert!(
            parse_server_flag("door=x")
                .unwrap_err()
                .contains("hanzo-mcp's own")
        );
        assert!(parse_server_flag("a b=x").unwrap_err().contains("' '"));
        assert!(parse_server_flag("kb=").unwrap_err().contains("empty"));
        assert!(parse_server_flag("kb=\"x").unwrap_err().contains("quote"));
    }
}
