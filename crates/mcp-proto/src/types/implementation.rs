use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};

/// Name and version of an MCP client or server (MCP 2025-11-25 basic
/// `Implementation`; `title` since 2025-06-18, `icons`, `websiteUrl` and
/// `description` since 2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name, such as `hanzo-mcp`.
    pub name: String,
    /// Version string, such as `0.1.0`.
    pub version: String,
    /// Human-readable name for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What this implementation does, in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Home page URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Implementation {
    /// An implementation with `name` and `version` only.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}

wire_struct_decode!(Implementation {
    name: "name" required,
    version: "version" required,
    title: "title" optional,
    description: "description" optional,
    icons: "icons" optional,
    website_url: "websiteUrl" optional,
});

/// An icon a client can show (MCP 2025-11-25 basic `Icon`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// URI of the image: `https:` or a `data:` URI.
    pub src: String,
    /// MIME type, such as `image/png`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes as `WxH` strings (`"48x48"`) or `"any"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`: the background the icon is made for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Icon {
    src: "src" required,
    mime_type: "mimeType" optional,
    sizes: "sizes" optional,
    theme: "theme" optional,
});
