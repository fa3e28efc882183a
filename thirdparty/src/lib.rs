//! The bundled third-party customizations, embedded from `thirdparty/` at
//! build time (`<group>/<version>/<Kind>/customizations.yaml`).

#![forbid(unsafe_code)]

use std::sync::{Arc, OnceLock};

use karmada_interpreter_core::api::ResourceInterpreterCustomization;
use karmada_interpreter_core::interpreter::Layer;
use karmada_interpreter_core::profile::Profile;
use karmada_interpreter_core::{load, Error};
use karmada_interpreter_declarative::LuaLayer;

#[cfg(feature = "karmada-next")]
mod next;

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The folders (`<group>/<version>/<Kind>`) of every bundled customization.
pub fn bundled_kinds() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(path, _)| *path)
}

/// The bundled golden cases, embedded at build time: (path relative to the
/// project root, `thirdparty/<group>/<version>/<Kind>/testdata/<file>`,
/// contents). `test` with no path runs these.
pub fn bundled_cases() -> &'static [(&'static str, &'static str)] {
    BUNDLED_CASES
}

/// Parses every embedded customization. Errors name the folder; the test
/// suite asserts there are none, so the shipped layer never drops a kind.
pub fn load() -> (Vec<ResourceInterpreterCustomization>, Vec<Error>) {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (path, text) in BUNDLED {
        let source = format!("thirdparty/{path}/customizations.yaml");
        match load::customizations_from_str(text, &source) {
            Ok(mut found) => items.append(&mut found),
            Err(e) => errors.push(e),
        }
    }
    (items, errors)
}

/// Every bundled customization, parsed once per process (the shared layer
/// and every layer of its own start from it).
fn parsed() -> &'static [ResourceInterpreterCustomization] {
    static PARSED: OnceLock<Vec<ResourceInterpreterCustomization>> = OnceLock::new();
    PARSED.get_or_init(|| load().0)
}

/// The bundled customizations as `profile` has them (the `karmada-next`
/// profile adds FlinkDeployment's `componentRevision` rule).
pub fn customizations_for(profile: Profile) -> Vec<ResourceInterpreterCustomization> {
    let bundled = parsed().to_vec();
    match profile {
        #[cfg(feature = "karmada-next")]
        Profile::KarmadaNext => next::customizations(bundled),
        _ => bundled,
    }
}

/// The shared thirdparty layer of the `karmada-next` profile.
#[cfg(feature = "karmada-next")]
fn next_layer() -> Arc<dyn Layer> {
    static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
    LAYER
        .get_or_init(|| {
            Arc::new(
                LuaLayer::bundled(customizations_for(Profile::KarmadaNext))
                    .with_profile(Profile::KarmadaNext),
            )
        })
        .clone()
}

/// [`layer_with`] for `profile`: the bundled customizations as the profile
/// has them ([`customizations_for`]).
pub fn layer_for(
    profile: Profile,
    limits: Option<karmada_interpreter_declarative::Limits>,
    coverage: Option<karmada_interpreter_declarative::Coverage>,
) -> Arc<dyn Layer> {
    if !profile.is_next() {
        return layer_with(limits, coverage);
    }
    #[cfg(feature = "karmada-next")]
    if limits.is_none() && coverage.is_none() {
        return next_layer();
    }
    let layer =
        LuaLayer::bundled_with_limits(customizations_for(profile), limits.unwrap_or_default())
            .with_profile(profile);
    match coverage {
        Some(coverage) => Arc::new(layer.with_coverage(coverage)),
        None => Arc::new(layer),
    }
}

/// The thirdparty layer: every bundled customization, shared.
pub fn layer() -> Arc<dyn Layer> {
    static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
    LAYER
        .get_or_init(|| Arc::new(LuaLayer::bundled(parsed().to_vec())))
        .clone()
}

/// A thirdparty layer of its own (not the shared one) whose scripts run
/// under `limits` (the default limits when `None`) and, with `coverage`,
/// record which lines of the bundled scripts run (`explain`, `test
/// --coverage`). With neither, the shared [`layer`].
pub fn layer_with(
    limits: Option<karmada_interpreter_declarative::Limits>,
    coverage: Option<karmada_interpreter_declarative::Coverage>,
) -> Arc<dyn Layer> {
    if limits.is_none() && coverage.is_none() {
        return layer();
    }
    let layer = LuaLayer::bundled_with_limits(parsed().to_vec(), limits.unwrap_or_default());
    match coverage {
        Some(coverage) => Arc::new(layer.with_coverage(coverage)),
        None => Arc::new(layer),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bundled_customization_loads() {
        let (_, errors) = super::load();
        assert!(errors.is_empty(), "{errors:?}");
    }
}
