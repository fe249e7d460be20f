//! Link settings for the `hanzo-mcp` binary.
//!
//! On Linux with glibc 2.36 or newer, the binary is linked with packed
//! relative relocations (`DT_RELR`, `-z pack-relative-relocs`). A
//! position-independent executable of this size carries ~28,000 relative
//! relocations; as 24-byte `RELA` entries they are ~680 KB the loader reads
//! at every start, and those pages stay resident. Packed, they take ~8 KB:
//! peak RSS drops by ~1.4 MiB and start-up does less work, with address
//! space layout randomization kept (BENCHMARKS.md, mcp-local-server stdio).
//! Older glibc cannot load such a binary, so the flag is added only when the
//! build machine is the target and its libc defines `GLIBC_ABI_DT_RELR`.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |key: &str| env::var(key).unwrap_or_default();
    let native = var("HOST") == var("TARGET");
    if native
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && libc_supports_relr()
    {
        println!("cargo:rustc-link-arg-bin=hanzo-mcp=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the machine's glibc defines the `GLIBC_ABI_DT_RELR` version
/// (glibc 2.36+), found by reading `libc.so.6` where distributions keep it.
fn libc_supports_relr() -> bool {
    const NEEDLE: &[u8] = b"GLIBC_ABI_DT_RELR";
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let candidates = [
        format!("/lib/{arch}-linux-gnu/libc.so.6"),
        format!("/usr/lib/{arch}-linux-gnu/libc.so.6"),
        "/lib64/libc.so.6".to_owned(),
        "/usr/lib64/libc.so.6".to_owned(),
        "/lib/libc.so.6".to_owned(),
        "/usr/lib/libc.so.6".to_owned(),
    ];
    candidates.iter().any(|path| {
        std::fs::read(path)
            .map(|bytes| bytes.windows(NEEDLE.len()).any(|w| w == NEEDLE))
            .unwrap_or(false)
    })
}
