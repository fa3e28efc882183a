//! Tabs where go-yaml wants indentation spaces.
//!
//! go-yaml (libyaml's scanner, what kubectl and karmadactl read files with)
//! treats a tab as white space only where no block token may start: inside
//! flow collections (`[...]`, `{...}`), quoted scalars, after a mapping key's
//! `:` and after scalars. At the start of a line in block context, and right
//! after a block indicator (`-`, `?`, a complex key's `:`), a tab is not white
//! space and the file is refused (`found character that cannot start any
//! token`); a tab in a block scalar's indentation or in the lines that follow
//! a plain scalar, left of the current indentation, is refused as well
//! (`found a tab character where an indentation space is expected`, `found a
//! tab character that violates indentation`). The parser this project reads
//! YAML with accepts some of these shapes (`-<tab>item`, a tab-indented
//! comment or blank line); [`first_indenting_tab`] finds them so that such a
//! file is refused as karmadactl refuses it, naming the line.
//!
//! The scan follows the scanner's states line by line (block scalars, plain
//! scalars continued over lines, quoted scalars and flow collections spanning
//! lines); a shape it does not recognize is left to the parser.

/// What the lines that follow depend on.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// Block context after a line break: leading white space must be spaces.
    Block,
    /// After a plain scalar that ended the line: the scanner consumes the
    /// following lines' leading white space itself, refusing a tab only left
    /// of `indent` (the scalar's block indentation plus one).
    AfterPlain { indent: usize },
    /// Inside a block scalar (`|`, `>`) whose owner is indented `parent`;
    /// `indent` is the content's indentation once a content line fixed it.
    BlockScalar {
        parent: usize,
        indent: Option<usize>,
    },
    /// Inside a quoted scalar that continues on the next line.
    Quoted { quote: u8 },
    /// Inside flow collections (`depth` open brackets), where tabs are blanks.
    Flow { depth: usize, quote: Option<u8> },
}

/// The 1-based (line, column) of the first tab go-yaml refuses as
/// indentation in `text` (one document), or `None`.
pub(crate) fn first_indenting_tab(text: &str) -> Option<(usize, usize)> {
    if !text.contains('\t') {
        return None;
    }
    let mut state = State::Block;
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        match scan_line(bytes, state) {
            Ok(next) => state = next,
            Err(column) => return Some((i + 1, column + 1)),
        }
    }
    None
}

/// Column of the first byte of `bytes` from `from` that is not a space.
fn skip_spaces(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() && bytes[i] == b' ' {
        i += 1;
    }
    i
}

/// Column of the first byte from `from` that is neither a space nor a tab.
fn skip_blanks(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    i
}

/// The state after one line, or the column of a refused tab.
fn scan_line(bytes: &[u8], state: State) -> Result<State, usize> {
    match state {
        State::Quoted { quote } => match close_quote(bytes, 0, quote) {
            Some(end) => after_value(bytes, end, usize::MAX),
            None => Ok(state),
        },
        State::Flow { depth, quote } => Ok(flow(bytes, 0, depth, quote)),
        State::BlockScalar { parent, indent } => {
            let start = skip_spaces(bytes, 0);
            let limit = indent.unwrap_or(usize::MAX);
            if start < bytes.len() && bytes[start] == b'\t' && start < limit {
                return Err(start);
            }
            if start >= bytes.len() {
                return Ok(state); // a blank line of the scalar
            }
            match indent {
                Some(indent) if start >= indent => Ok(state),
                None if start > parent => Ok(State::BlockScalar {
                    parent,
                    indent: Some(start),
                }),
                // Less indented: the scalar ended; the line is block content.
                _ => line_content(bytes, start),
            }
        }
        State::AfterPlain { indent } => {
            let start = skip_blanks(bytes, 0);
            if let Some(tab) = bytes[..start].iter().position(|&b| b == b'\t') {
                if tab < indent {
                    return Err(tab);
                }
            }
            if start >= bytes.len() {
                return Ok(state);
            }
            if bytes[start] == b'#' {
                return Ok(State::Block);
            }
            if start >= indent {
                // The plain scalar goes on over this line.
                return Ok(state);
            }
            line_content(bytes, start)
        }
        State::Block => {
            let start = skip_spaces(bytes, 0);
            if start < bytes.len() && bytes[start] == b'\t' {
                return Err(start);
            }
            if start >= bytes.len() {
                return Ok(State::Block);
            }
            line_content(bytes, start)
        }
    }
}

