//! The `_meta` keys revision 2026-07-28 requires of every request
//! (protocol version, client capabilities, client info): added to a params
//! map where they are missing, or spliced into a caller's `tools/call`
//! params text without changing anything else of it.

use std::borrow::Cow;

use mcp_proto::meta;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::Transport;
use crate::config::DOOR_REVISION;
use crate::raw::{Edit, Object, Parsed, lossy_string, offset_in, splice};

/// A caller's `tools/call` params (a JSON object text), read for what the
/// request needs without decoding the rest: the tool name, the arguments
/// (for `Mcp-Param-*` headers), and how to add the required `_meta`.
pub(crate) struct CallParams<'a> {
    /// The params exactly as the caller wrote them.
    text: &'a str,
    /// `name` when it is a string (lossy only for a lone surrogate escape).
    pub(crate) name: Option<String>,
    /// The `arguments` member, as written.
    pub(super) arguments: Option<&'a RawValue>,
    /// The edit that adds the missing required `_meta` keys, if any.
    add_meta: Option<Edit>,
    /// Where the value of the caller's own `_meta` protocol version is.
    version_at: Option<(usize, usize)>,
}

impl<'a> CallParams<'a> {
    /// The params text sent to the door and the revision it states: the
    /// caller's text with [`CallParams::add_meta`] applied, and with
    /// `force_revision` the protocol version's value replaced by
    /// `"2026-07-28"` ([`DOOR_REVISION`]). `None` only if an edit does not
    /// fit the text, which reading it rules out.
    pub(super) fn body_params(&self, force_revision: bool) -> Option<(Cow<'a, str>, String)> {
        let mut edits: Vec<Edit> = self.add_meta.iter().cloned().collect();
        let mut revision = DOOR_REVISION.to_owned();
        if let Some((start, end)) = self.version_at {
            let written = self.text.get(start..end)?;
            let door = format!("\"{DOOR_REVISION}\"");
            if force_revision && written != door {
                edits.push(Edit {
                    start,
                    end,
                    text: door,
                });
            } else if !force_revision {
                revision = serde_json::from_str::<String>(written)
                    .unwrap_or_else(|_| DOOR_REVISION.to_owned());
            }
        }
        Some((splice(self.text, &edits)?, revision))
    }
}

impl Transport {
    /// The `_meta` members revision 2026-07-28 requires, as JSON text
    /// (`"name":value` pairs joined by `,`), in the order
    /// [`Transport::add_required_meta`] adds them, but only those `has`
    /// says are missing.
    fn required_meta_members(&self, has: impl Fn(&str) -> bool) -> String {
        let info = json!({"name": self.client_info.name, "version": self.client_info.version});
        let members = [
            (meta::PROTOCOL_VERSION, json!(DOOR_REVISION)),
            (meta::CLIENT_CAPABILITIES, json!({})),
            (meta::CLIENT_INFO, info),
        ];
        members
            .iter()
            .filter(|(name, _)| !has(name))
            .map(|(name, value)| format!("{}:{value}", json!(name)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Reads a caller's `tools/call` params for forwarding (HIP-0300 §2.2):
    /// `name`, `arguments`, and the text edit that adds the `_meta` keys
    /// revision 2026-07-28 requires where they are missing — members
    /// appended to the caller's `_meta` object (after its last member), a
    /// `_meta` member appended to the params when there is none, or, when
    /// `_meta` is not an object, that value replaced by an object of the
    /// three (as [`Transport::add_required_meta`] does). With repeated
    /// names, the last one counts. Nothing else of the text changes.
    ///
    /// `None` when `params` is not a JSON object.
    pub(crate) fn read_call<'a>(&self, params: &'a RawValue) -> Option<CallParams<'a>> {
        let text = params.get();
        let Ok(Parsed::Object(object)) = Object::parse(text) else {
            return None;
        };
        let span = |value: &RawValue| {
            offset_in(text, value).map(|start| (start, start + value.get().len()))
        };
        // Where a member goes at the end of an object text starting at
        // `start`: after its last value, or just after its `{`.
        let append_at = |start: usize, members: &Object<'_>, member: String| {
            Some(match members.last_value() {
                Some(last) => (span(last)?.1, format!(",{member}")),
                None => (start + 1, member),
            })
        };
        let mut version_at = None;
        let add_meta = match object.get("_meta") {
            None => {
                let member = format!("\"_meta\":{{{}}}", self.required_meta_members(|_| false));
                let (at, text) = append_at(0, &object, member)?;
                Some(Edit {
                    start: at,
                    end: at,
                    text,
                })
            }
            Some(meta_value) => {
                let (start, end) = span(meta_value)?;
                match Object::parse(meta_value.get()) {
                    Ok(Parsed::Object(meta_members)) => {
                        if let Some(version) = meta_members.get(meta::PROTOCOL_VERSION) {
                            version_at = Some(span(version)?);
                        }
                        let missing = self.required_meta_members(|name| meta_members.has(name));
                        if missing.is_empty() {
                            None
                        } else {
                            let (at, text) = append_at(start, &meta_members, missing)?;
                            Some(Edit {
                                start: at,
                                end: at,
                                text,
                            })
                        }
                    }
                    _ => Some(Edit {
                        start,
                        end,
                        text: format!("{{{}}}", self.required_meta_members(|_| false)),
                    }),
                }
            }
        };
        Some(CallParams {
            text,
            name: object.get("name").and_then(lossy_string),
            arguments: object.get("arguments"),
            add_meta,
            version_at,
        })
    }

    /// Adds the `_meta` keys revision 2026-07-28 requires to `params`, where
    /// they are missing; returns the revision the body now states.
    pub(crate) fn add_required_meta(&self, params: &mut Map<String, Value>) -> String {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        let Value::Object(meta) = meta else {
            return DOOR_REVISION.to_owned();
        };
        meta.entry(meta::PROTOCOL_VERSION)
            .or_insert_with(|| json!(DOOR_REVISION));
        meta.entry(meta::CLIENT_CAPABILITIES)
            .or_insert_with(|| json!({}));
        meta.entry(meta::CLIENT_INFO).or_insert_with(
            || json!({"name": self.client_info.name, "version": self.client_info.version}),
        );
        meta.get(meta::PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .unwrap_or(DOOR_REVISION)
            .to_owned()
    }
}
