//! Accepting observed outputs into case files (`test --update`): the
//! `output:` of one case document is replaced by what the operation
//! produced, every other line of the file (comments, key order, quoting,
//! the other cases) left as it was.

use serde_json::{Map, Value};

/// Why an output could not be written into a case file's text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// The file has no document at that position.
    #[error("case #{index}: no such document in the file")]
    NoDocument {
        /// 1-based position of the document.
        index: usize,
    },
    /// The output could not be written as YAML.
    #[error("case #{index}: cannot write the output as YAML: {message}")]
    Encode {
        /// 1-based position of the document.
        index: usize,
        /// The encoder's message.
        message: String,
    },
    /// The rewritten document does not read back as the output written
    /// (a layout this rewriter does not understand): nothing is written.
    #[error("case #{index}: the rewritten case does not read back as the new output; edit the file by hand")]
    NotRoundTripping {
        /// 1-based position of the document.
        index: usize,
    },
}

/// `text` with the `output:` of its `index`-th document (1-based, as
/// [`karmada_interpreter::yaml::documents`] counts) replaced by `output`; a document
/// without `output:` gets one at its end. The result is checked: the
/// document must read back with exactly `output`.
///
/// ```
/// use karmada_interpreter_golden::update::replace_output;
///
/// let text = "# health of a pod\nname: ready\noperation: InterpretHealth\noutput:\n  healthy: false # wrong\n---\nname: other\n";
/// let output = serde_json::json!({"healthy": true});
/// let new = replace_output(text, 1, output.as_object().unwrap()).unwrap();
/// assert_eq!(new, "# health of a pod\nname: ready\noperation: InterpretHealth\noutput:\n  healthy: true\n---\nname: other\n");
/// ```
pub fn replace_output(
    text: &str,
    index: usize,
    output: &Map<String, Value>,
) -> Result<String, UpdateError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (start, end) = document_lines(text, index).ok_or(UpdateError::NoDocument { index })?;
    let yaml = serde_saphyr::to_string(&Value::Object(output.clone())).map_err(|e| {
        UpdateError::Encode {
            index,
            message: e.to_string(),
        }
    })?;
    let mut block = String::from("output:\n");
    for line in yaml.lines() {
        if !line.is_empty() {
            block.push_str("  ");
        }
        block.push_str(line);
        block.push('\n');
    }
    // The `output` key at the document's top level, and its block: the
    // lines after it that are indented (or a sequence at its column), up
    // to the last such line (comments and blank lines after it stay).
    let key_at = (start..end).find(|&i| is_top_level_key(lines[i], "output"));
    let (from, to) = match key_at {
        Some(k) => {
            let mut last = k;
            for (i, line) in lines.iter().enumerate().take(end).skip(k + 1) {
                let trimmed = line.trim();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                if line.starts_with([' ', '\t']) || line.starts_with("- ") {
                    last = i;
                } else {
                    break;
                }
            }
            (k, last + 1)
        }
        None => {
            // After the document's last line with content.
            let last = (start..end)
                .rev()
                .find(|&i| !lines[i].trim().is_empty())
                .map_or(start, |i| i + 1);
            (last, last)
        }
    };
    let mut out = String::with_capacity(text.len() + block.len());
    for line in &lines[..from] {
        out.push_str(line);
    }
    if from > 0 && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&block);
    for line in &lines[to..] {
        out.push_str(line);
    }
    let reads_back = karmada_interpreter::yaml::documents(&out)
        .into_iter()
        .nth(index - 1)
        .and_then(Result::ok)
        .and_then(|d| d.value)
        .and_then(|v| v.get("output").cloned())
        .is_some_and(|v| v == Value::Object(output.clone()));
    if reads_back {
        Ok(out)
    } else {
        Err(UpdateError::NotRoundTripping { index })
    }
}

/// The 0-based line range `[start, end)` of the `index`-th document.
fn document_lines(text: &str, index: usize) -> Option<(usize, usize)> {
    if index == 0 {
        return None;
    }
    let docs = karmada_interpreter::yaml::documents(text);
    let line = match docs.get(index - 1)? {
        Ok(d) => d.line,
        Err(e) => e.line,
    };
    let start = line.saturating_sub(1);
    let end = text
        .lines()
        .enumerate()
        .skip(start)
        .find(|(_, l)| karmada_interpreter::yaml::is_separator(l))
        .map_or_else(|| text.lines().count(), |(i, _)| i);
    Some((start, end))
}

/// Whether `line` is `key:` at column 0 (any letter case, as case keys are read).
fn is_top_level_key(line: &str, key: &str) -> bool {
    line.get(..key.len())
        .is_some_and(|k| k.eq_ignore_ascii_case(key))
        && line[key.len()..].trim_start().starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn replaces_a_nested_output_and_keeps_the_rest() {
        let text = "\
name: a
operation: InterpretStatus
# the status
output:
  status:
    replicas: 1
    # inner comment
    ready: 0

# trailing comment
---
name: b
output:
  replica: 2
";
        let new = replace_output(text, 1, &map(json!({"status": {"replicas": 3}}))).unwrap();
        assert_eq!(
            new,
            "\
name: a
operation: InterpretStatus
# the status
output:
  status:
    replicas: 3

# trailing comment
---
name: b
output:
  replica: 2
"
        );
        let second = replace_output(&new, 2, &map(json!({"replica": 5}))).unwrap();
        assert!(
            second.ends_with("name: b\noutput:\n  replica: 5\n"),
            "{second}"
        );
        assert!(second.starts_with(&new[..new.find("---").unwrap()]));
    }

    #[test]
    fn adds_an_output_where_there_is_none() {
        let text = "name: a\noperation: InterpretReplica\n\n---\nname: b\n";
        let new = replace_output(text, 1, &map(json!({"replica": 1}))).unwrap();
        assert_eq!(
            new,
            "name: a\noperation: InterpretReplica\noutput:\n  replica: 1\n\n---\nname: b\n"
        );
    }

    #[test]
    fn inline_outputs_and_lists_are_replaced_whole() {
        let text = "name: a\noutput: {dependencies: [{kind: ConfigMap}]}\ndescription: x\n";
        let new = replace_output(text, 1, &map(json!({"dependencies": []}))).unwrap();
        assert!(new.contains("description: x"), "{new}");
        let doc = karmada_interpreter::yaml::documents(&new)
            .remove(0)
            .unwrap()
            .value
            .unwrap();
        assert_eq!(doc["output"], json!({"dependencies": []}));
    }

    #[test]
    fn a_missing_document_is_an_error() {
        let err = replace_output("name: a\n", 3, &Map::new()).unwrap_err();
        assert!(matches!(err, UpdateError::NoDocument { index: 3 }));
    }
}
