//! Link settings for the `hanzo-mcp` binary: how it starts fast and stays
//! small (BENCHMARKS.md, mcp-local-server stdio, has the figures).
//!
//! - **Hot functions together** (release builds for x86_64 Linux whose
//!   linker takes it; rust-lld, that target's default linker since Rust
//!   1.90, does): the linker gets `link/hanzo-mcp.order` as its symbol
//!   ordering file, the ~2,000 functions a session runs, written by
//!   `scripts/orderfile.sh`. The kernel maps code 64 KiB around each page
//!   touched; with those functions scattered over 8.6 MB of code, serving
//!   kept ~3.6 MB of it resident, and ~1.0 MB with them side by side. A file made for another toolchain
//!   or lockfile names symbols the link does not have: the layout is then
//!   the default one, never a failed link. The workspace's crates build as
//!   one codegen unit each (the release profile in Cargo.toml), so the
//!   names of their functions do not depend on the checkout's path.
//! - **Packed relocations** (`-z pack-relative-relocs`, glibc 2.36 or newer,
//!   any Linux target built natively): for a PIE build the relocation table
//!   shrinks from ~680 KB to ~8 KB. Older glibc cannot load such a binary,
//!   so the flag is added only when the build machine's libc defines
//!   `GLIBC_ABI_DT_RELR`.
//!
//! The executable stays position-independent, so its load address is
//! randomized (ASLR) like every library's: it runs commands for a model
//! that reads untrusted text, and that protection is not traded for
//! start-up time.
//!
//! Every setting is skipped when cross-compiling. Before the ordering file
//! is used, the build script links an empty program with the same `rustc`,
//! flags and linker settings plus its arguments: a linker that refuses
//! them (GNU ld, a distribution's `rustc` built without rust-lld) does not
//! get them, and the binary links with the default layout.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/hanzo-mcp.order");
    let var = |key: &str| env::var(key).unwrap_or_default();
    if var("HOST") != var("TARGET") {
        return;
    }
    let linux_gnu = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link/hanzo-mcp.order");
    if var("PROFILE") == "release" && var("TARGET") == "x86_64-unknown-linux-gnu" && order.is_file()
    {
        let args = vec![
            format!("-Wl,--symbol-ordering-file={}", order.display()),
            // Symbols of another build, or ones the link discarded, are
            // expected and harmless: no warning for them.
            "-Wl,--no-warn-symbol-ordering".to_owned(),
        ];
        if linker_accepts(&args) {
            args.iter().for_each(|arg| link_arg(arg));
        } else {
            println!(
                "cargo:warning=the linker refused a symbol ordering file; \
                 hanzo-mcp is linked with the default layout (slower start, more memory)"
            );
        }
    }
    if linux_gnu && libc_supports_relr() {
        link_arg("-Wl,-z,pack-relative-relocs");
    }
}

fn link_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=hanzo-mcp={arg}");
}

/// Whether an empty program links with `args` added, built by the same
/// `rustc` with the same flags (`CARGO_ENCODED_RUSTFLAGS`) and linker
/// (`RUSTC_LINKER`) as this package. Takes a few hundred milliseconds, once
/// per build-script run.
fn linker_accepts(args: &[String]) -> bool {
    let Some(out_dir) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out_dir.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    command.args(flags.split('\x1f').filter(|flag| !flag.is_empty()));
    if let Some(linker) = env::var_os("RUSTC_LINKER") {
        let mut flag = std::ffi::OsString::from("linker=");
        flag.push(linker);
        command.arg("-C").arg(flag);
    }
    command
        .args([
            "--crate-type",
            "bin",
            "--edition",
            "2021",
            "-C",
            "opt-level=0",
        ])
        .arg("-o")
        .arg(out_dir.join("link_probe"))
        .arg(&source);
    for arg in args {
        command.arg("-C").arg(format!("link-arg={arg}"));
    }
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
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
