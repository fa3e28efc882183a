//! `karmada-interpreter schema`: the JSON Schema of a document kind, for
//! editors (`# yaml-language-server: $schema=...`). The schemas come from
//! the golden crate (`karmada_interpreter_golden::schema`): generated from
//! the types `check`, `test` and `serve` decode documents into, and the
//! rules the case reader applies.

use std::process::ExitCode;

use karmada_interpreter_golden::schema::Document;

use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Save one next to your files and point the editor at it:\n  \
    karmada-interpreter schema case > case.schema.json\n  \
    # first line of a case file:\n  \
    # yaml-language-server: $schema=case.schema.json"
)]
pub struct SchemaArgs {
    /// The document kind: `case` (a golden case file), `customization`
    /// (ResourceInterpreterCustomization) or `webhook-config`
    /// (ResourceInterpreterWebhookConfiguration).
    #[arg(value_enum)]
    document: Kind,
}

/// [`Document`] as a command-line value, named by [`Document::name`].
#[derive(Debug, Clone, Copy)]
struct Kind(Document);

const KINDS: [Kind; 3] = [
    Kind(Document::ALL[0]),
    Kind(Document::ALL[1]),
    Kind(Document::ALL[2]),
];

impl clap::ValueEnum for Kind {
    fn value_variants<'a>() -> &'a [Self] {
        &KINDS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

/// The schema as pretty JSON, with a final newline.
pub fn text(document: Document) -> Result<String> {
    serde_json::to_string_pretty(&document.schema())
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| Error::Encode {
            what: format!("the {} schema as JSON", document.name()),
            message: e.to_string(),
        })
}

pub fn run(args: SchemaArgs) -> Result<ExitCode> {
    print!("{}", text(args.document.0)?);
    Ok(ExitCode::SUCCESS)
}
