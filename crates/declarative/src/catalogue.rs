//! The sandbox's library surface: what a customization script can use, what
//! is there but refuses to run, and what is absent. The one copy of this
//! list: the linter describes the sandbox with it, the docs list it
//! (`docs/lua-environment.md`), and a test checks it against a live state
//! name by name.
//!
//! Names are dotted (`string.find`); a library table itself (`string`) is
//! provided when any of its fields is.

/// Globals and library fields a script can use.
pub const PROVIDED: &[&str] = &[
    "_G",
    "_GOPHER_LUA_VERSION",
    "_VERSION",
    "_printregs",
    "assert",
    "error",
    "ipairs",
    "next",
    "pairs",
    "pcall",
    "print",
    "require",
    "select",
    "tonumber",
    "tostring",
    "type",
    "unpack",
    "xpcall",
    "math.abs",
    "math.acos",
    "math.asin",
    "math.atan",
    "math.atan2",
    "math.ceil",
    "math.cos",
    "math.cosh",
    "math.deg",
    "math.exp",
    "math.floor",
    "math.fmod",
    "math.frexp",
    "math.huge",
    "math.ldexp",
    "math.log",
    "math.log10",
    "math.max",
    "math.min",
    "math.mod",
    "math.modf",
    "math.pi",
    "math.pow",
    "math.rad",
    "math.random",
    "math.randomseed",
    "math.sin",
    "math.sinh",
    "math.sqrt",
    "math.tan",
    "math.tanh",
    "os.date",
    "os.time",
    "package.loaded",
    "package.loaders",
    "package.preload",
    "string.__index",
    "string.byte",
    "string.char",
    "string.find",
    "string.format",
    "string.gfind",
    "string.gmatch",
    "string.len",
    "string.lower",
    "string.match",
    "string.reverse",
    "string.sub",
    "string.upper",
    "table.concat",
    "table.getn",
    "table.insert",
    "table.maxn",
    "table.remove",
    "table.sort",
];

/// Names that exist but fail with `... is not supported` when called, as in
/// Karmada's sandbox (which disables them).
pub const REFUSED: &[&str] = &[
    "collectgarbage",
    "dofile",
    "getfenv",
    "getmetatable",
    "load",
    "loadfile",
    "loadstring",
    "module",
    "newproxy",
    "rawequal",
    "rawget",
    "rawset",
    "setfenv",
    "setmetatable",
    "package.loadlib",
    "string.dump",
    "string.gsub",
    "string.rep",
];

/// Standard names of Lua 5.1 (and later Luas) that the sandbox leaves out.
pub const ABSENT: &[&str] = &[
    "bit32",
    "coroutine",
    "debug",
    "io",
    "jit",
    "os.clock",
    "os.difftime",
    "os.execute",
    "os.exit",
    "os.getenv",
    "os.remove",
    "os.rename",
    "os.setlocale",
    "os.tmpname",
    "package.cpath",
    "package.path",
    "package.seeall",
    "string.len_utf8",
    "utf8",
];

/// The library tables a script sees.
pub const LIBRARIES: &[&str] = &["math", "os", "package", "string", "table"];

/// Whether `name` (a global or a dotted library field) is something the
/// sandbox provides: a builtin a script must not replace.
pub fn is_builtin(name: &str) -> bool {
    LIBRARIES.contains(&name) || PROVIDED.contains(&name)
}
