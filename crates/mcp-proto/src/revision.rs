//! MCP protocol revisions and negotiation (MCP 2025-11-25 basic/lifecycle
//! "Version Negotiation", MCP 2026-07-28 basic/versioning).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::decode::{DecodeError, FromValue};

/// A revision of the MCP specification, named by its date.
///
/// Revisions up to 2025-11-25 open a session with the `initialize`
/// handshake; 2026-07-28 is stateless (each request carries its revision
/// and capabilities in `_meta`, and `server/discover` replaces the
/// handshake).
///
/// ```
/// use mcp_proto::Revision;
///
/// assert_eq!(Revision::parse("2025-06-18"), Some(Revision::V2025_06_18));
/// assert!(Revision::V2025_11_25.has_handshake());
/// assert!(Revision::V2026_07_28.is_stateless());
/// // The handshake echoes a supported revision, else answers our newest one with a handshake.
/// assert_eq!(Revision::negotiate("2025-03-26"), Revision::V2025_03_26);
/// assert_eq!(Revision::negotiate("1900-01-01"), Revision::V2025_11_25);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05, the first published revision.
    #[serde(rename = "2024-11-05")]
    V2024_11_05,
    /// 2025-03-26 (streamable HTTP, tool annotations).
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    /// 2025-06-18 (structured tool output; JSON-RPC batching removed).
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    /// 2025-11-25 (icons, tasks, URL elicitation); the last with `initialize`.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// 2026-07-28, stateless: `server/discover`, per-request `_meta`,
    /// `resultType`, error -32022.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl Revision {
    /// Every known revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];

    /// The newest known revision.
    pub const LATEST: Revision = Self::V2026_07_28;

    /// The newest revision that has the `initialize` handshake.
    pub const LATEST_WITH_HANDSHAKE: Revision = Self::V2025_11_25;

    /// The revision's name, such as `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named `s` exactly, or `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Revision> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether a session of this revision opens with `initialize`
    /// (2024-11-05 to 2025-11-25).
    pub const fn has_handshake(self) -> bool {
        !self.is_stateless()
    }

    /// Whether this revision is stateless (2026-07-28): no handshake, the
    /// revision and client capabilities travel in each request's `_meta`.
    pub const fn is_stateless(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }

    /// The revision a server answers an `initialize` request asking for
    /// `requested` with (MCP 2025-11-25 basic/lifecycle): the same revision
    /// when it is known and has the handshake, else
    /// [`Revision::LATEST_WITH_HANDSHAKE`]. A stateless revision cannot be
    /// negotiated by `initialize`, so asking for it also gets the latter.
    pub fn negotiate(requested: &str) -> Revision {
        match Self::parse(requested) {
            Some(r) if r.has_handshake() => r,
            _ => Self::LATEST_WITH_HANDSHAKE,
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromValue for Revision {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value.as_str().and_then(Self::parse) {
            Some(r) => Ok(r),
            None => Err(DecodeError::invalid(
                "a known revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28)",
                &value,
            )),
        }
    }
}

crate::decode::wire_deserialize!(Revision);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Revision::ALL {
            assert_eq!(Revision::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), Value::from(r.as_str()));
        }
        assert_eq!(Revision::parse("2025-11-26"), None);
    }

    #[test]
    fn handshake_split() {
        let with: Vec<_> = Revision::ALL
            .into_iter()
            .filter(|r| r.has_handshake())
            .collect();
        assert_eq!(
            with,
            [
                Revision::V2024_11_05,
                Revision::V2025_03_26,
                Revision::V2025_06_18,
                Revision::V2025_11_25
            ]
        );
        assert!(Revision::LATEST.is_stateless());
    }

    #[test]
    fn negotiate_echoes_or_falls_back() {
        assert_eq!(Revision::negotiate("2024-11-05"), Revision::V2024_11_05);
        assert_eq!(Revision::negotiate("2026-07-28"), Revision::V2025_11_25);
        assert_eq!(Revision::negotiate(""), Revision::V2025_11_25);
    }
}
