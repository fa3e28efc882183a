//! YAML documents as JSON values, the way Karmada reads its YAML files:
//! multi-document streams split at `---` lines, YAML turned into JSON, and
//! floats with an integral value (`4.0`) turned into integers. Plain scalars
//! are resolved with YAML 1.1's rules as go-yaml v2 (what kubectl and
//! karmadactl read files with) resolves them: `y`, `yes`, `on`, `n`, `no`,
//! `off` are booleans, `0755` is octal (see COMPATIBILITY.md for the spellings
//! where the two still differ).

use serde_json::{Number, Value};

mod tabs;

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

/// Whether `line` separates two documents of a stream (`---`, optionally
/// followed by a comment or a document marker).
pub fn is_separator(line: &str) -> bool {
    line.strip_prefix("---").is_some_and(|rest| {
        let rest = rest.trim();
        rest.is_empty() || rest.starts_with('#')
    })
}

fn parse_document(index: usize, line: usize, chunk: &str) -> Result<Document, YamlError> {
    parse_document_within(index, line, chunk, LIMITS)
}

fn parse_document_within(
    index: usize,
    line: usize,
    chunk: &str,
    limits: Limits,
) -> Result<Document, YamlError> {
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
    if let Some((tab_line, column)) = tabs::first_indenting_tab(chunk) {
        return Err(YamlError {
            index,
            line,
            message: format!(
                "line {}, column {column}: found a tab character where an indentation space is \
                 expected (go-yaml, which kubectl and karmadactl read files with, refuses a tab \
                 used as indentation)",
                tab_line + line - 1
            ),
        });
    }
    let value = parse_like_go_yaml(chunk, limits).map_err(|e| YamlError {
        index,
        line,
        message: describe(&e, line, limits),
    })?;
    let value = integral_floats_to_integers(value);
    Ok(Document {
        index,
        line,
        value: (!value.is_null()).then_some(value),
    })
}

/// Deepest nesting of mappings and sequences a document may have.
/// Kubernetes objects and CRD schemas often nest past 64 levels (each schema
/// level is `properties` plus a field). The API server reads JSON nested up
/// to 10,000 levels, but parsing and the conversions after it recurse per
/// level, and an unoptimized build spends ~16 KiB of stack per level: 256
/// levels keep every realistic object within a 8 MiB main-thread stack (the
/// parser already caps flow collections, `[[[...]]]` and `{{...}}`, at 255).
pub const MAX_DEPTH: usize = 256;

/// Most values (mappings, sequences and scalars) one document may hold: the
/// API server takes request bodies up to 3 MiB, and the smallest JSON value
/// with its separator (`0,`) takes two bytes.
pub const MAX_NODES: usize = 3 * 1024 * 1024 / 2;

/// Depth and size limits of one document.
#[derive(Debug, Clone, Copy)]
struct Limits {
    depth: usize,
    nodes: usize,
}

/// The limits documents are read with.
const LIMITS: Limits = Limits {
    depth: MAX_DEPTH,
    nodes: MAX_NODES,
};

/// The parser's limits: the library's defaults except depth and size.
fn budget(limits: Limits) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = limits.depth;
    budget.max_nodes = limits.nodes;
    // Every value is at least one parser event, collections two.
    budget.max_events = 2 * limits.nodes + 1_000_000;
    budget
}

