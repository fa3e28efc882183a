//! The customization sandbox described as a selene standard library.
//!
//! selene's Lua 5.1 library, reduced to the globals the sandbox gives a
//! script (see `lua::sandbox` and its prelude): the base functions it keeps,
//! the restricted `string` library, `table`, `math`, `os.time`/`os.date` and
//! `package.preload`/`loaded`/`loaders` for `require`. Everything else (`io`,
//! `debug`, `coroutine`, `os.execute`, `setmetatable`, `loadstring`,
//! `string.gsub`, ...) is absent, so selene reports its use.

use selene_lib::standard_library::{Field, FieldKind, StandardLibrary};

/// Globals (and library fields) the sandbox provides: the declarative
/// engine's catalogue, the one list of the sandbox's surface.
pub(crate) use karmada_interpreter_declarative::catalogue::PROVIDED;

use karmada_interpreter_declarative::catalogue::{ABSENT, REFUSED};

/// Whether `name` is a name of Lua 5.1 that the sandbox refuses to run or
/// leaves out: using one is a `sandbox` finding, not an undefined global.
pub(crate) fn withheld(name: &str) -> bool {
    REFUSED.contains(&name) || ABSENT.contains(&name)
}

/// Whether `name` is a global the sandbox provides (a builtin a script must
/// not replace).
pub(crate) use karmada_interpreter_declarative::catalogue::is_builtin;

/// The sandbox as a selene standard library.
pub(crate) fn sandbox() -> StandardLibrary {
    let mut std = StandardLibrary::from_name("lua51").unwrap_or_default();
    std.globals
        .retain(|name, _| PROVIDED.contains(&name.as_str()));
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

/// The functions of Lua 5.1's `string` library the sandbox refuses
/// (`dump`, `gsub`, `rep`): strings' methods are that library, so
/// `s:gsub(...)` fails as `string.gsub(s, ...)` does.
pub(crate) fn withheld_string_functions() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        REFUSED
            .iter()
            .filter_map(|name| name.strip_prefix("string."))
            .map(str::to_owned)
            .collect()
    })
}
