//! Lua 5.1 patterns (`string.find`, `string.match`, `string.gmatch`),
//! ported from `lstrlib.c` so the matcher can observe the run's deadline: the
//! C matcher backtracks without ever returning to the VM, so a pathological
//! pattern could otherwise run for hours. Recursion is bounded (200 levels,
//! `pattern too complex`) so no pattern can exhaust the native stack. As in
//! gopher-lua, the number of captures is not limited.

const MAXDEPTH: usize = 200;
const CAP_UNFINISHED: isize = -1;
const CAP_POSITION: isize = -2;
const SPECIALS: &[u8] = b"^$*+?.([%-";

/// One capture: a substring (byte range) or a position (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capture {
    /// `src[start..end]`.
    Str(usize, usize),
    /// A position capture `()`.
    Pos(usize),
}

struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    /// How many bytes of the pattern as written precede `pat` (a leading
    /// `^`), for positions in messages.
    offset: usize,
    level: usize,
    /// The open and closed captures; the first `level` are current.
    capture: Vec<(usize, isize)>,
    depth: usize,
    steps: u32,
    expired: &'a dyn Fn() -> bool,
}

type R<T> = Result<T, String>;

impl<'a> Matcher<'a> {
    fn new(src: &'a [u8], pat: &'a [u8], offset: usize, expired: &'a dyn Fn() -> bool) -> Self {
        Self {
            src,
            pat,
            offset,
            level: 0,
            capture: Vec::new(),
            depth: 0,
            steps: 0,
            expired,
        }
    }

    fn tick(&mut self) -> R<()> {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(4096) && (self.expired)() {
            return Err(super::fault::DEADLINE_MESSAGE.to_owned());
        }
        Ok(())
    }

    fn p(&self, i: usize) -> u8 {
        self.pat.get(i).copied().unwrap_or(0)
    }

    fn class_end(&self, mut p: usize) -> R<usize> {
        let c = self.p(p);
        p += 1;
        if c == b'%' {
            if p >= self.pat.len() {
                return Err("malformed pattern (ends with '%')".to_owned());
            }
            return Ok(p + 1);
        }
        if c == b'[' {
            if self.p(p) == b'^' {
                p += 1;
            }
            loop {
                if p >= self.pat.len() {
                    // gopher-lua's compiler stops at the last character
                    return Err(format!(
                        "unexpected EOS at {}",
                        (self.offset + self.pat.len()).saturating_sub(1)
                    ));
                }
                let cc = self.p(p);
                p += 1;
                if cc == b'%' && p < self.pat.len() {
                    p += 1;
                }
                if self.p(p) == b']' && p < self.pat.len() {
                    break;
                }
            }
            return Ok(p + 1);
        }
        Ok(p)
    }

    fn single_match(&self, c: u8, p: usize, ep: usize) -> bool {
        match self.p(p) {
            b'.' => true,
            b'%' => match_class(c, self.p(p + 1)),
            b'[' => self.match_bracket_class(c, p, ep - 1),
            pc => pc == c,
        }
    }

    fn match_bracket_class(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.p(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= ec {
                break;
            }
            if self.p(p) == b'%' && self.p(p + 2) == b'-' && p + 3 < ec {
                // gopher-lua: an escaped character starts a range like any
                // other (`[%a-9]` is the range from `a` to `9`)
                p += 3;
                if self.p(p - 2) <= c && c <= self.p(p) {
                    return sig;
                }
            } else if self.p(p) == b'%' {
                p += 1;
                if match_class(c, self.p(p)) {
                    return sig;
                }
            } else if self.p(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if self.p(p - 2) <= c && c <= self.p(p) {
                    return sig;
                }
            } else if self.p(p) == c {
                return sig;
            }
        }
        !sig
    }

    fn do_match(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        self.depth += 1;
        if self.depth > MAXDEPTH {
            return Err("pattern too complex".to_owned());
        }
        let r = self.match_inner(s, p);
        self.depth -= 1;
        r
    }

