use serde::Serialize;
use serde_json::Value;

use crate::decode::{
    DecodeError, FromValue, JsonObject, serialize_opt_number, wire_deserialize, wire_enum,
    wire_struct,
};
use crate::types::{Resource, ToolResultContent, ToolUseContent};

wire_enum! {
    /// Who a message or datum is for (MCP 2025-11-25 `Role`).
    pub enum Role {
        /// The human user.
        User as "user",
        /// The model.
        Assistant as "assistant",
    }
    expecting r#""user" or "assistant""#
}

wire_struct! {
    /// Hints on how to use or show a content block (MCP 2025-11-25 `Annotations`).
    #[derive(Default)]
    pub struct Annotations {
        /// Who the content is for.
        pub audience: Option<Vec<Role>> as "audience",
        /// Importance from 0 (optional) to 1 (required).
        #[serde(serialize_with = "serialize_opt_number")]
        pub priority: Option<f64> as "priority",
        /// ISO 8601 time of last change, such as `2025-01-12T15:00:58Z` (since 2025-06-18).
        pub last_modified: Option<String> as "lastModified",
    }

    /// A text content block, `{"type": "text", "text": ...}` (MCP 2025-11-25 `TextContent`).
    #[derive(Default)]
    pub struct TextContent {
        /// The text.
        pub text: String as "text",
        use Annotated;
        use MetaObject;
    }

    /// The contents of a resource: text or base64 `blob` (MCP 2025-11-25
    /// `TextResourceContents` / `BlobResourceContents`).
    #[derive(Default)]
    pub struct ResourceContents {
        /// The resource URI.
        pub uri: String as "uri",
        /// MIME type, if known.
        pub mime_type: Option<String> as "mimeType",
        /// The text, for text resources.
        pub text: Option<String> as "text",
        /// Base64-encoded bytes, for binary resources.
        pub blob: Option<String> as "blob",
        use MetaObject;
    }

    /// A resource embedded in a result (MCP 2025-11-25 `EmbeddedResource`).
    #[derive(Default)]
    pub struct EmbeddedResource {
        /// The resource's contents.
        pub resource: ResourceContents as "resource",
        use Annotated;
        use MetaObject;
    }
}

/// Defines the content blocks that carry base64 data with its MIME type
/// (MCP 2025-11-25 `ImageContent`, `AudioContent`), each written
/// `pub struct Name("what", "mime/example");`: the name of the data and an
/// example MIME type, for the field docs.
macro_rules! base64_content {
    ($($(#[$attr:meta])* pub struct $name:ident($what:literal, $mime:literal);)*) => {
        wire_struct! {$(
            $(#[$attr])*
            #[derive(Default)]
            pub struct $name {
                #[doc = concat!("Base64-encoded ", $what, " bytes.")]
                pub data: String as "data",
                #[doc = concat!("MIME type, such as `", $mime, "`.")]
                pub mime_type: String as "mimeType",
                use Annotated;
                use MetaObject;
            }
        )*}
    };
}

base64_content! {
    /// An image content block, base64 data with its MIME type (MCP 2025-11-25 `ImageContent`).
    pub struct ImageContent("image", "image/png");
    /// An audio content block, base64 data with its MIME type (MCP 2025-03-26 `AudioContent`).
    pub struct AudioContent("audio", "audio/wav");
}

/// A link to a resource the server can read (MCP 2025-06-18 `ResourceLink`:
/// a `Resource` with `"type": "resource_link"`). It holds the [`Resource`]
/// flattened, so the resource's members stand beside the `type` that
/// [`ContentBlock::ResourceLink`] writes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct ResourceLink {
    /// The linked resource, with its unknown members.
    #[serde(flatten)]
    pub resource: Resource,
}

/// ```
/// use mcp_proto::{ContentBlock, Resource, ResourceLink};
///
/// let link = ContentBlock::ResourceLink(ResourceLink::from(Resource {
///     uri: "file:///a.txt".into(),
///     name: "a.txt".into(),
///     ..Resource::default()
/// }));
/// assert_eq!(
///     serde_json::to_string(&link).unwrap(),
///     r#"{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}"#
/// );
/// ```
impl From<Resource> for ResourceLink {
    fn from(resource: Resource) -> Self {
        Self { resource }
    }
}

impl FromValue for ResourceLink {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        Resource::from_value(value).map(Self::from)
    }
}

wire_deserialize!(ResourceLink);

/// Defines [`ContentBlock`] from one table of its kinds, each written
/// `Variant(Block) as "type",`: the enum, told apart by its `type` member
/// on the wire, with a last variant `Other` for any other `type`, and its
/// [`FromValue`], which reads the `type` and decodes the rest of the object
/// as that kind's block.
macro_rules! content_block {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $($(#[$kind_attr:meta])* $kind:ident($block:ty) as $tag:literal,)*
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
        #[serde(tag = "type")]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$kind_attr])* #[serde(rename = $tag)] $kind($block),)*
            /// Any other `type`, kept whole (including its `type` member).
            #[serde(untagged)]
            Other(JsonObject),
        }

        impl FromValue for $name {
            fn from_value(value: Value) -> Result<Self, DecodeError> {
                let mut map = JsonObject::from_value(value)?;
                let decode: fn(Value) -> Result<Self, DecodeError> = match map.get("type") {
                    Some(Value::String(s)) => match s.as_str() {
                        $($tag => |rest| <$block>::from_value(rest).map(Self::$kind),)*
                        _ => return Ok(Self::Other(map)),
                    },
                    Some(other) => {
                        return Err(DecodeError::invalid("a string", other).at_key("type"));
                    }
                    None => return Err(DecodeError::missing("type")),
                };
                map.remove("type");
                decode(Value::Object(map))
            }
        }

        wire_deserialize!($name);
    };
}

content_block! {
    /// One block of tool output, told apart by its `type` member (MCP 2025-11-25
    /// `ContentBlock`).
    ///
    /// A block with a `type` this crate does not know (such as a future
    /// revision's) is kept whole in [`ContentBlock::Other`] and written back as
    /// it came.
    pub enum ContentBlock {
        /// `"type": "text"`.
        Text(TextContent) as "text",
        /// `"type": "image"`.
        Image(ImageContent) as "image",
        /// `"type": "audio"` (since 2025-03-26).
        Audio(AudioContent) as "audio",
        /// `"type": "resource_link"` (since 2025-06-18).
        ResourceLink(ResourceLink) as "resource_link",
        /// `"type": "resource"`.
        Resource(EmbeddedResource) as "resource",
        /// `"type": "tool_use"`: a model's tool request, in sampling (since 2025-11-25).
        ToolUse(ToolUseContent) as "tool_use",
        /// `"type": "tool_result"`: a tool's answer, in sampling (since 2025-11-25).
        ToolResult(ToolResultContent) as "tool_result",
    }
}

impl ContentBlock {
    /// A text block with `text` and nothing else.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent {
            text: text.into(),
            ..TextContent::default()
        })
    }

    /// The text of a text block, `None` for other kinds.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}
