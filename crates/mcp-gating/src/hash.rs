//! A fast hasher for the allowlist index, keyed by tool names.
//!
//! Lookups by tool name are the whole cost of gating (one per tool), and the
//! standard SipHash costs more than the rest of the filter together. The keys
//! stored are the configuration's own entries (trusted input); a tool name
//! from a server is only looked up, so a name crafted to collide cannot grow
//! the table, only land in a bucket the configuration filled. This is the
//! multiply-rotate scheme of rustc's FxHash, eight bytes at a time.

use std::hash::{BuildHasherDefault, Hasher};

/// [`NameHasher`] as a `BuildHasher` for `HashMap`.
pub(crate) type BuildNameHasher = BuildHasherDefault<NameHasher>;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// Word-at-a-time multiply-rotate hasher.
#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher {
    state: u64,
}

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    fn hash(text: &str) -> u64 {
        BuildNameHasher::default().hash_one(text)
    }

    #[test]
    fn distinct_short_names_hash_apart() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "fs",
            "git",
            "tool_00001",
            "tool_00010",
            "a\0",
        ];
        for (i, left) in names.iter().enumerate() {
            for right in &names[i + 1..] {
                assert_ne!(hash(left), hash(right), "{left:?} vs {right:?}");
            }
        }
        assert_eq!(
            hash("signal_state_transition"),
            hash("signal_state_transition")
        );
    }
}
