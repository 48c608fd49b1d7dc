//! Matching a URI against a [`UriTemplate`]: a two-ended scan without backtracking.
//!
//! The template is lowered to alternating *runs* (literal text, with operator prefixes,
//! separators and `name=` folded in) and *captures* (one per variable):
//! `run0 cap0 run1 cap1 … capN-1 runN`. `UriTemplate::new` refuses an empty run between
//! two captures and more than one *greedy* capture (`{+var}`, `{#var}`), so:
//!
//! - without a greedy capture, the scan goes right to left: each capture ends where the
//!   previous step left off and starts just after the *rightmost* occurrence of its run
//!   that leaves it non-empty and free of its operator's stop characters; `run0` must sit
//!   at offset 0. This gives the earlier variable the longer value, as a regex of greedy
//!   groups would (`{name}.{ext}` on `a.tar.gz` gives `a.tar` and `gz`).
//! - with a greedy capture, the captures after it are scanned right to left as above, the
//!   captures before it left to right, each ending at the *first* occurrence of the next
//!   run; the greedy capture takes what is left between them.
//!
//! Each capture costs at most (its span × its run's length) comparisons, so a match is
//! O(uri length × template length) and never exponential.

use super::template::{
    MAX_VARS, Operator, Part, Parts, TemplateError, TemplateErrorKind, UriTemplate, Vars,
};

/// Literal text the URI must contain between two captures: template literal, then the
/// operator's first/separator character, then `name` (and `=`) for named operators.
#[derive(Clone, Copy, Default)]
struct Run<'a> {
    lit: &'a str,
    lead: &'static str,
    name: &'a str,
    eq: bool,
}

impl Run<'_> {
    fn pieces(&self) -> [&[u8]; 4] {
        [
            self.lit.as_bytes(),
            self.lead.as_bytes(),
            self.name.as_bytes(),
            if self.eq { b"=" } else { b"" },
        ]
    }

    fn len(&self) -> usize {
        self.pieces().iter().map(|p| p.len()).sum()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the run occurs in `s` starting at `at`.
    fn at(&self, s: &[u8], at: usize) -> bool {
        let mut p = at;
        for piece in self.pieces() {
            if s.get(p..p + piece.len()) != Some(piece) {
                return false;
            }
            p += piece.len();
        }
        true
    }

    /// Whether the run occurs in `s` ending at `end`.
    fn ends_at(&self, s: &[u8], end: usize) -> bool {
        end >= self.len() && self.at(s, end - self.len())
    }
}

#[derive(Clone, Copy)]
struct Cap<'a> {
    name: &'a str,
    op: Operator,
}

impl Default for Cap<'_> {
    fn default() -> Self {
        Cap {
            name: "",
            op: Operator::Simple,
        }
    }
}

/// Characters a raw value of the operator may not contain: they end it.
fn stops(op: Operator, b: u8) -> bool {
    match op {
        Operator::Simple => matches!(b, b'/' | b'?' | b'#' | b'&' | b','),
        Operator::Reserved => matches!(b, b'?' | b'#'),
        Operator::Fragment => false,
        Operator::Label => matches!(b, b'.' | b'/' | b'?' | b'#'),
        Operator::Path => matches!(b, b'/' | b'?' | b'#'),
        Operator::PathParam => matches!(b, b';' | b'/' | b'?' | b'#'),
        Operator::Query | Operator::QueryCont => matches!(b, b'&' | b'#'),
    }
}

/// Whether the operator's raw value may be empty: `;x` (ifemp) and `?x=` may be; path
/// variables may not (`users/{id}` does not match `users/`).
fn may_be_empty(op: Operator) -> bool {
    matches!(
        op,
        Operator::PathParam | Operator::Query | Operator::QueryCont
    )
}

fn greedy(op: Operator) -> bool {
    matches!(op, Operator::Reserved | Operator::Fragment)
}