    fn match_inner(&mut self, mut s: usize, mut p: usize) -> R<Option<usize>> {
        loop {
            self.tick()?;
            if p >= self.pat.len() {
                return Ok(Some(s));
            }
            match self.p(p) {
                b'(' => {
                    return if self.p(p + 1) == b')' {
                        self.start_capture(s, p + 2, CAP_POSITION)
                    } else {
                        self.start_capture(s, p + 1, CAP_UNFINISHED)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'%' if p + 1 < self.pat.len() && self.p(p + 1) == b'b' => {
                    match self.match_balance(s, p + 2)? {
                        Some(ns) => {
                            s = ns;
                            p += 4;
                            continue;
                        }
                        None => return Ok(None),
                    }
                }
                b'%' if p + 1 < self.pat.len() && self.p(p + 1).is_ascii_digit() => {
                    match self.match_capture(s, self.p(p + 1))? {
                        Some(ns) => {
                            s = ns;
                            p += 2;
                            continue;
                        }
                        None => return Ok(None),
                    }
                }
                b'$' if p + 1 == self.pat.len() => {
                    return Ok((s == self.src.len()).then_some(s));
                }
                _ => {}
            }
            let ep = self.class_end(p)?;
            let m = s < self.src.len() && self.single_match(self.src[s], p, ep);
            match self.p(ep) {
                b'?' if ep < self.pat.len() => {
                    if m {
                        if let Some(r) = self.do_match(s + 1, ep + 1)? {
                            return Ok(Some(r));
                        }
                    }
                    p = ep + 1;
                }
                b'*' if ep < self.pat.len() => return self.max_expand(s, p, ep),
                b'+' if ep < self.pat.len() => {
                    return if m {
                        self.max_expand(s + 1, p, ep)
                    } else {
                        Ok(None)
                    };
                }
                b'-' if ep < self.pat.len() => return self.min_expand(s, p, ep),
                _ => {
                    if !m {
                        return Ok(None);
                    }
                    s += 1;
                    p = ep;
                }
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> R<Option<usize>> {
        let mut i = 0usize;
        while s + i < self.src.len() && self.single_match(self.src[s + i], p, ep) {
            self.tick()?;
            i += 1;
        }
        loop {
            if let Some(r) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> R<Option<usize>> {
        loop {
            if let Some(r) = self.do_match(s, ep + 1)? {
                return Ok(Some(r));
            }
            if s < self.src.len() && self.single_match(self.src[s], p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> R<Option<usize>> {
        self.capture.truncate(self.level);
        self.capture.push((s, what));
        self.level += 1;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        let l = (0..self.level)
            .rev()
            .find(|&l| self.capture[l].1 == CAP_UNFINISHED)
            .ok_or_else(|| {
                // gopher-lua's pattern compiler names the position of the
                // character before the `)` (0 when there is none)
                format!("invalid ')' at {}", (self.offset + p).saturating_sub(2))
            })?;
        self.capture[l].1 = (s - self.capture[l].0) as isize;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.capture[l].1 = CAP_UNFINISHED;
        }
        Ok(r)
    }

    fn match_balance(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Ok(None); // gopher-lua: no match, no error
        }
        if s >= self.src.len() || self.src[s] != self.p(p) {
            return Ok(None);
        }
        let (b, e) = (self.p(p), self.p(p + 1));
        let mut cont = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            self.tick()?;
            let c = self.src[i];
            if c == e {
                cont -= 1;
                if cont == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == b {
                cont += 1;
            }
            i += 1;
        }
        Ok(None)
    }

    fn match_capture(&mut self, s: usize, d: u8) -> R<Option<usize>> {
        let l = usize::from(d.wrapping_sub(b'1'));
        if l >= self.level || self.capture[l].1 == CAP_UNFINISHED {
            return Err("invalid capture index".to_owned());
        }
        let (start, len) = self.capture[l];
        let len = usize::try_from(len).unwrap_or(0);
        if self.src.len() - s >= len && self.src[start..start + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    fn captures(&self, s: usize, e: usize, whole_if_none: bool) -> R<Vec<Capture>> {
        if self.level == 0 {
            return Ok(if whole_if_none {
                vec![Capture::Str(s, e)]
            } else {
                Vec::new()
            });
        }
        (0..self.level)
            .map(|i| {
                let (start, len) = self.capture[i];
                match len {
                    CAP_UNFINISHED => Err("unfinished capture at EOS".to_owned()),
                    CAP_POSITION => Ok(Capture::Pos(start + 1)),
                    len => Ok(Capture::Str(start, start + len as usize)),
                }
            })
            .collect()
    }
}

fn match_class(c: u8, cl: u8) -> bool {
    let res = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c < 32 || c == 127,
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return cl == c,
    };
    if cl.is_ascii_uppercase() {
        !res
    } else {
        res
    }
}

/// A pattern ending in an unescaped `%`: gopher-lua matches nothing with it
/// (no error).
fn trailing_escape(pat: &[u8]) -> bool {
    pat.iter().rev().take_while(|&&b| b == b'%').count() % 2 == 1
}

/// Lua's relative string position → 0-based start offset.
fn start_offset(init: i64, len: usize) -> Option<usize> {
    let len_i = len as i64;
    let pos = if init < 0 { len_i + init + 1 } else { init };
    let pos = pos.max(1) - 1;
    (pos <= len_i).then_some(pos as usize)
}

/// What a successful `find` or `match` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// 0-based start and end (exclusive) of the whole match.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// Explicit captures (for `match`: the whole match when there are none).
    pub captures: Vec<Capture>,
}

/// gopher-lua's pattern scanner (`pm.scanner`), for [`check`]: a position
/// (`None` once past the end, gopher-lua's `EOS`), a `peek` that steps back
/// as gopher-lua's does, and the positions its messages name.
struct Scanner<'a> {
    src: &'a [u8],
    pos: Option<usize>,
    started: bool,
    saved: (Option<usize>, bool),
}

impl Scanner<'_> {
    fn next_pos(&self) -> Option<usize> {
        let p = self.pos?;
        if p + 1 >= self.src.len() {
            None
        } else if !self.started {
            Some(0)
        } else {
            Some(p + 1)
        }
    }

    fn next(&mut self) -> Option<u8> {
        if !self.started {
            self.started = true;
            if self.src.is_empty() {
                self.pos = None;
            }
        } else {
            self.pos = self.next_pos();
        }
        self.src.get(self.pos?).copied()
    }

    fn peek(&mut self) -> Option<u8> {
        let at_end = self.pos.is_none();
        let ch = self.next();
        if !at_end {
            self.pos = match self.pos {
                None => Some(self.src.len().saturating_sub(1)),
                Some(0) => {
                    self.started = false;
                    Some(0)
                }
                Some(p) => Some(p - 1),
            };
        }
        ch
    }

    fn error(&self, message: &str) -> String {
        match self.pos {
            Some(p) => format!("{message} at {p}"),
            None => format!("{message} at EOS"),
        }
    }
}

/// gopher-lua compiles the whole pattern before matching, so a malformed
/// pattern fails whatever the subject (`string.match('xyz', 'a)')` is
/// `invalid ')' at 0`, not `nil`): its parser's errors, at its positions.
/// Nesting beyond the matcher's depth is left to the matcher.
fn check(pat: &[u8]) -> R<()> {
    let mut sc = Scanner {
        src: pat,
        pos: Some(0),
        started: false,
        saved: (Some(0), false),
    };
    check_sequence(&mut sc, true, 0)
}

fn check_sequence(sc: &mut Scanner<'_>, toplevel: bool, depth: usize) -> R<()> {
    if depth > MAXDEPTH {
        return Ok(());
    }
    if toplevel && sc.peek() == Some(b'^') {
        sc.next();
    }
    loop {
        match sc.peek() {
            Some(b'%') => {
                sc.saved = (sc.pos, sc.started);
                sc.next();
                match sc.peek() {
                    Some(b'0') => return Err(sc.error("invalid capture index")),
                    Some(b'1'..=b'9') => {
                        sc.next();
                    }
                    Some(b'b') => {
                        sc.next();
                        sc.next();
                        sc.next();
                    }
                    _ => {
                        (sc.pos, sc.started) = sc.saved;
                        check_class(sc, true)?;
                    }
                }
            }
            Some(b'.' | b'[' | b']') => check_class(sc, true)?,
            Some(b')') if toplevel => return Err(sc.error("invalid ')'")),
            Some(b')') => return Ok(()),
            Some(b'(') => {
                sc.next();
                if sc.peek() == Some(b')') {
                    sc.next();
                } else {
                    check_sequence(sc, false, depth + 1)?;
                    if sc.peek() != Some(b')') {
                        return Err(sc.error("unfinished capture"));
                    }
                    sc.next();
                }
            }
            None => {
                sc.next();
                return Ok(());
            }
            Some(_) => {
                sc.next();
            }
        }
    }
}

fn check_class(sc: &mut Scanner<'_>, allow_set: bool) -> R<()> {
    match sc.next() {
        Some(b'%') => {
            sc.next();
        }
        Some(b'[') if allow_set => {
            if sc.peek() == Some(b'^') {
                sc.next();
            }
            // classes so far; a range counts as one
            let mut classes = 0usize;
            let mut range = false;
            loop {
                match sc.peek() {
                    None => return Err(sc.error("unexpected EOS")),
                    Some(b']') if classes > 0 => {
                        sc.next();
                        return Ok(());
                    }
                    Some(b'-') if classes > 0 => {
                        sc.next();
                        range = true;
                        continue;
                    }
                    Some(_) => {
                        check_class(sc, false)?;
                        if range {
                            range = false;
                        } else {
                            classes += 1;
                        }
                    }
                }
            }
        }
        None => return Err(sc.error("unexpected EOS")),
        Some(_) => {}
    }
    Ok(())
}

/// `string.find` (plain or pattern) and `string.match`.
pub fn find(
    src: &[u8],
    pat: &[u8],
    init: i64,
    plain: bool,
    is_find: bool,
    expired: &dyn Fn() -> bool,
) -> R<Option<Found>> {
    // gopher-lua parses the pattern before anything else (a plain `find`
    // has none); a pattern that passes has no `)` outside a capture, so one
    // without specials is a plain text
    if !(is_find && plain) {
        check(pat)?;
    }
    let Some(init) = start_offset(init, src.len()) else {
        return Ok(None);
    };
    if is_find && (plain || !pat.iter().any(|b| SPECIALS.contains(b))) {
        if pat.is_empty() {
            return Ok(Some(Found {
                start: init,
                end: init,
                captures: Vec::new(),
            }));
        }
        return Ok(src[init..]
            .windows(pat.len())
            .position(|w| w == pat)
            .map(|i| Found {
                start: init + i,
                end: init + i + pat.len(),
                captures: Vec::new(),
            }));
    }
    let (anchor, pat) = match pat.split_first() {
        Some((b'^', rest)) => (true, rest),
        _ => (false, pat),
    };
    if trailing_escape(pat) {
        return Ok(None);
    }
    let mut m = Matcher::new(src, pat, usize::from(anchor), expired);
    let mut s1 = init;
    loop {
        m.level = 0;
        m.depth = 0;
        if let Some(e) = m.do_match(s1, 0)? {
            return Ok(Some(Found {
                start: s1,
                end: e,
                captures: m.captures(s1, e, !is_find)?,
            }));
        }
        s1 += 1;
        if anchor || s1 > src.len() {
            return Ok(None);
        }
    }
}

/// `string.gmatch`, computed eagerly: the captures of every match.
/// As in gopher-lua, a leading `^` anchors it: at most one match, at the start.
pub fn gmatch(src: &[u8], pat: &[u8], expired: &dyn Fn() -> bool) -> R<Vec<Vec<Capture>>> {
    check(pat)?;
    let (anchor, pat) = match pat.split_first() {
        Some((b'^', rest)) => (true, rest),
        _ => (false, pat),
    };
    let mut out = Vec::new();
    if trailing_escape(pat) {
        return Ok(out);
    }
    let mut m = Matcher::new(src, pat, usize::from(anchor), expired);
    let mut s = 0usize;
    while s <= src.len() && !(anchor && s > 0) {
        m.level = 0;
        m.depth = 0;
        match m.do_match(s, 0)? {
            Some(e) => {
                out.push(m.captures(s, e, true)?);
                s = if e == s { s + 1 } else { e };
            }
            None => s += 1,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never() -> bool {
        false
    }

    fn fm(s: &str, p: &str) -> Option<Vec<String>> {
        find(s.as_bytes(), p.as_bytes(), 1, false, false, &never)
            .unwrap()
            .map(|f| {
                f.captures
                    .iter()
                    .map(|c| match c {
                        Capture::Str(a, b) => s[*a..*b].to_owned(),
                        Capture::Pos(p) => p.to_string(),
                    })
                    .collect()
            })
    }

    #[test]
    fn lua_patterns() {
        assert_eq!(fm("hello world", "o w"), Some(vec!["o w".into()]));
        assert_eq!(
            fm("key=value", "(%w+)=(%w+)"),
            Some(vec!["key".into(), "value".into()])
        );
        assert_eq!(fm("  trim  ", "^%s*(.-)%s*$"), Some(vec!["trim".into()]));
        assert_eq!(
            fm("v1.2.3", "^v(%d+)%.(%d+)"),
            Some(vec!["1".into(), "2".into()])
        );
        assert_eq!(fm("abc", "()b()"), Some(vec!["2".into(), "3".into()]));
        assert_eq!(fm("f(a(b)c)d", "%b()"), Some(vec!["(a(b)c)".into()]));
        // no frontier in gopher-lua: `%f` is the letter (Karmada's answer
        // in tests/data/gopher-probes/patterns.yaml, find-frontier)
        assert_eq!(fm("THE (quick) fox", "%f[%a]%a+"), Some(vec!["fox".into()]));
        assert_eq!(fm("abab", "(ab)%1"), Some(vec!["ab".into()]));
        assert_eq!(fm("x]y", "[]]"), Some(vec!["]".into()]));
        assert_eq!(fm("a-b", "[%-]"), Some(vec!["-".into()]));
        assert_eq!(
            fm("2024-10-01T09:05:00Z", "^(%d%d%d%d)%-(%d%d)"),
            Some(vec!["2024".into(), "10".into()])
        );
        assert_eq!(fm("abc", "x"), None);
        assert_eq!(fm("aaa", "^a-$"), Some(vec!["aaa".into()]));
    }

    #[test]
    fn find_positions_and_plain() {
        let f = find(b"a.b", b".", 1, true, true, &never).unwrap().unwrap();
        assert_eq!((f.start, f.end), (1, 2));
        let f = find(b"abcabc", b"b", -3, false, true, &never)
            .unwrap()
            .unwrap();
        assert_eq!(f.start, 4);
        assert_eq!(find(b"abc", b"a", 10, false, true, &never).unwrap(), None);
    }

    #[test]
    fn malformed_patterns() {
        let e = |p: &str| find(b"abc", p.as_bytes(), 1, false, false, &never).unwrap_err();
        assert_eq!(e("[a"), "unexpected EOS at 1");
        assert_eq!(e("(a"), "unfinished capture at EOS");
        assert_eq!(e("a)"), "invalid ')' at 0");
        assert_eq!(e("ab)"), "invalid ')' at 1");
        assert_eq!(e(")"), "invalid ')' at 0");
        assert_eq!(e("^ab)"), "invalid ')' at 2");
        assert_eq!(e("%1"), "invalid capture index");
    }

    /// gopher-lua parses the whole pattern first: its errors do not depend
    /// on the subject (positions as its scanner reports them).
    #[rstest::rstest]
    #[case("a)", "invalid ')' at 0")]
    #[case("xy)", "invalid ')' at 1")]
    #[case("a[b", "unexpected EOS at 2")]
    #[case("a[%", "unexpected EOS at EOS")]
    #[case("a(b", "unfinished capture at EOS")]
    #[case("a%0", "invalid capture index at 1")]
    #[case("^a)", "invalid ')' at 1")]
    fn malformed_patterns_fail_whatever_the_subject(#[case] pat: &str, #[case] message: &str) {
        let e = find(b"zzz", pat.as_bytes(), 1, false, false, &never).unwrap_err();
        assert_eq!(e, message);
        assert_eq!(gmatch(b"zzz", pat.as_bytes(), &never).unwrap_err(), message);
        // also from past the end of the subject, and in `find` (unless plain)
        let e = find(b"zzz", pat.as_bytes(), 10, false, false, &never).unwrap_err();
        assert_eq!(e, message);
        let e = find(b"zzz", pat.as_bytes(), 1, false, true, &never).unwrap_err();
        assert_eq!(e, message);
        assert!(find(b"zzz", pat.as_bytes(), 1, true, true, &never).is_ok());
    }

    /// gopher-lua: a trailing `%` and a one-character `%b` match nothing,
    /// `%f` is the letter `f`, a leading `^` anchors `gmatch`.
    #[test]
    fn gopher_lua_pattern_edges() {
        assert_eq!(fm("a%", "a%"), None);
        assert_eq!(fm("x(y", "%b("), None);
        assert_eq!(gmatch(b"aaa", b"^a", &never).unwrap().len(), 1);
        assert_eq!(gmatch(b"baa", b"^a", &never).unwrap().len(), 0);
    }

    #[test]
    fn gmatch_all() {
        let all = gmatch(b"a=1, b=2", b"(%w+)=(%w+)", &never).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(gmatch(b"abc", b"", &never).unwrap().len(), 4);
    }

    #[test]
    fn backtracking_observes_the_deadline() {
        let src = vec![b'a'; 5000];
        let err = find(&src, b"a*a*a*a*a*b", 1, false, true, &|| true).unwrap_err();
        assert_eq!(err, "context deadline exceeded");
    }

    #[test]
    fn deep_patterns_are_refused() {
        let pat = "a?".repeat(300);
        let src = "a".repeat(300);
        let err = find(src.as_bytes(), pat.as_bytes(), 1, false, true, &never).unwrap_err();
        assert_eq!(err, "pattern too complex");
    }
}
