//! `initialize` (MCP 2025-11-25 basic/lifecycle) and `server/discover`
//! (MCP 2026-07-28 basic/versioning), answered with mcp-proto's typed
//! results.

use mcp_proto::{CacheScope, DiscoverResult, ErrorObject, InitializeResult, Meta, Revision, meta};
use serde_json::{Value, json};

use super::Session;
use super::router::LIST_TTL_MS;
use crate::lifecycle::{Lifecycle, Negotiated};

impl Session {
    /// Answers `initialize`: the negotiated revision, our capabilities and
    /// `serverInfo`. -32601 for a request that names a stateless revision
    /// (2026-07-28 has no `initialize`), -32602 for a missing or non-string
    /// `protocolVersion` or a malformed client declaration, -32600 for a
    /// second `initialize`.
    pub(super) fn initialize(
        &mut self,
        params: Option<&Value>,
    ) -> Result<InitializeResult, ErrorObject> {
        let stateless = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(Revision::parse)
            .is_some_and(Revision::is_stateless);
        if stateless {
            return Err(ErrorObject::method_not_found(
                mcp_proto::methods::Initialize::NAME,
            ));
        }
        let requested = match params.and_then(|p| p.get("protocolVersion")) {
            Some(Value::String(v)) => v.clone(),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "initialize: protocolVersion must be a string",
                ));
            }
            None => {
                return Err(ErrorObject::invalid_params(
                    "initialize: params.protocolVersion is required",
                ));
            }
        };
        check_client_declaration(params)?;
        let revision = self.lifecycle.initialize(&requested)?;
        self.peer.set_capabilities(
            params
                .and_then(|p| p.get("capabilities"))
                .cloned()
                .unwrap_or_else(|| json!({})),
        );
        tracing::debug!(
            requested,
            negotiated = revision.as_str(),
            "initialize answered"
        );
        let config = self.server.config();
        Ok(InitializeResult {
            protocol_version: revision.as_str().to_owned(),
            capabilities: self.server.capabilities(Negotiated::Handshake(revision)),
            server_info: config.info.clone(),
            instructions: config.instructions.clone(),
            ..InitializeResult::default()
        })
    }

    /// Answers `server/discover`: the revisions served statelessly, our
    /// capabilities and, in `_meta`, `serverInfo`; cacheable for a minute.
    pub(super) fn discover(&self, era: Negotiated) -> DiscoverResult {
        let config = self.server.config();
        let mut server_meta = Meta::new();
        server_meta.insert(meta::SERVER_INFO.to_owned(), json!(config.info));
        DiscoverResult {
            supported_versions: Lifecycle::stateless_revisions()
                .iter()
                .map(|r| r.as_str().to_owned())
                .collect(),
            capabilities: self.server.capabilities(era),
            instructions: config.instructions.clone(),
            ttl_ms: Some(LIST_TTL_MS),
            cache_scope: Some(CacheScope::Private),
            meta: Some(server_meta),
            ..DiscoverResult::default()
        }
    }
}

/// Refuses an `initialize` whose `capabilities` is no object or whose
/// `clientInfo` is no `Implementation` (an object with string `name` and
/// `version`; MCP 2025-11-25 basic/lifecycle): -32602 naming the field.
/// Absent fields are tolerated.
fn check_client_declaration(params: Option<&Value>) -> Result<(), ErrorObject> {
    let field = |name: &str| params.and_then(|p| p.get(name));
    if let Some(capabilities) = field("capabilities")
        && !capabilities.is_object()
    {
        return Err(ErrorObject::invalid_params(format!(
            "initialize: capabilities must be an object, found {capabilities}"
        )));
    }
    if let Some(info) = field("clientInfo") {
        let text = |key: &str| info.get(key).is_some_and(Value::is_string);
        if !(info.is_object() && text("name") && text("version")) {
            return Err(ErrorObject::invalid_params(format!(
                "initialize: clientInfo must be an object with string name and version \
                 (Implementation), found {info}"
            )));
        }
    }
    Ok(())
}
