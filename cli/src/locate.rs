//! The customization files a command was given, as a [`Locator`]: script
//! failures are shown at their place in those files.

use karmada_interpreter::lint::Locator;

use crate::args::CustomizationFiles;

/// A locator for the files `-f` values name (standard input and values
/// that name nothing are left out: their failures keep Karmada's text).
pub fn locator(files: &[String], recursive: bool) -> Locator {
    let files = CustomizationFiles {
        customizations: files.to_vec(),
        recursive,
    };
    Locator::for_files(files.paths().unwrap_or_default())
}
