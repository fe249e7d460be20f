//! Examples live in examples/*.rs as `[[example]]` targets.
