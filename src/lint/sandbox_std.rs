//! The customization sandbox described as a selene standard library.
//!
//! selene's Lua 5.1 library, reduced to the globals the sandbox gives a
//! script (see `lua::sandbox` and its prelude): the base functions it keeps,
//! the restricted `string` library, `table`, `math`, `os.time`/`os.date` and
//! `package.preload`/`loaded`/`loaders` for `require`. Everything else (`io`,
//! `debug`, `coroutine`, `os.execute`, `setmetatable`, `loadstring`,
//! `string.gsub`, ...) is absent, so selene reports its use.

use selene_lib::standard_library::{Field, FieldKind, StandardLibrary};

/// Globals (and library fields) the sandbox provides, in selene's dotted
/// notation; every `math.*` field of Lua 5.1 is provided too.
pub(crate) const PROVIDED: &[&str] = &[
    "_G",
    "_VERSION",
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
    "os.date",
    "os.time",
    "package.loaded",
    "package.loaders",
    "package.preload",
    "string.byte",
    "string.char",
    "string.find",
    "string.format",
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

/// Globals of Lua 5.1 that the sandbox removes or replaces with a function
/// that always fails: using one is a `sandbox` finding, not an undefined
/// global.
pub(crate) const WITHHELD: &[&str] = &[
    "collectgarbage",
    "coroutine",
    "debug",
    "dofile",
    "getfenv",
    "getmetatable",
    "io",
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
];

/// Whether `name` is a global the sandbox provides (a builtin a script must
/// not replace).
pub(crate) fn is_builtin(name: &str) -> bool {
    ["string", "table", "math", "os", "package"].contains(&name) || PROVIDED.contains(&name)
}

/// The sandbox as a selene standard library.
pub(crate) fn sandbox() -> StandardLibrary {
    let mut std = StandardLibrary::from_name("lua51").unwrap_or_default();
    std.globals
        .retain(|name, _| name.starts_with("math.") || PROVIDED.contains(&name.as_str()));
    // selene's Lua 5.1 library gives `table.getn` a second, required
    // parameter; Lua 5.1 (and gopher-lua) take the table alone.
    if let Some(Field {
        field_kind: FieldKind::Function(getn),
        ..
    }) = std.globals.get_mut("table.getn")
    {
        getn.arguments.truncate(1);
    }
    std
}

/// The functions of Lua 5.1's `string` library the sandbox does not
/// provide (`dump`, `gsub`, `rep`): strings' methods are that library, so
/// `s:gsub(...)` fails as `string.gsub(s, ...)` does.
pub(crate) fn withheld_string_functions() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(withheld_string_names)
}

fn withheld_string_names() -> Vec<String> {
    let mut out: Vec<String> = StandardLibrary::from_name("lua51")
        .unwrap_or_default()
        .globals
        .keys()
        .filter(|name| name.starts_with("string.") && !PROVIDED.contains(&name.as_str()))
        .filter_map(|name| name.strip_prefix("string.").map(str::to_owned))
        .collect();
    out.sort();
    out
}
