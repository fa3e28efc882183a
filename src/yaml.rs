//! YAML documents as JSON values, the way Karmada reads its YAML files:
//! multi-document streams split at `---` lines, YAML turned into JSON, and
//! floats with an integral value (`4.0`) turned into integers. Scalars follow
//! the YAML 1.2 core schema: only `true`/`false` are booleans, so `n` or `on`
//! stay strings (Karmada's golden files quote such strings anyway).

use serde_json::{Number, Value};

/// One YAML document of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// 1-based position of the document in the stream (empty documents count).
    pub index: usize,
    /// 1-based line where the document starts.
    pub line: usize,
    /// The document as JSON; `None` when it holds no YAML content.
    pub value: Option<Value>,
}

/// A document that is not valid YAML.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("document {index} (line {line}): {message}")]
pub struct YamlError {
    /// 1-based position of the document.
    pub index: usize,
    /// 1-based line where the document starts.
    pub line: usize,
    /// The parser's message.
    pub message: String,
}

/// Splits a stream at separator lines (`---` followed by nothing, blanks or a
/// comment) and parses each document on its own, so that one bad document
/// names itself and does not hide the others.
///
/// ```
/// use karmada_interpreter::yaml::documents;
///
/// let docs = documents("a: 1\n---\n# nothing\n---\nb: 2.0\n");
/// assert_eq!(docs.len(), 3);
/// let b = docs[2].as_ref().unwrap().value.as_ref().unwrap();
/// assert_eq!(b["b"], serde_json::json!(2)); // integral floats become integers
/// assert!(docs[1].as_ref().unwrap().value.is_none());
/// ```
pub fn documents(text: &str) -> Vec<Result<Document, YamlError>> {
    let mut chunks: Vec<(usize, String)> = Vec::new();
    let mut current = String::new();
    let mut start_line = 1;
    for (i, line) in text.lines().enumerate() {
        if is_separator(line) && !current.trim().is_empty() {
            chunks.push((start_line, std::mem::take(&mut current)));
            start_line = i + 2;
            continue;
        }
        if is_separator(line) && current.trim().is_empty() {
            current.clear();
            start_line = i + 2;
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    chunks.push((start_line, current));
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, (line, chunk))| parse_document(i + 1, line, &chunk))
        .collect()
}

pub(crate) fn is_separator(line: &str) -> bool {
    line.strip_prefix("---").is_some_and(|rest| {
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    })
}

fn parse_document(index: usize, line: usize, chunk: &str) -> Result<Document, YamlError> {
    let has_content = chunk.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    });
    if !has_content {
        return Ok(Document {
            index,
            line,
            value: None,
        });
    }
    let value = parse_like_go_yaml(chunk).map_err(|e| YamlError {
        index,
        line,
        message: e.to_string(),
    })?;
    let value = integral_floats_to_integers(value);
    Ok(Document {
        index,
        line,
        value: (!value.is_null()).then_some(value),
    })
}

/// How many continuation lines of quoted scalars one document may have
/// re-indented before the parser's error is reported as it is.
const MAX_REINDENTS: usize = 256;

/// Parses one document with the YAML 1.2 core schema (`y`, `n`, `yes`, `off`
/// ... stay strings), reading what go-yaml reads: go-yaml (libyaml) folds the
/// continuation lines of a quoted scalar whatever their indentation, and
/// kubectl writes long single-quoted strings with continuation lines indented
/// like their key, which the YAML 1.2 spec (and so our parser) refuses. The
/// leading blanks of a continuation line are not part of the value, so such a
/// line is indented further and the document parsed again.
fn parse_like_go_yaml(chunk: &str) -> Result<Value, serde_saphyr::Error> {
    let options = || serde_saphyr::options! { strict_booleans: true };
    let mut text = std::borrow::Cow::Borrowed(chunk);
    let mut reindents = 0;
    loop {
        let err = match serde_saphyr::from_str_with_options::<Value>(&text, options()) {
            Ok(value) => return Ok(value),
            Err(err) => err,
        };
        let Some(line) = under_indented_quoted_line(&err) else {
            return Err(err);
        };
        if reindents == MAX_REINDENTS {
            return Err(err);
        }
        reindents += 1;
        text = std::borrow::Cow::Owned(indent_line(&text, line));
    }
}

