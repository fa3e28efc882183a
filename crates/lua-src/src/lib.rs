//! Lua 5.1.5, patched to behave like gopher-lua, as a native library.
//!
//! This crate has no Rust API. Depending on it links the patched Lua C API
//! (`lua_*`, `luaL_*`) into the final artifact; [mlua](https://docs.rs/mlua)
//! used with its `lua51` and `external` features then runs on it. The changes
//! against upstream Lua are listed in this crate's README.
//!
//! Refer to the crate from Rust code once (`use karmada_interpreter_lua_src as _;`)
//! so that it is linked.
#![no_std]
#![forbid(unsafe_code)]
