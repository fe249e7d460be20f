//! MCP protocol revisions and negotiation (MCP 2025-11-25 basic/lifecycle
//! "Version Negotiation", MCP 2026-07-28 basic/versioning).

use std::fmt;

use crate::decode::wire_enum;

wire_enum! {
    /// A revision of the MCP specification, named by its date.
    ///
    /// Revisions up to 2025-11-25 open a session with the `initialize`
    /// handshake; 2026-07-28 is stateless (each request carries its revision
    /// and capabilities in `_meta`, and `server/discover` replaces the
    /// handshake). [`Revision::ALL`] holds them oldest first.
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
    #[derive(PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum Revision {
        /// 2024-11-05, the first published revision.
        V2024_11_05 as "2024-11-05",
        /// 2025-03-26 (streamable HTTP, tool annotations).
        V2025_03_26 as "2025-03-26",
        /// 2025-06-18 (structured tool output; JSON-RPC batching removed).
        V2025_06_18 as "2025-06-18",
        /// 2025-11-25 (icons, tasks, URL elicitation); the last with `initialize`.
        V2025_11_25 as "2025-11-25",
        /// 2026-07-28, stateless: `server/discover`, per-request `_meta`,
        /// `resultType`, error -32022.
        V2026_07_28 as "2026-07-28",
    }
    expecting "a known revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28)"
}

impl Revision {
    /// The newest known revision.
    pub const LATEST: Revision = Self::V2026_07_28;

    /// The newest revision that has the `initialize` handshake.
    pub const LATEST_WITH_HANDSHAKE: Revision = Self::V2025_11_25;

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

#[cfg(test)]
mod tests {
    use serde_json::Value;

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
