//! Karmada's layout of customizations: `<group>/<version>/<Kind>/customizations.yaml`
//! (the core group's folder is `core`), with the cases in `testdata/` beside
//! it. A customization whose `target` differs from its folder serves other
//! objects than the cases there send: the front ends (`check`, `lint`,
//! `test`) warn about it.

use std::path::Path;

use crate::api::ResourceInterpreterCustomization;

/// The target a customization file's folder names in Karmada's layout,
/// as (`apiVersion`, `kind`); `None` when the file does not sit in such a
/// folder (any `customizations.yaml` under `<group>/<version>/<Kind>/`,
/// with a version such as `v1`, `v1beta2` and a CamelCase kind).
///
/// ```
/// use std::path::Path;
/// use karmada_interpreter::layout::layout_target;
/// assert_eq!(
///     layout_target(Path::new("thirdparty/apps.kruise.io/v1alpha1/CloneSet/customizations.yaml")),
///     Some(("apps.kruise.io/v1alpha1".to_owned(), "CloneSet".to_owned()))
/// );
/// assert_eq!(layout_target(Path::new("core/v1/Pod/customizations.yaml")),
///            Some(("v1".to_owned(), "Pod".to_owned())));
/// assert_eq!(layout_target(Path::new("rules/customizations.yaml")), None);
/// ```
pub fn layout_target(file: &Path) -> Option<(String, String)> {
    let name = file.file_name()?.to_str()?;
    if !matches!(name, "customizations.yaml" | "customizations.yml") {
        return None;
    }
    let mut dirs = file.parent()?.iter().rev().filter_map(|d| d.to_str());
    let kind = dirs.next()?;
    let version = dirs.next()?;
    let group = dirs.next()?;
    let is_version = version
        .strip_prefix('v')
        .and_then(|rest| {
            let digits = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            (digits > 0).then(|| &rest[digits..])
        })
        .is_some_and(|tail| {
            tail.is_empty()
                || ["alpha", "beta"].iter().any(|stage| {
                    tail.strip_prefix(stage)
                        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                })
        });
    let is_group = group == "core" || (group.contains('.') && !group.starts_with('.'));
    let is_kind = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !(is_version && is_group && is_kind) {
        return None;
    }
    let api_version = if group == "core" {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    Some((api_version, kind.to_owned()))
}

/// A warning when customization `c` of `file` targets something else than
/// the folder `file` sits in (Karmada's layout); `None` when they agree or
/// the file is not in that layout.
pub fn layout_mismatch(file: &Path, c: &ResourceInterpreterCustomization) -> Option<String> {
    let (api_version, kind) = layout_target(file)?;
    let target = &c.spec.target;
    (target.api_version != api_version || target.kind != kind).then(|| {
        format!(
            "customization {:?} targets {} {}, but its folder is that of {api_version} {kind} \
             (Karmada's layout: <group>/<version>/<Kind>/customizations.yaml): \
             the cases in its testdata/ will not reach it",
            c.name(),
            target.api_version,
            target.kind,
        )
    })
}