/// A line of block content whose first token starts at `start`.
fn line_content(bytes: &[u8], start: usize) -> Result<State, usize> {
    let mut i = start;
    // The indentation of the collection the line's value belongs to: the
    // last block indicator's column, or the node's own.
    let mut indicator = None;
    // Block indicators: `-`, `?`, and `:` (a complex key's value), each
    // followed by white space in which go-yaml allows no tab.
    while i < bytes.len() && matches!(bytes[i], b'-' | b'?' | b':') {
        let next = bytes.get(i + 1).copied();
        if !matches!(next, None | Some(b' ') | Some(b'\t')) {
            break;
        }
        indicator = Some(i);
        let after = skip_blanks(bytes, i + 1);
        if let Some(tab) = bytes[i + 1..after].iter().position(|&b| b == b'\t') {
            return Err(i + 1 + tab);
        }
        i = after;
    }
    if i >= bytes.len() || bytes[i] == b'#' {
        return Ok(State::Block);
    }
    node(bytes, i, indicator.unwrap_or(i))
}

/// A node starting at `i` in a collection indented `owner`: a key with its
/// value, or a value.
fn node(bytes: &[u8], i: usize, owner: usize) -> Result<State, usize> {
    let mut i = i;
    // Anchors, tags and aliases: white space after them may hold tabs.
    while i < bytes.len() && matches!(bytes[i], b'&' | b'!' | b'*') {
        while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        i = skip_blanks(bytes, i);
    }
    if i >= bytes.len() || bytes[i] == b'#' {
        return Ok(State::Block);
    }
    match bytes[i] {
        b'\'' | b'"' => match close_quote(bytes, i + 1, bytes[i]) {
            // A quoted key (`"a": 1`) or a quoted value.
            Some(end) => after_value(bytes, end, owner),
            None => Ok(State::Quoted { quote: bytes[i] }),
        },
        b'[' | b'{' => Ok(flow(bytes, i, 0, None)),
        b'|' | b'>' => Ok(block_scalar(bytes, i, owner)),
        _ => {
            // A plain scalar: a key when `: ` (or `:` at the end) follows.
            let mut j = i;
            while j < bytes.len() {
                if bytes[j] == b':' && matches!(bytes.get(j + 1), None | Some(b' ') | Some(b'\t')) {
                    let value = skip_blanks(bytes, j + 1);
                    return value_after_key(bytes, value, i);
                }
                if bytes[j] == b'#' && j > i && matches!(bytes[j - 1], b' ' | b'\t') {
                    break;
                }
                j += 1;
            }
            Ok(State::AfterPlain { indent: owner + 1 })
        }
    }
}

/// The value of a key that starts at column `key`, from `i` (tabs before it
/// are blanks: a simple key's `:` allows no further simple key).
fn value_after_key(bytes: &[u8], i: usize, key: usize) -> Result<State, usize> {
    if i >= bytes.len() || bytes[i] == b'#' {
        return Ok(State::Block);
    }
    node(bytes, i, key)
}

/// After a quoted scalar closed before `end`: `: value` when it was a key.
fn after_value(bytes: &[u8], end: usize, owner: usize) -> Result<State, usize> {
    let i = skip_blanks(bytes, end);
    if i < bytes.len() && bytes[i] == b':' && owner != usize::MAX {
        let value = skip_blanks(bytes, i + 1);
        return value_after_key(bytes, value, owner);
    }
    Ok(State::Block)
}

