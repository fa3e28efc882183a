//! Compiles `lua-5.1.5/` (Lua 5.1.5 with the changes listed in README.md) into a
//! static library and links it whole into every artifact that depends on this
//! crate. mlua is used with its `external` feature, so mlua-sys declares the
//! Lua C API and links nothing itself: these objects provide it.

use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let source_dir = manifest.join("lua-5.1.5");
    let target = env::var("TARGET").expect("set by cargo");
    println!("cargo:rerun-if-changed=lua-5.1.5");

    let mut build = cc::Build::new();
    build
        .warnings(false)
        .include(&source_dir)
        .flag_if_supported("-fno-common");
    if target.contains("windows") {
        // Lua 5.1 needs no platform define on Windows.
    } else if target.contains("linux")
        || target.contains("bsd")
        || target.contains("dragonfly")
        || target.contains("apple-darwin")
    {
        build.define("LUA_USE_LINUX", None);
    } else {
        build.define("LUA_USE_POSIX", None);
    }
    if env::var("PROFILE").as_deref() == Ok("debug") {
        build.define("LUA_USE_APICHECK", None);
    }
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&source_dir)
        .expect("lua-5.1.5/ is part of the package")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    build.files(sources);
    // `cargo_metadata(false)`: the link line is written below, whole-archive,
    // so the objects are kept whatever order the linker meets the libraries in
    // (mlua-sys, which refers to them, is not a dependent of this crate).
    build.cargo_metadata(false).compile("karmada_lua51");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static:+whole-archive=karmada_lua51");
    println!("cargo:include={}", source_dir.display());
}