/// The lowered template.
pub(crate) struct Layout<'a> {
    runs: [Run<'a>; MAX_VARS + 1],
    caps: [Cap<'a>; MAX_VARS],
    /// Number of captures.
    n: usize,
    /// Captures `q..n` are the query tail, matched order-free (`q == n`: none).
    q: usize,
}

impl<'a> Layout<'a> {
    /// Lowers `text`, refusing adjacent captures and several greedy ones. The names were
    /// checked by `UriTemplate::new` before (at most `MAX_VARS`).
    pub(crate) fn build(text: &'a str) -> Result<Layout<'a>, TemplateError> {
        let mut l = Layout {
            runs: [Run::default(); MAX_VARS + 1],
            caps: [Cap::default(); MAX_VARS],
            n: 0,
            q: 0,
        };
        let mut pending = "";
        let mut first_query = [false; MAX_VARS];
        let mut path_has_qf = false;
        for part in Parts::new(text).filter_map(Result::ok) {
            match part {
                Part::Literal(t) => {
                    pending = t;
                    path_has_qf |= t.contains(['?', '#']);
                }
                Part::Expr { op, list, at } => {
                    let spec = op.spec();
                    for (j, name) in list.split(',').enumerate() {
                        if l.n == MAX_VARS {
                            return Err(TemplateError {
                                kind: TemplateErrorKind::TooManyVariables,
                                at,
                            });
                        }
                        let run = Run {
                            lit: if j == 0 { pending } else { "" },
                            lead: if j == 0 { spec.first } else { spec.sep },
                            name: if spec.named { name } else { "" },
                            eq: matches!(op, Operator::Query | Operator::QueryCont),
                        };
                        if l.n > 0 && run.is_empty() {
                            return Err(TemplateError {
                                kind: TemplateErrorKind::AdjacentVariables,
                                at,
                            });
                        }
                        first_query[l.n] = op == Operator::Query && j == 0;
                        l.runs[l.n] = run;
                        l.caps[l.n] = Cap { name, op };
                        l.n += 1;
                    }
                    pending = "";
                }
            }
        }
        l.runs[l.n] = Run {
            lit: pending,
            ..Run::default()
        };
        // The query tail: the trailing `{?…}{&…}` expressions, with no literal between
        // or after them, starting with a `{?…}`, after a path with no `?`/`#` literal
        // and no `{#…}`. Those are matched order-free; otherwise strictly.
        let mut k = l.n;
        while k > 0
            && matches!(l.caps[k - 1].op, Operator::Query | Operator::QueryCont)
            && l.runs[k].lit.is_empty()
        {
            k -= 1;
        }
        // `k` is the first variable of an expression (a run inside one has no literal
        // but a separator); the tail must start with `{?…}`, else strict.
        l.q = l.n;
        if k < l.n && first_query[k] {
            // A `{?…}` or `{#…}` before the tail writes a `?` or `#` the cut would take.
            let path_qf = l.caps[..k]
                .iter()
                .any(|c| matches!(c.op, Operator::Fragment | Operator::Query));
            // `path_has_qf` looked at every literal: the tail itself has none.
            if !path_has_qf && !path_qf {
                l.q = k;
                l.runs[k] = Run {
                    lit: l.runs[k].lit,
                    ..Run::default()
                };
            }
        }
        if l.caps[..l.q].iter().filter(|c| greedy(c.op)).count() > 1 {
            return Err(TemplateError {
                kind: TemplateErrorKind::SeveralGreedy,
                at: 0,
            });
        }
        Ok(l)
    }
}

impl<'a> UriTemplate<'a> {
    /// Matches `uri` against the template; on success the variables, borrowing `uri`.
    ///
    /// The values are the raw slices of `uri` (still percent-encoded; see
    /// [`percent_decode`](super::percent_decode)). The rules are in the [`crate::uri`]
    /// module docs: every non-query variable must be present and non-empty (except
    /// `{;var}`), a query tail `{?a,b}` matches its parameters in any order, each one
    /// optional, others ignored.
    pub fn match_uri<'u>(&self, uri: &'u str) -> Option<Vars<'a, 'u>> {
        let l = Layout::build(self.as_str()).ok()?;
        let mut vars = Vars {
            names: [""; MAX_VARS],
            values: [None; MAX_VARS],
            count: l.n,
        };
        for (slot, cap) in vars.names.iter_mut().zip(&l.caps[..l.n]) {
            *slot = cap.name;
        }
        let path = if l.q < l.n {
            let before_fragment = uri.split('#').next().unwrap_or("");
            let (path, query) = before_fragment
                .split_once('?')
                .unwrap_or((before_fragment, &before_fragment[before_fragment.len()..]));
            for pair in query.split('&') {
                // A parameter without `=` has an empty value (kept a slice of `uri`).
                let (name, value) = pair.split_once('=').unwrap_or((pair, &pair[pair.len()..]));
                if name.is_empty() {
                    continue;
                }
                // First occurrence wins; names are compared raw (an encoded `%71` is not
                // `q`: expansion never encodes names, and decoding them would let
                // `%71=evil&q=real` shadow `q`).
                if let Some(i) = (l.q..l.n).find(|&i| l.caps[i].name == name)
                    && vars.values[i].is_none()
                {
                    vars.values[i] = Some(value);
                }
            }
            path
        } else {
            uri
        };
        scan(&l, path, &mut vars.values)?;
        Some(vars)
    }
}

/// Matches `path` against captures `0..l.q`; fills `values`.
fn scan<'u>(l: &Layout<'_>, path: &'u str, values: &mut [Option<&'u str>; MAX_VARS]) -> Option<()> {
    let s = path.as_bytes();
    match (0..l.q).find(|&i| greedy(l.caps[i].op)) {
        None => {
            let start = right_to_left(l, path, 0, l.q, true, values)?;
            (start == 0).then_some(())
        }
        Some(g) => {
            let suffix_start = right_to_left(l, path, g + 1, l.q, false, values)?;
            let prefix_end = left_to_right(l, path, g, suffix_start, values)?;
            let span = s.get(prefix_end..suffix_start)?;
            if span.is_empty() || span.iter().any(|&b| stops(l.caps[g].op, b)) {
                return None;
            }
            values[g] = Some(path.get(prefix_end..suffix_start)?);
            Some(())
        }
    }
}