/// The parser's error in words: `line L, column C: what`, with `L` a line of
/// the file (the document starts at the file's line `first_line`) and no
/// source snippet (the caller names the file).
fn describe(err: &serde_saphyr::Error, first_line: usize, limits: Limits) -> String {
    use serde_saphyr::budget::BudgetBreach;
    let mut inner = err;
    while let serde_saphyr::Error::WithSnippet { error, .. }
    | serde_saphyr::Error::AliasError { error, .. } = inner
    {
        inner = error;
    }
    let what = match inner {
        serde_saphyr::Error::Budget { breach, .. } => match breach {
            BudgetBreach::Depth { .. } => format!(
                "mappings and sequences nested more than {} levels deep (the limit)",
                limits.depth
            ),
            BudgetBreach::Nodes { .. } => {
                format!(
                    "more than {} values in one document (the limit)",
                    limits.nodes
                )
            }
            BudgetBreach::Events { .. } => format!(
                "more than {} parser events in one document (the limit)",
                budget(limits).max_events
            ),
            BudgetBreach::Aliases { .. } => {
                "too many alias references (`*name`) in one document".to_owned()
            }
            BudgetBreach::Anchors { .. } => "too many anchors (`&name`) in one document".to_owned(),
            BudgetBreach::ScalarBytes { .. } => {
                "more scalar text in one document than the limit".to_owned()
            }
            other => format!("a YAML size limit is exceeded ({other:?})"),
        },
        other => strip_location(&other.to_string()),
    };
    match err.location().and_then(|l| {
        let line = usize::try_from(l.line()).ok()?;
        Some((line, l.column()))
    }) {
        Some((line, column)) if line > 0 => {
            format!("line {}, column {column}: {what}", line + first_line - 1)
        }
        _ => what,
    }
}

/// A parser message without the document-relative position it may end with
/// (`... at line 3 column 5`): [`describe`] gives the file's position instead.
fn strip_location(message: &str) -> String {
    let message = message.trim();
    match message.rfind(" at line ") {
        Some(at)
            if message[at + " at line ".len()..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ' ' || c == ',' || c.is_ascii_alphabetic()) =>
        {
            message[..at].to_owned()
        }
        _ => message.to_owned(),
    }
}