/// The 1-based line of a quoted scalar's continuation line that the parser
/// refused as under-indented.
fn under_indented_quoted_line(err: &serde_saphyr::Error) -> Option<usize> {
    use serde_saphyr::granit_parser::ErrorKind;
    use serde_saphyr::ExternalMessageSource;
    let mut err = err;
    while let serde_saphyr::Error::WithSnippet { error, .. }
    | serde_saphyr::Error::AliasError { error, .. } = err
    {
        err = error;
    }
    match err {
        serde_saphyr::Error::ExternalMessage {
            source, location, ..
        } => match source.as_ref() {
            ExternalMessageSource::Parser(scan)
                if *scan.kind() == ErrorKind::InvalidQuotedScalarIndent =>
            {
                usize::try_from(location.line()).ok()
            }
            _ => None,
        },
        _ => None,
    }
}

/// Doubles the indentation of the 1-based `line` (plus one blank), so that
/// repeated refusals of the same line reach any enclosing block's indentation
/// in a few steps.
fn indent_line(text: &str, line: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let indent = l.len() - l.trim_start_matches([' ', '\t']).len();
            out.extend(std::iter::repeat_n(' ', indent + 1));
        }
        out.push_str(l);
    }
    out
}

/// Parses a single YAML (or JSON) document into a JSON value.
pub fn from_str(text: &str) -> Result<Value, YamlError> {
    parse_document(1, 1, text).map(|d| d.value.unwrap_or(Value::Null))
}

/// `4.0` → `4` (within i64), recursively; other numbers are kept.
pub fn integral_floats_to_integers(value: Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
                Value::Number(Number::from(f as i64))
            } else {
                Value::Number(n)
            }
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(integral_floats_to_integers).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, integral_floats_to_integers(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn separators_with_comments_split_documents() {
        let docs = documents("---\na: 1\n--- # next\nb: 2\n---\n");
        let values: Vec<_> = docs.into_iter().map(|d| d.unwrap().value).collect();
        assert_eq!(
            values,
            vec![Some(json!({"a": 1})), Some(json!({"b": 2})), None]
        );
    }

    #[test]
    fn text_after_dashes_is_not_a_separator() {
        let docs = documents("a: |\n  x\n  ---text\n");
        assert_eq!(docs.len(), 1);
    }

    #[test]
    fn bad_documents_name_their_position() {
        let docs = documents("a: 1\n---\nb: [unclosed\n");
        let err = docs[1].clone().unwrap_err();
        assert_eq!((err.index, err.line), (2, 3));
        assert!(docs[0].is_ok());
    }

    #[test]
    fn quoted_scalar_continuations_indented_like_their_key_load_as_go_yaml_reads_them() {
        // kubectl/go-yaml output for a long single-quoted string.
        let text = "items:\n- message: 'invalid ''a'' data: required fields ''x''\n  and ''y'''\n  reason: Failed\n";
        assert_eq!(
            from_str(text).unwrap(),
            json!({"items": [{"message": "invalid 'a' data: required fields 'x' and 'y'", "reason": "Failed"}]})
        );
        let deep = "a:\n  b:\n    c: \"one\ntwo\n   three\"\n    d: 1\n";
        assert_eq!(
            from_str(deep).unwrap(),
            json!({"a": {"b": {"c": "one two three", "d": 1}}})
        );
    }

    #[test]
    fn unclosed_quotes_still_fail() {
        assert!(from_str("a: 'one\nb: 2\n").is_err());
    }

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let v = from_str("a: n\nb: on\nc: true\nd: yes\n").unwrap();
        assert_eq!(v, json!({"a": "n", "b": "on", "c": true, "d": "yes"}));
    }

    #[test]
    fn numbers_keep_fractions_and_strings_stay_strings() {
        let v = from_str("a: 2.5\nb: \"3\"\nc: 1e3\nd: 7\n").unwrap();
        assert_eq!(v, json!({"a": 2.5, "b": "3", "c": 1000, "d": 7}));
    }
}
