//! A time budget for the Lua runs of one thread: a server answers short
//! requests on its I/O thread and hands the rest to a blocking pool. Inside
//! [`within`], every script run on this thread is cut off at the budget's end
//! (the same check as a script's run deadline, only earlier); the caller learns that the budget ran out and runs the request
//! again where it may take its full deadline. Scripts are pure functions of
//! their inputs, so a run cut short and repeated answers the same.
//!
//! ```
//! use std::time::Duration;
//! use karmada_interpreter::declarative::budget;
//!
//! let (value, exhausted) = budget::within(Duration::from_millis(5), || 40 + 2);
//! assert_eq!((value, exhausted), (42, false));
//! ```

use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// The end of the budget of the current [`within`] call, if any.
    static UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Whether a run was cut off by the budget during the current call.
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every Lua run on this thread limited to what is left of
/// `budget`; returns its result and whether the budget cut a run off (the
/// result is then an error that says nothing about the request: run it again
/// without a budget). Nested calls keep the earlier end.
pub fn within<T>(budget: Duration, f: impl FnOnce() -> T) -> (T, bool) {
    let end = Instant::now() + budget;
    let outer = UNTIL.with(Cell::get);
    let outer_exhausted = EXHAUSTED.with(|e| e.replace(false));
    UNTIL.with(|u| u.set(Some(outer.map_or(end, |o| o.min(end)))));
    let value = f();
    UNTIL.with(|u| u.set(outer));
    let exhausted = EXHAUSTED.with(|e| e.replace(outer_exhausted));
    (value, exhausted)
}

/// The deadline of a run that may take `timeout`: `timeout` itself, or what
/// is left of the budget when that is shorter (then `true`).
pub fn limit(timeout: Duration) -> (Duration, bool) {
    match UNTIL.with(Cell::get) {
        Some(until) => {
            let left = until.saturating_duration_since(Instant::now());
            if left < timeout {
                (left, true)
            } else {
                (timeout, false)
            }
        }
        None => (timeout, false),
    }
}

/// Notes that the budget cut a run off (a layer calls it when [`limit`]
/// shortened a run that then ran out of time).
pub fn exhausted() {
    EXHAUSTED.with(|e| e.set(true));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_only_inside_and_restores_the_outer_budget() {
        assert_eq!(
            limit(Duration::from_secs(1)),
            (Duration::from_secs(1), false)
        );
        let ((), outer) = within(Duration::from_millis(200), || {
            let (left, by_budget) = limit(Duration::from_secs(1));
            assert!(by_budget && left <= Duration::from_millis(200));
            let ((), inner) = within(Duration::from_secs(10), || {
                // the outer end is kept
                assert!(limit(Duration::from_secs(1)).1);
                exhausted();
            });
            assert!(inner);
        });
        assert!(!outer, "an inner exhaustion is the inner call's");
        assert_eq!(
            limit(Duration::from_secs(1)),
            (Duration::from_secs(1), false)
        );
    }
}