/// Parses one document with YAML 1.1's booleans and octal numbers, reading
/// what go-yaml reads. go-yaml (libyaml) folds the
/// continuation lines of a quoted scalar whatever their indentation, and
/// kubectl writes long quoted strings with continuation lines indented like
/// their key (`message: 'a long\n  text'` inside a list item): the YAML 1.2
/// spec wants them indented further, but the parser's default (non-strict)
/// indentation reads them as go-yaml and PyYAML do, so `strict_indentation`
/// stays off.
fn parse_like_go_yaml(chunk: &str, limits: Limits) -> Result<Value, serde_saphyr::Error> {
    let options = serde_saphyr::options! {
        strict_booleans: false,
        legacy_octal_numbers: true,
        strict_indentation: false,
        budget: Some(budget(limits)),
    };
    serde_saphyr::from_str_with_options::<Value>(chunk, options)
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

    /// Quoted and plain scalars over several lines read as go-yaml (and
    /// PyYAML) read them, whatever the continuation lines' indentation.
    #[rstest::rstest]
    #[case::single_quoted_at_top_level("m: 'one\ntwo\nthree'\nn: 1\n", json!({"m": "one two three", "n": 1}))]
    #[case::double_quoted_at_top_level("m: \"one\ntwo\"\n", json!({"m": "one two"}))]
    #[case::single_quoted_several_lines_in_a_list_item(
        "items:\n- message: 'first\n  second\n  third'\n  reason: x\n",
        json!({"items": [{"message": "first second third", "reason": "x"}]})
    )]
    #[case::double_quoted_under_its_key_in_a_nested_list(
        "a:\n  b:\n  - c: \"one\n  two\"\n    d: 1\n",
        json!({"a": {"b": [{"c": "one two", "d": 1}]}})
    )]
    #[case::sequence_of_quoted_scalars("- 'one\ntwo'\n- \"three\nfour\"\n", json!(["one two", "three four"]))]
    #[case::blank_continuation_line_is_a_line_break("a: 'one\n\n  two'\n", json!({"a": "one\ntwo"}))]
    #[case::escaped_line_break("a: \"one\\\ntwo\"\n", json!({"a": "onetwo"}))]
    #[case::tab_before_continuation("a: 'one\n\ttwo'\n", json!({"a": "one two"}))]
    #[case::plain_scalar_over_lines("a:\n  b: one\n    two\n    three\n  c: 1\n", json!({"a": {"b": "one two three", "c": 1}}))]
    #[case::plain_scalar_in_a_list_item("- a: one\n    two\n  b: 2\n", json!([{"a": "one two", "b": 2}]))]
    fn multi_line_scalars_read_as_go_yaml_reads_them(#[case] text: &str, #[case] expected: Value) {
        assert_eq!(from_str(text).unwrap(), expected, "{text}");
    }

    #[test]
    fn errors_give_the_file_line_in_words_without_a_snippet() {
        let docs = documents("a: 1\n---\nb: 2\nc: [unclosed\n");
        let err = docs[1].clone().unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.starts_with("line 4, column "), "{err}");
        assert!(!err.message.contains("<input>"), "{err}");
    }

    /// `depth` mappings nested in block style (`a:` per line).
    fn nested_block(depth: usize) -> String {
        let mut text = String::new();
        for level in 0..depth {
            text.push_str(&"  ".repeat(level));
            text.push_str("a:\n");
        }
        text
    }

    /// Objects deeper than the parser library's default limit of 64, as CRD
    /// schemas are, up to [`MAX_DEPTH`], block and flow style, load on a
    /// thread with the main thread's usual 8 MiB stack (where the CLI parses).
    #[test]
    fn objects_up_to_the_depth_limit_load() {
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(|| {
                let deep = from_str(&nested_block(MAX_DEPTH)).unwrap();
                assert!(deep.pointer(&"/a".repeat(MAX_DEPTH - 1)).is_some());
                let flow = "[".repeat(200) + &"]".repeat(200);
                assert!(from_str(&flow).unwrap().is_array());
                let err = from_str(&nested_block(MAX_DEPTH + 1)).unwrap_err();
                assert!(err.message.contains("levels deep (the limit)"), "{err}");
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn limits_are_said_in_words_with_the_file_line() {
        let small = Limits {
            depth: 8,
            nodes: 50,
        };
        let err = parse_document_within(2, 3, &nested_block(9), small).unwrap_err();
        assert!(
            err.message.starts_with("line 1")
                && err.message.contains("nested more than 8 levels deep"),
            "{err}"
        );
        assert!(!err.message.contains("Depth {"), "{err}");
        let text = format!("x: 1\ny: [{}]\n", "0,".repeat(60));
        let err = parse_document_within(2, 5, &text, small).unwrap_err();
        assert!(
            err.message.starts_with("line 6, column ")
                && err.message.contains("more than 50 values in one document"),
            "{err}"
        );
        assert!(!err.message.contains("Nodes {"), "{err}");
    }

    #[test]
    fn unclosed_quotes_still_fail() {
        assert!(from_str("a: 'one\nb: 2\n").is_err());
    }

    /// Plain scalars read as go-yaml v2 (kubectl's and karmadactl's reader)
    /// reads them; each expected value is what `karmadactl interpret` gave.
    #[rstest::rstest]
    #[case::y("y", json!(true))]
    #[case::upper_y("Y", json!(true))]
    #[case::yes("yes", json!(true))]
    #[case::title_yes("Yes", json!(true))]
    #[case::on("on", json!(true))]
    #[case::upper_off("OFF", json!(false))]
    #[case::no("no", json!(false))]
    #[case::n("n", json!(false))]
    #[case::title_true("True", json!(true))]
    #[case::octal("0755", json!(493))]
    #[case::hex("0x1F", json!(31))]
    #[case::octal_o("0o17", json!(15))]
    #[case::binary("0b101", json!(5))]
    #[case::fraction(".5", json!(0.5))]
    #[case::plus("+1", json!(1))]
    #[case::exponent("1e3", json!(1000))]
    #[case::date("2024-01-01", json!("2024-01-01"))]
    #[case::quoted_y("'y'", json!("y"))]
    #[case::quoted_octal("\"0755\"", json!("0755"))]
    fn plain_scalars_read_as_go_yaml_reads_them(#[case] text: &str, #[case] expected: Value) {
        assert_eq!(
            from_str(&format!("a: {text}\n")).unwrap(),
            json!({"a": expected}),
            "{text}"
        );
    }

    #[test]
    fn numbers_keep_fractions_and_strings_stay_strings() {
        let v = from_str("a: 2.5\nb: \"3\"\nc: 1e3\nd: 7\n").unwrap();
        assert_eq!(v, json!({"a": 2.5, "b": "3", "c": 1000, "d": 7}));
    }
}
