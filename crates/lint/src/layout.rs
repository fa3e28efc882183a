//! Karmada's layout of customizations: `<group>/<version>/<Kind>/customizations.yaml`
//! (the core group's folder is `core`), with the cases in `testdata/` beside
//! it. A customization whose `target` differs from its folder serves other
//! objects than the cases there send: the front ends (`check`, `lint`,
//! `test`) warn about it.

use std::path::Path;

use karmada_interpreter_layout::Target;

use karmada_interpreter_core::api::ResourceInterpreterCustomization;

/// The target a customization file's folder names in Karmada's layout,
/// as (`apiVersion`, `kind`); `None` when the file does not sit in such a
/// folder (the rule is the layout crate's [`Target::of_file`]).
///
/// ```
/// use std::path::Path;
/// use karmada_interpreter::lint::layout_target;
/// assert_eq!(
///     layout_target(Path::new("thirdparty/apps.kruise.io/v1alpha1/CloneSet/customizations.yaml")),
///     Some(("apps.kruise.io/v1alpha1".to_owned(), "CloneSet".to_owned()))
/// );
/// assert_eq!(layout_target(Path::new("core/v1/Pod/customizations.yaml")),
///            Some(("v1".to_owned(), "Pod".to_owned())));
/// assert_eq!(layout_target(Path::new("rules/customizations.yaml")), None);
/// ```
pub fn layout_target(file: &Path) -> Option<(String, String)> {
    let target = Target::of_file(file)?;
    Some((target.api_version(), target.kind))
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
