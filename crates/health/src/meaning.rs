//! One meaning of healthy, for every health layer this project authors
//! (the Argo CD checks, the CEL rules, the fallback; the bundled scripts the
//! project writes follow it too, checked on Argo CD's fixtures).
//!
//! Karmada's `InterpretHealth` is a boolean, and what reads it is failover:
//! an unhealthy workload is moved to another cluster. So *healthy* answers
//! "would moving the workload to another cluster help?" with "no". The
//! status words of Argo CD and kstatus map onto it once, here, as the table
//! of `docs/health.md` ("What healthy means") states:
//!
//! | Argo CD | kstatus | healthy |
//! |---|---|---|
//! | `Healthy` | `Current` | `true` |
//! | `Suspended` | | `true` (paused on purpose: the pause moves with it) |
//! | `Progressing` | `InProgress` | `false` (not yet what its spec says) |
//! | `Degraded` | `Failed` | `false` |
//! | `Missing` | `Terminating`, `NotFound` | `false` |
//! | `Unknown`, none | `Unknown` | no boolean: an error, which Karmada records as Unknown |

/// Karmada's boolean for Argo CD's health status `status`: `Healthy` and
/// `Suspended` are healthy; `Progressing`, `Degraded` and `Missing` are
/// not; `Unknown`, no status or any other word has none (`None`).
pub fn from_argocd(status: &str) -> Option<bool> {
    match status {
        "Healthy" | "Suspended" => Some(true),
        "Progressing" | "Degraded" | "Missing" => Some(false),
        _ => None,
    }
}

/// Karmada's boolean for kstatus' status `status` (as Flux's CEL rules and
/// the fallback give it): `Current` is healthy; `InProgress`, `Failed`,
/// `Terminating` and `NotFound` are not; `Unknown` has none (`None`).
pub fn from_kstatus(status: &str) -> Option<bool> {
    match status {
        "Current" => Some(true),
        "InProgress" | "Failed" | "Terminating" | "NotFound" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_vocabularies_agree_word_for_word() {
        // The rows of the table: an Argo CD word and its kstatus counterpart
        // give the same boolean.
        for (argocd, kstatus) in [
            ("Healthy", "Current"),
            ("Progressing", "InProgress"),
            ("Degraded", "Failed"),
            ("Missing", "Terminating"),
            ("Missing", "NotFound"),
            ("Unknown", "Unknown"),
        ] {
            assert_eq!(
                from_argocd(argocd),
                from_kstatus(kstatus),
                "{argocd} / {kstatus}"
            );
        }
        assert_eq!(from_argocd("Suspended"), Some(true));
        assert_eq!(from_argocd(""), None);
        assert_eq!(
            from_argocd("healthy"),
            None,
            "words are case-sensitive, as in Argo CD"
        );
    }
}
