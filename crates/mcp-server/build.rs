//! Link settings for the `hanzo-mcp` binary: how it starts fast and stays
//! small (BENCHMARKS.md, mcp-local-server stdio, has the figures).
//!
//! - **Hot functions together** (release, x86_64 Linux with rust-lld, the
//!   default linker of that target since Rust 1.90): the linker gets
//!   `link/hanzo-mcp.order` as its symbol ordering file, the few hundred
//!   functions a session runs, written by `scripts/orderfile.sh`. The kernel
//!   maps code 64 KiB around each page touched; with those functions
//!   scattered over 8.6 MB of code, serving kept ~3.5 MB of it resident,
//!   and ~1.4 MB with them side by side. A file made for another toolchain
//!   or lockfile names symbols the link does not have: the layout is then
//!   the default one, never a failed link.
//! - **Position-dependent executable** (same builds): a position-independent
//!   one is patched by the dynamic loader at every start, ~28,000 pointers
//!   on ~120 pages (regex-syntax's Unicode tables alone hold 177 KB of
//!   them), each page copied and kept. Without it those pages stay shared
//!   with the page cache and start-up does ~30% less work. The cost: the
//!   executable itself is always loaded at the same address (libraries,
//!   heap, stack and thread stacks stay randomized). Packagers whose policy
//!   requires PIE build with `HANZO_MCP_PIE=1`.
//! - **Packed relocations** (`-z pack-relative-relocs`, glibc 2.36 or newer,
//!   any Linux target built natively): for a PIE build the relocation table
//!   shrinks from ~680 KB to ~8 KB. Older glibc cannot load such a binary,
//!   so the flag is added only when the build machine's libc defines
//!   `GLIBC_ABI_DT_RELR`.
//!
//! Every setting is skipped when cross-compiling, and the first two when a
//! linker other than the target's default is configured (`RUSTC_LINKER`,
//! or a `linker`/`-fuse-ld` setting in `RUSTFLAGS`).

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/hanzo-mcp.order");
    println!("cargo:rerun-if-env-changed=HANZO_MCP_PIE");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |key: &str| env::var(key).unwrap_or_default();
    if var("HOST") != var("TARGET") {
        return;
    }
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let release = var("PROFILE") == "release";
    let default_lld = var("TARGET") == "x86_64-unknown-linux-gnu" && !linker_configured();
    let pie = var("HANZO_MCP_PIE") == "1" || !(release && default_lld);

    if release && default_lld {
        let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link/hanzo-mcp.order");
        if order.is_file() {
            link_arg(&format!("-Wl,--symbol-ordering-file={}", order.display()));
            // Symbols of another build, or ones the link discarded, are
            // expected and harmless: no warning for them.
            link_arg("-Wl,--no-warn-symbol-ordering");
        }
        if !pie {
            link_arg("-no-pie");
        }
    }
    if linux_gnu && pie && libc_supports_relr() {
        link_arg("-Wl,-z,pack-relative-relocs");
    }
}

fn link_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=hanzo-mcp={arg}");
}

/// Whether the build names its own linker, whose flags we cannot know:
/// cargo's `RUSTC_LINKER` (from `target.<triple>.linker`), or `-C linker`,
/// `-C linker-flavor`, `-C link-self-contained` or `-fuse-ld=` in the
/// encoded `RUSTFLAGS`.
fn linker_configured() -> bool {
    if env::var_os("RUSTC_LINKER").is_some() {
        return true;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    flags.split('\x1f').any(|flag| {
        flag.contains("linker") || flag.contains("link-self-contained") || flag.contains("fuse-ld")
    })
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
