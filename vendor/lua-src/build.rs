// karmada-interpreter: the Lua sources are compiled by mlua-sys's build
// script through this crate; rebuilding this crate when they change makes
// that script run again (a library's fingerprint sees only Rust sources).
fn main() {
    println!("cargo:rerun-if-changed=lua-5.1.5");
}
