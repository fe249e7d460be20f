use crate::decode::wire_struct;

wire_struct! {
    /// Name and version of an MCP client or server (MCP 2025-11-25 basic
    /// `Implementation`; `title` since 2025-06-18, `icons`, `websiteUrl` and
    /// `description` since 2025-11-25).
    #[derive(Default)]
    pub struct Implementation {
        /// Programmatic name, such as `hanzo-mcp`.
        pub name: String as "name",
        /// Version string, such as `0.1.0`.
        pub version: String as "version",
        /// Human-readable name for display.
        pub title: Option<String> as "title",
        /// What this implementation does, in a sentence.
        pub description: Option<String> as "description",
        use Icons;
        /// Home page URL.
        pub website_url: Option<String> as "websiteUrl",
    }

    /// An icon a client can show (MCP 2025-11-25 basic `Icon`).
    #[derive(Default)]
    pub struct Icon {
        /// URI of the image: `https:` or a `data:` URI.
        pub src: String as "src",
        /// MIME type, such as `image/png`.
        pub mime_type: Option<String> as "mimeType",
        /// Sizes as `WxH` strings (`"48x48"`) or `"any"`.
        pub sizes: Option<Vec<String>> as "sizes",
        /// `"light"` or `"dark"`: the background the icon is made for.
        pub theme: Option<String> as "theme",
    }
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
