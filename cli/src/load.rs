//! The command-line inputs of `run`, `check`, `lint`, `list`, `test` and
//! `serve`, read as kubectl reads its `-f` values ([`Loader`]): files,
//! directories, glob patterns and `-` for standard input.

use std::path::{Path, PathBuf};

use karmada_interpreter::api::{AggregatedStatusItem, ResourceInterpreterCustomization};
use karmada_interpreter::load::customizations_from_str;
use karmada_interpreter::yaml;

use crate::error::{Error, LoadError, Result};

/// What one command-line input names, once expanded as kubectl expands
/// `-f` values: a file, or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file (named, found in a directory, or matched by a pattern).
    File(PathBuf),
    /// Standard input, named `-` on the command line.
    Stdin,
}

impl Input {
    /// The name messages give the source: the path, or `STDIN`.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.display().to_string(),
            Input::Stdin => "STDIN".to_owned(),
        }
    }
}

/// The extensions of the files taken from a directory (a file named
/// explicitly is read whatever its name).
const DIRECTORY_EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

/// Reads command-line inputs as kubectl (and so `karmadactl interpret`)
/// reads its `-f` values: files, directories (their `.json`, `.yaml` and
/// `.yml` files in name order; subdirectories only when recursive), glob
/// patterns (when no such path exists), and `-` for standard input, which
/// one input at most may name.
#[derive(Debug, Default)]
pub struct Loader {
    /// The flag that read standard input, once one has.
    stdin_read_by: Option<String>,
}

/// One document of a command-line input.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceDocument {
    /// The source's name (path or `STDIN`).
    pub source_name: String,
    /// 1-based position of the document in its source.
    pub index: usize,
    /// The document (empty and `null` documents are left out).
    pub value: serde_json::Value,
}

impl Loader {
    /// A loader no input has read standard input through yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The sources `values` name, in the order kubectl visits them. Each
    /// value may hold several comma-separated paths when `split_commas`
    /// (kubectl's `-f` is a list flag; single-path flags are not split).
    ///
    /// ```
    /// use karmada_interpreter::load::{Loader, Input};
    /// let sources = Loader::sources(&["-".to_owned()], false, true).unwrap();
    /// assert_eq!(sources, vec![Input::Stdin]);
    /// assert!(Loader::sources(&["no/such/*.yaml".to_owned()], false, true).is_err());
    /// ```
    pub fn sources(
        values: &[String],
        recursive: bool,
        split_commas: bool,
    ) -> Result<Vec<Input>, LoadError> {
        let mut out = Vec::new();
        for value in values {
            let parts: Vec<&str> = if split_commas {
                value.split(',').filter(|p| !p.is_empty()).collect()
            } else {
                vec![value.as_str()]
            };
            for part in parts {
                expand(part, recursive, &mut out)?;
            }
        }
        Ok(out)
    }

    /// The text of `source`, read for `flag` (named in the error when
    /// standard input was already read for another flag).
    pub fn read(&mut self, source: &Input, flag: &str) -> Result<String, LoadError> {
        match source {
            Input::File(path) => std::fs::read_to_string(path).map_err(|source| LoadError::Io {
                path: path.clone(),
                source,
            }),
            Input::Stdin => {
                if let Some(first) = &self.stdin_read_by {
                    return Err(LoadError::StdinTwice {
                        first: first.clone(),
                        second: flag.to_owned(),
                    });
                }
                self.stdin_read_by = Some(flag.to_owned());
                std::io::read_to_string(std::io::stdin()).map_err(LoadError::Stdin)
            }
        }
    }

    /// Every non-empty document of the sources `values` name, in order.
    pub fn documents(
        &mut self,
        flag: &str,
        values: &[String],
        recursive: bool,
        split_commas: bool,
    ) -> Result<Vec<SourceDocument>, LoadError> {
        let mut out = Vec::new();
        for source in Self::sources(values, recursive, split_commas)? {
            let text = self.read(&source, flag)?;
            let source_name = source.name();
            for doc in yaml::documents(&text) {
                let doc = doc.map_err(|source| LoadError::Yaml {
                    source_name: source_name.clone(),
                    source,
                })?;
                if let Some(value) = doc.value {
                    out.push(SourceDocument {
                        source_name: source_name.clone(),
                        index: doc.index,
                        value,
                    });
                }
            }
        }
        Ok(out)
    }

    /// The customizations in the sources `values` name (`-f`: repeatable,
    /// comma-separated, directories recursed into when `recursive`).
    pub fn customizations(
        &mut self,
        flag: &str,
        values: &[String],
        recursive: bool,
    ) -> Result<Vec<ResourceInterpreterCustomization>> {
        Ok(self
            .customizations_by_source(flag, values, recursive)?
            .into_iter()
            .flat_map(|(_, found)| found)
            .collect())
    }

    /// [`Loader::customizations`], kept apart per source (its name and what
    /// it holds), for callers that report on each source. Files found in a
    /// directory or by a pattern that hold no customization (the case files
    /// of Karmada's layout) are left out, see [`Loader::customization_texts`].
    pub fn customizations_by_source(
        &mut self,
        flag: &str,
        values: &[String],
        recursive: bool,
    ) -> Result<Vec<(String, Vec<ResourceInterpreterCustomization>)>> {
        let mut out = Vec::new();
        let texts = self
            .customization_texts(flag, values, recursive)
            .map_err(customization_error)?;
        for (source, text) in texts.kept {
            let name = source.name();
            let found = customizations_from_str(&text, &name)?;
            out.push((name, found));
        }
        Ok(out)
    }