/// The position after the quote closing a scalar opened before `from`.
fn close_quote(bytes: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        if quote == b'"' && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Flow collections from `i` with `depth` open brackets (and maybe an open
/// quote) at the line's start: the state at its end.
fn flow(bytes: &[u8], i: usize, depth: usize, quote: Option<u8>) -> State {
    let (mut depth, mut quote, mut i) = (depth, quote, i);
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if q == b'"' && b == b'\\' {
                i += 2;
                continue;
            }
            if b == q {
                if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                quote = None;
            }
        } else {
            match b {
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth = depth.saturating_sub(1),
                b'\'' | b'"' => quote = Some(b),
                b'#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t') => break,
                _ => {}
            }
        }
        i += 1;
    }
    if depth == 0 && quote.is_none() {
        State::Block
    } else {
        State::Flow { depth, quote }
    }
}

/// A block scalar header at `i` (`|`, `>`, with indicators) owned by a
/// collection indented `owner`.
fn block_scalar(bytes: &[u8], i: usize, owner: usize) -> State {
    let mut j = i + 1;
    let mut indent = None;
    while j < bytes.len() && matches!(bytes[j], b'+' | b'-' | b'1'..=b'9') {
        if bytes[j].is_ascii_digit() {
            indent = Some(owner + usize::from(bytes[j] - b'0'));
        }
        j += 1;
    }
    State::BlockScalar {
        parent: owner,
        indent,
    }
}

#[cfg(test)]
mod tests {
    use super::first_indenting_tab;

    /// Shapes checked against karmadactl (go-yaml v2): `Some` where it
    /// refuses the file, `None` where it reads it.
    #[rstest::rstest]
    #[case::dash_then_tab("a:\n-\tx\n", Some((2, 2)))]
    #[case::dash_space_tab("a:\n- \tx\n", Some((2, 3)))]
    #[case::question_then_tab("a:\n  ?\tk\n  :\tv\n", Some((2, 4)))]
    #[case::tab_comment_after_plain("a: b\n\t# c\nd: e\n", Some((2, 1)))]
    #[case::tab_blank_after_plain("a:\n  b: c\n\t\nd: e\n", Some((3, 1)))]
    #[case::tab_comment_after_key("a:\n\t# c\n  b: 1\n", Some((2, 1)))]
    #[case::tab_indented_key("a:\n\tb: 1\n", Some((2, 1)))]
    #[case::block_scalar_tab_indent("a: |\n  x\n\ty\n", Some((3, 1)))]
    #[case::block_scalar_first_line_tab("a: |\n\tx\n", Some((2, 1)))]
    #[case::block_scalar_blank_tab_left("a: |\n    x\n  \t\n    y\n", Some((3, 3)))]
    #[case::plain_continuation_tab_left("m:\n  a: one\n\ttwo\n", Some((3, 1)))]
    #[case::tab_after_colon("a:\tb\n", None)]
    #[case::tab_before_colon("a\t: b\n", None)]
    #[case::trailing_tab("a: b\t\n", None)]
    #[case::tab_inside_value("a: b\tc\n", None)]
    #[case::flow_tabs("a: {b: c,\td: e}\n", None)]
    #[case::flow_over_lines_with_tabs("a: [\n\t1,\n\t2\n]\n", None)]
    #[case::json_with_tabs("{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n", None)]
    #[case::quoted_continuation_tab("a: 'one\n\ttwo'\n", None)]
    #[case::double_quoted_continuation_tab("a: \"one\n\ttwo\"\nb: 1\n", None)]
    #[case::block_scalar_tab_content("a: |\n  x\n  \ty\n", None)]
    #[case::block_scalar_tab_blank_inside("a: |\n  x\n  \t\n  y\n", None)]
    #[case::plain_continuation_tab_right("m:\n  a: one\n     \ttwo\n", None)]
    #[case::dash_then_key_tab_value("- a:\tb\n", None)]
    #[case::block_scalar_then_key("a: |\n  x\nb: 1\n", None)]
    #[case::anchor_then_tab("a: &x\tb\n", None)]
    fn tabs_are_refused_where_go_yaml_refuses_them(
        #[case] text: &str,
        #[case] expected: Option<(usize, usize)>,
    ) {
        assert_eq!(first_indenting_tab(text), expected, "{text:?}");
    }
}
