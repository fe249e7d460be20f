//! The tool-name rule (MCP 2025-11-25 server/tools "Tool Names"): 1 to 128
//! characters, each one of `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`.

/// The longest allowed tool name, in characters.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Which part of the tool-name rule a name breaks. `Display` names the tool
/// and the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolNameError {
    /// The name is the empty string.
    #[error("tool name is empty; it must have 1 to 128 characters")]
    Empty,
    /// The name has more than [`MAX_TOOL_NAME_LEN`] characters.
    #[error("tool name {name:?} has {len} characters; at most 128 are allowed")]
    TooLong {
        /// The name, cut to its first 128 characters.
        name: String,
        /// Its length in characters.
        len: usize,
    },
    /// The name has a character outside `A-Z a-z 0-9 _ - .`.
    #[error(
        "tool name {name:?} has {ch:?} at character {index}; only A-Z, a-z, 0-9, '_', '-' and '.' are allowed"
    )]
    InvalidChar {
        /// The name.
        name: String,
        /// The first offending character.
        ch: char,
        /// Its position, in characters from 0.
        index: usize,
    },
}

/// Checks `name` against the MCP tool-name rule.
///
/// # Errors
/// The first rule broken, in the order: empty, too long, bad character.
///
/// ```
/// use mcp_proto::{validate_tool_name, ToolNameError};
///
/// assert!(validate_tool_name("git.status_v2-beta").is_ok());
/// let err = validate_tool_name("read file").unwrap_err();
/// assert!(matches!(err, ToolNameError::InvalidChar { ch: ' ', index: 4, .. }));
/// ```
pub fn validate_tool_name(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    let len = name.chars().count();
    if len > MAX_TOOL_NAME_LEN {
        return Err(ToolNameError::TooLong {
            name: name.chars().take(MAX_TOOL_NAME_LEN).collect(),
            len,
        });
    }
    match name
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some((index, ch)) => Err(ToolNameError::InvalidChar {
            name: name.to_owned(),
            ch,
            index,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_edges() {
        assert_eq!(validate_tool_name("a"), Ok(()));
        assert_eq!(validate_tool_name(&"x".repeat(128)), Ok(()));
        assert_eq!(validate_tool_name("A-Z_a-z.0-9"), Ok(()));
    }

    #[test]
    fn names_the_broken_rule() {
        assert_eq!(validate_tool_name(""), Err(ToolNameError::Empty));
        let long = "x".repeat(129);
        assert_eq!(
            validate_tool_name(&long).unwrap_err().to_string(),
            format!(
                "tool name {:?} has 129 characters; at most 128 are allowed",
                "x".repeat(128)
            )
        );
        assert_eq!(
            validate_tool_name("fs:read").unwrap_err().to_string(),
            "tool name \"fs:read\" has ':' at character 2; only A-Z, a-z, 0-9, '_', '-' and '.' are allowed"
        );
        assert_eq!(
            validate_tool_name("café"),
            Err(ToolNameError::InvalidChar {
                name: "café".into(),
                ch: 'é',
                index: 3
            })
        );
    }
}