/// Scans captures `lo..hi` from the end of `path` (after `runs[hi]`); returns where
/// `runs[lo]` starts. `anchored`: `lo == 0` and `runs[0]` must start the path.
fn right_to_left<'u>(
    l: &Layout<'_>,
    path: &'u str,
    lo: usize,
    hi: usize,
    anchored: bool,
    values: &mut [Option<&'u str>; MAX_VARS],
) -> Option<usize> {
    let s = path.as_bytes();
    let last = &l.runs[hi];
    if !last.ends_at(s, s.len()) {
        return None;
    }
    let mut pos = s.len() - last.len();
    for i in (lo..hi).rev() {
        let (cap, run) = (l.caps[i], &l.runs[i]);
        let min = usize::from(!may_be_empty(cap.op));
        let mut earliest = pos;
        while earliest > 0 && !stops(cap.op, s[earliest - 1]) {
            earliest -= 1;
        }
        let latest = pos.checked_sub(min)?;
        if latest < earliest {
            return None;
        }
        let start = if anchored && i == 0 {
            let start = run.len();
            if start < earliest || start > latest || !run.at(s, 0) {
                return None;
            }
            start
        } else {
            let fits = |e: usize, canonical: bool| {
                run.ends_at(s, e)
                    && path
                        .get(e..pos)
                        .is_some_and(|v| spells(cap.op, v, canonical))
            };
            // The split the template would expand to, else a lenient one (`;x=`).
            (earliest..=latest)
                .rev()
                .find(|&e| fits(e, true))
                .or_else(|| (earliest..=latest).rev().find(|&e| fits(e, false)))?
        };
        values[i] = Some(value(cap.op, path.get(start..pos)?)?);
        pos = start - run.len();
    }
    Some(pos)
}

/// Scans captures `0..hi` from the start of `path`, not past `limit`; returns where
/// `runs[hi]` ends.
fn left_to_right<'u>(
    l: &Layout<'_>,
    path: &'u str,
    hi: usize,
    limit: usize,
    values: &mut [Option<&'u str>; MAX_VARS],
) -> Option<usize> {
    let s = path.get(..limit)?.as_bytes();
    if !l.runs[0].at(s, 0) {
        return None;
    }
    let mut pos = l.runs[0].len();
    for (i, (cap, next)) in l.caps[..hi].iter().zip(&l.runs[1..=hi]).enumerate() {
        let min = usize::from(!may_be_empty(cap.op));
        let mut latest = pos;
        while latest < s.len() && !stops(cap.op, s[latest]) {
            latest += 1;
        }
        let fits = |b: usize, canonical: bool| {
            next.at(s, b)
                && path
                    .get(pos..b)
                    .is_some_and(|v| spells(cap.op, v, canonical))
        };
        // The split the template would expand to, else a lenient one (`;x=`).
        let end = (pos + min..=latest)
            .find(|&b| fits(b, true))
            .or_else(|| (pos + min..=latest).find(|&b| fits(b, false)))?;
        values[i] = Some(value(cap.op, path.get(pos..end)?)?);
        pos = end + next.len();
    }
    Some(pos)
}

/// The value of a capture's raw span: `{;x}` spans are empty or `=value`.
fn value(op: Operator, span: &str) -> Option<&str> {
    if op == Operator::PathParam && !span.is_empty() {
        return span.strip_prefix('=');
    }
    Some(span)
}

/// Whether `span` is a value of the operator; `canonical`: as the template expands it
/// (`{;x}` with an empty value is the bare `;x`, never `;x=`). Matching prefers the
/// canonical split, so that expanding the variables gives the URI back (fuzz finding:
/// `{;v,emy,o}c{+p}` on `;v=JJ;emy=U2;o=cdcdef`), and accepts `;x=` when nothing else fits.
fn spells(op: Operator, span: &str, canonical: bool) -> bool {
    match value(op, span) {
        Some(v) => !(canonical && op == Operator::PathParam && v.is_empty() && !span.is_empty()),
        None => false,
    }
}

/// The first template in `templates` that `uri` matches, with its index and variables.
///
/// Table order decides between templates that both match (put the more specific first);
/// check exact resource URIs before calling this.
///
/// ```
/// use picomcp::uri::{UriTemplate, find_match};
/// let table = [UriTemplate::new("users://{id}/profile")?, UriTemplate::new("users://{+rest}")?];
/// let (i, vars) = find_match(&table, "users://42/profile").unwrap();
/// assert_eq!((i, vars.get("id")), (0, Some("42")));
/// assert_eq!(find_match(&table, "users://42/photos").unwrap().0, 1);
/// # Ok::<(), picomcp::uri::TemplateError>(())
/// ```
pub fn find_match<'a, 'u>(
    templates: &[UriTemplate<'a>],
    uri: &'u str,
) -> Option<(usize, Vars<'a, 'u>)> {
    templates
        .iter()
        .enumerate()
        .find_map(|(i, t)| t.match_uri(uri).map(|v| (i, v)))
}
