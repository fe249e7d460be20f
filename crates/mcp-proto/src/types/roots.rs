use crate::decode::wire_struct;

wire_struct! {
    /// A root the client exposes, a `file://` URI (MCP 2025-11-25 client/roots).
    #[derive(Default)]
    pub struct Root {
        /// The root's URI, such as `file:///home/user/project`.
        pub uri: String as "uri",
        /// Display name.
        pub name: Option<String> as "name",
        use MetaObject;
    }

    /// The result of `roots/list` (MCP 2025-11-25 client/roots).
    #[derive(Default)]
    pub struct ListRootsResult {
        /// The client's roots.
        pub roots: Vec<Root> as "roots",
        use Result;
    }
}