    /// The texts of the customization sources `values` name: every file
    /// named as such and standard input; of the files found in a directory
    /// or matched by a pattern, those holding a
    /// `ResourceInterpreterCustomization` document (any `.json`, `.yaml` or
    /// `.yml` file, so `-f DIR -R` on Karmada's layout skips its
    /// `testdata/` cases). The others are listed in
    /// [`CustomizationTexts::skipped`].
    pub fn customization_texts(
        &mut self,
        flag: &str,
        values: &[String],
        recursive: bool,
    ) -> Result<CustomizationTexts, LoadError> {
        let named: Vec<&str> = values
            .iter()
            .flat_map(|v| v.split(','))
            .filter(|p| !p.is_empty())
            .collect();
        let mut out = CustomizationTexts::default();
        for source in Self::sources(values, recursive, true)? {
            let text = self.read(&source, flag)?;
            match &source {
                Input::File(path)
                    if !named.iter().any(|n| Path::new(n) == path)
                        && !holds_customization(&text) =>
                {
                    out.skipped.push(path.clone());
                }
                _ => out.kept.push((source, text)),
            }
        }
        Ok(out)
    }

    /// The one object the source `value` names (a file, a directory, a
    /// pattern or `-`): none or several are an error.
    pub fn object(&mut self, flag: &str, value: &str) -> Result<serde_json::Value, LoadError> {
        let values = [value.to_owned()];
        let mut docs = self.documents(flag, &values, false, false)?;
        match docs.len() {
            1 => Ok(docs.remove(0).value),
            0 => Err(LoadError::NoObject {
                sources: Self::sources(&values, false, false)?
                    .iter()
                    .map(Input::name)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
            count => Err(LoadError::ManyObjects { count }),
        }
    }

    /// The aggregated status items in the source `value` names (a file, a
    /// directory, a pattern or `-`), one per non-empty document.
    pub fn status_items(
        &mut self,
        flag: &str,
        value: &str,
    ) -> Result<Vec<AggregatedStatusItem>, LoadError> {
        self.documents(flag, &[value.to_owned()], false, false)?
            .into_iter()
            .map(|doc| {
                karmada_interpreter::load::decode(doc.value).map_err(|e| LoadError::Decode {
                    source_name: doc.source_name,
                    index: doc.index,
                    detail: e.to_string(),
                })
            })
            .collect()
    }
}

/// What [`Loader::customization_texts`] found.
#[derive(Debug, Default)]
pub struct CustomizationTexts {
    /// The sources to read customizations from, with their text.
    pub kept: Vec<(Input, String)>,
    /// Files found in a directory or by a pattern that hold no customization.
    pub skipped: Vec<PathBuf>,
}

/// The `kind` customization documents have.
const CUSTOMIZATION_KIND: &str = karmada_interpreter::api::ResourceInterpreterCustomization::KIND;

/// Whether a text holds a `ResourceInterpreterCustomization` document (or,
/// when it is not valid YAML, names that kind: a broken customization file
/// is still one).
fn holds_customization(text: &str) -> bool {
    yaml::documents(text).iter().any(|doc| match doc {
        Ok(doc) => doc
            .value
            .as_ref()
            .and_then(|v| v.get("kind"))
            .is_some_and(|k| k == CUSTOMIZATION_KIND),
        Err(_) => text.contains(CUSTOMIZATION_KIND),
    })
}

/// Adds what one path names to `out`: `-`, a file, a directory's files, or
/// a pattern's matches (only when no such path exists, as kubectl does).
fn expand(value: &str, recursive: bool, out: &mut Vec<Input>) -> Result<(), LoadError> {
    if value == "-" {
        out.push(Input::Stdin);
        return Ok(());
    }
    if value.starts_with("http://") || value.starts_with("https://") {
        return Err(LoadError::Url {
            url: value.to_owned(),
        });
    }
    let path = Path::new(value);
    if path.exists() {
        return visit(path, recursive, out);
    }
    let matches = glob::glob(value).map_err(|source| LoadError::Pattern {
        pattern: value.to_owned(),
        source,
    })?;
    let mut found = false;
    for entry in matches {
        let matched = entry.map_err(|e| LoadError::Io {
            path: e.path().to_owned(),
            source: std::io::Error::new(e.error().kind(), e.error().to_string()),
        })?;
        found = true;
        visit(&matched, recursive, out)?;
    }
    if found {
        Ok(())
    } else {
        Err(LoadError::NotFound {
            path: path.to_owned(),
        })
    }
}

/// A file named as such, or a directory's files with one of
/// [`DIRECTORY_EXTENSIONS`], visited as Go's `filepath.Walk` visits them:
/// entries in name order, a subdirectory's files where its name sorts
/// (subdirectories only when `recursive`; symbolic links inside a directory
/// are not followed into).
fn visit(root: &Path, recursive: bool, out: &mut Vec<Input>) -> Result<(), LoadError> {
    if root.is_dir() {
        walk(root, recursive, out)
    } else {
        out.push(Input::File(root.to_owned()));
        Ok(())
    }
}

fn walk(dir: &Path, recursive: bool, out: &mut Vec<Input>) -> Result<(), LoadError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| LoadError::Io { path, source }
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(io(dir))?;
    entries.sort();
    for path in entries {
        let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
        if meta.is_dir() {
            if recursive {
                walk(&path, recursive, out)?;
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| DIRECTORY_EXTENSIONS.contains(&e))
        {
            out.push(Input::File(path));
        }
    }
    Ok(())
}

/// A customization source that cannot be listed or read, in karmadactl's
/// words.
pub fn customization_error(source: LoadError) -> Error {
    Error::Load {
        what: "fail to get customization object".to_owned(),
        source,
    }
}
