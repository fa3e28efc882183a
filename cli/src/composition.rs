//! `--composition`: several customizations for one kind and editing
//! operation all apply, in declared order, and scripts can call
//! `kube.below()` — for every command (off by default: Karmada's answers;
//! docs/composition.md).

use std::sync::OnceLock;

static COMPOSITION: OnceLock<bool> = OnceLock::new();

/// Records the command line's `--composition` (once, before the command runs).
pub fn set(on: bool) {
    let _ = COMPOSITION.set(on);
}

/// Whether the command line turned composition on.
pub fn on() -> bool {
    COMPOSITION.get().copied().unwrap_or(false)
}
