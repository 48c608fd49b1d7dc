//! Roots containment: whether a path or `file://` URI lies inside one of the roots a
//! client sent in `roots/list`, decided on the strings (no file system access, no
//! allocation).
//!
//! ```
//! use picomcp::uri::roots::{contains, PathRules};
//! let roots = ["file:///home/ann/project", "file:///tmp/scratch/"];
//! assert_eq!(contains(roots, "/home/ann/project/src/main.rs", PathRules::POSIX), Ok(Some(0)));
//! assert_eq!(contains(roots, "file:///tmp/scratch/a%20b.txt", PathRules::POSIX), Ok(Some(1)));
//! assert_eq!(contains(roots, "/home/ann/project/../secrets", PathRules::POSIX), Ok(None));
//! assert_eq!(contains(roots, "file:///home/ann/project/%2e%2e/x", PathRules::POSIX), Ok(None));
//! assert_eq!(contains(roots, "/home/ann/projectile", PathRules::POSIX), Ok(None));
//! assert!(contains(roots, "file://evil.com/home/ann/project", PathRules::POSIX).is_err());
//! ```
//!
//! # Rules
//!
//! - **Inputs.** A root is a `file:` URI: `file:///p`, `file://localhost/p` or `file:/p`
//!   (scheme and `localhost` in any case). A target is such a URI or a plain absolute
//!   path. Any other host ([`PathErrorKind::ForeignHost`]), another scheme, a relative
//!   path, a raw `?` or `#` in a URI (query, fragment) are errors.
//! - **Decoding.** URIs are percent-decoded once, segment by segment: `%2e%2e` is `..`,
//!   `%252e` is the name `%2e` (a server that decodes once, as it must, opens that
//!   name). Plain paths are taken literally: `%` is a character. A decoded `/` (`%2F`),
//!   and with Windows rules `\` (`%5C`), is not a separator, and no file name can hold
//!   one, so it is an error ([`PathErrorKind::EncodedSeparator`]) rather than a name
//!   that would turn into a separator once the server decodes the URI. NUL (raw or
//!   `%00`), an invalid escape, and decoded bytes that are not UTF-8 (overlong `%C0%AE`)
//!   are errors.
//! - **Segments.** `/` separates (and `\` with Windows rules); empty segments (`//`,
//!   a trailing `/`) and `.` are skipped. The root's segments must come first in the
//!   target, compared one by one, so `/home/a` does not contain `/home/ab`; the root
//!   itself is inside. Then each `..` goes up one level and may never go above the
//!   root: `/root/x/../y` is inside, `/root/../root/y` is outside (the target left the
//!   root), as is any `..` before the root's segments are matched. A root with `..` is
//!   an error.
//! - **Case.** With [`PathRules::case_insensitive`], segments are compared after
//!   mapping each character to lower case (Unicode simple case mapping, per character:
//!   `Ä` = `ä`, but `ß` ≠ `SS`). Otherwise bytes are compared. No Unicode normalisation
//!   (NFC `é` ≠ NFD `e◌́`) is applied.
//! - **Windows** ([`PathRules::windows`]): `\` separates too; a first segment `C:` is a
//!   drive letter, compared ignoring case whatever the case rule (`file:///C:/x`,
//!   `C:\x` and `c:/x` are the same path); a path starting with two separators (UNC,
//!   `\\?\`) is [`PathErrorKind::ForeignHost`]; trailing dots and spaces of a name are
//!   ignored (`a.txt.` = `a.txt`, as Win32 does), and a name of only dots and spaces
//!   other than `.` and `..` (`...`, `.. `) is [`PathErrorKind::AmbiguousName`].
//!
//! Lexical only: symbolic links and mount points inside a root can still lead out of
//! it; resolve them (on the host) when that matters.

use core::fmt;

use super::percent::escape_at;

/// The longest name (path segment) compared, in bytes once decoded: 255 UTF-16 units
/// (NTFS, APFS) need at most 765 UTF-8 bytes; ext4 allows 255 bytes.
/// A longer one is [`PathErrorKind::NameTooLong`].
pub const MAX_NAME: usize = 768;

/// How paths compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathRules {
    /// Compare names ignoring case (per-character lower-case mapping).
    pub case_insensitive: bool,
    /// Windows paths: `\` separates, drive letters, trailing dots and spaces ignored.
    pub windows: bool,
}

impl PathRules {
    /// Linux and other POSIX file systems: `/` only, case matters.
    pub const POSIX: PathRules = PathRules {
        case_insensitive: false,
        windows: false,
    };
    /// macOS default (APFS, case-insensitive): `/` only, case ignored.
    pub const MACOS: PathRules = PathRules {
        case_insensitive: true,
        windows: false,
    };
    /// Windows (NTFS default): `\` and `/`, drive letters, case ignored.
    pub const WINDOWS: PathRules = PathRules {
        case_insensitive: true,
        windows: true,
    };
}

/// What is wrong with a path or URI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathErrorKind {
    /// Not absolute (and no `file:` URI): `a/b`, `C:x`, empty.
    Relative,
    /// A URI whose scheme is not `file`.
    NotFile,
    /// A `file:` URI with a host other than empty or `localhost`, or a UNC path.
    ForeignHost,
    /// A raw `?` or `#` in a `file:` URI.
    QueryOrFragment,
    /// A NUL character, raw or `%00`.
    Nul,
    /// A `%` without two hexadecimal digits.
    InvalidEscape,
    /// Percent-decoded bytes that are not UTF-8.
    NotUtf8,
    /// `%2F` (and with Windows rules `%5C`) inside a name.
    EncodedSeparator,
    /// With Windows rules, a name of only dots and spaces other than `.` and `..`.
    AmbiguousName,
    /// A name longer than [`MAX_NAME`] bytes.
    NameTooLong,
    /// A root with a `..` segment.
    DotDotInRoot,
}

/// Why [`contains`] could not decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathError {
    /// What is wrong.
    pub kind: PathErrorKind,
    /// `Some(i)`: the root at index `i` is at fault; `None`: the target.
    pub root: Option<usize>,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.root {
            Some(i) => write!(f, "root {i}: {:?}", self.kind),
            None => write!(f, "target: {:?}", self.kind),
        }
    }
}

impl core::error::Error for PathError {}

/// Whether `target` (an absolute path or a `file:` URI) lies inside one of `roots`
/// (`file:` URIs as the client sent them in `roots/list`), after normalisation (module
/// docs). `Ok(Some(i))`: inside root `i`, the first that contains it. `Ok(None)`:
/// inside none (also for an empty list).
///
/// Errors: the target is checked first, whatever the roots ([`PathError::root`] is
/// `None`). A root that is not a valid `file:` URI cannot contain anything; the others
/// are still tried, and when none contains the target the first invalid root's error is
/// returned, so a caller that denies on `Err` fails closed and can still say why.
pub fn contains<'r>(
    roots: impl IntoIterator<Item = &'r str>,
    target: &str,
    rules: PathRules,
) -> Result<Option<usize>, PathError> {
    let err = |root| move |kind| PathError { kind, root };
    let t = Path::parse(target, rules).map_err(err(None))?;
    t.check(rules, false).map_err(err(None))?;
    let mut first_error = None;
    for (i, root) in roots.into_iter().enumerate() {
        let checked = Path::parse(root, rules).and_then(|r| {
            if !r.encoded {
                // A root is a URI; a plain path here is the client's mistake.
                return Err(PathErrorKind::NotFile);
            }
            r.check(rules, true)?;
            Ok(r)
        });
        match checked {
            Ok(r) => {
                if inside(&r, &t, rules) {
                    return Ok(Some(i));
                }
            }
            Err(kind) => {
                first_error.get_or_insert(PathError {
                    kind,
                    root: Some(i),
                });
            }
        }
    }
    first_error.map_or(Ok(None), Err)
}

/// An absolute path: the text after the authority, and whether it is percent-encoded.
struct Path<'a> {
    path: &'a str,
    encoded: bool,
}

fn is_drive(seg: &[u8]) -> bool {
    seg.len() == 2 && seg[0].is_ascii_alphabetic() && seg[1] == b':'
}

impl<'a> Path<'a> {
    fn parse(s: &'a str, rules: PathRules) -> Result<Path<'a>, PathErrorKind> {
        let sep = |b: u8| b == b'/' || (rules.windows && b == b'\\');
        let b = s.as_bytes();
        let (path, encoded) = if b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"file:") {
            let rest = &s[5..];
            if rest.contains(['?', '#']) {
                return Err(PathErrorKind::QueryOrFragment);
            }
            match rest.strip_prefix("//") {
                Some(auth) => {
                    let end = auth.find('/').unwrap_or(auth.len());
                    let host = &auth[..end];
                    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                        return Err(PathErrorKind::ForeignHost);
                    }
                    (&auth[end..], true)
                }
                None => (rest, true),
            }
        } else {
            // `scheme:` with two characters or more (one is a drive letter).
            if let Some(colon) = s.find(':') {
                let scheme = &b[..colon];
                if colon >= 2
                    && scheme[0].is_ascii_alphabetic()
                    && scheme
                        .iter()
                        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
                {
                    return Err(PathErrorKind::NotFile);
                }
            }
            (s, false)
        };
        let p = path.as_bytes();
        let absolute = match p {
            [a, b2, ..] if sep(*a) && sep(*b2) && rules.windows => {
                return Err(PathErrorKind::ForeignHost);
            }
            [a, ..] if sep(*a) => true,
            // `C:` or `C:\…` (Windows).
            [_, _, rest @ ..] if rules.windows && is_drive(&p[..2]) => {
                rest.first().is_none_or(|&c| sep(c))
            }
            _ => false,
        };
        if !absolute {
            return Err(PathErrorKind::Relative);
        }
        Ok(Path { path, encoded })
    }

    fn segments(&self, rules: PathRules) -> impl Iterator<Item = &'a str> + 'a {
        let windows = rules.windows;
        self.path
            .split(move |c| c == '/' || (windows && c == '\\'))
            .filter(|s| !s.is_empty())
    }

    /// Checks every segment (and, for a root, that it has no `..`).
    fn check(&self, rules: PathRules, root: bool) -> Result<(), PathErrorKind> {
        let mut buf = [0u8; MAX_NAME];
        for raw in self.segments(rules) {
            if decode(raw, self.encoded, rules, &mut buf)? == Seg::DotDot && root {
                return Err(PathErrorKind::DotDotInRoot);
            }
        }
        Ok(())
    }
}

#[derive(PartialEq, Eq)]
enum Seg<'b> {
    Dot,
    DotDot,
    Name(&'b str),
}

/// Decodes one (raw) segment into `buf` and classifies it.
fn decode<'b>(
    raw: &str,
    encoded: bool,
    rules: PathRules,
    buf: &'b mut [u8; MAX_NAME],
) -> Result<Seg<'b>, PathErrorKind> {
    let b = raw.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        let (c, step) = if encoded && b[i] == b'%' {
            let c = escape_at(b, i).ok_or(PathErrorKind::InvalidEscape)?;
            if c == b'/' || (rules.windows && c == b'\\') {
                return Err(PathErrorKind::EncodedSeparator);
            }
            (c, 3)
        } else {
            (b[i], 1)
        };
        if c == 0 {
            return Err(PathErrorKind::Nul);
        }
        *buf.get_mut(n).ok_or(PathErrorKind::NameTooLong)? = c;
        n += 1;
        i += step;
    }
    let name = core::str::from_utf8(&buf[..n]).map_err(|_| PathErrorKind::NotUtf8)?;
    match name {
        "." => return Ok(Seg::Dot),
        ".." => return Ok(Seg::DotDot),
        _ => {}
    }
    if rules.windows {
        let trimmed = name.trim_end_matches(['.', ' ']);
        if trimmed.is_empty() {
            return Err(PathErrorKind::AmbiguousName);
        }
        return Ok(Seg::Name(trimmed));
    }
    Ok(Seg::Name(name))
}

fn same_name(a: &str, b: &str, rules: PathRules, first: bool) -> bool {
    if rules.windows && first && is_drive(a.as_bytes()) && is_drive(b.as_bytes()) {
        return a.eq_ignore_ascii_case(b);
    }
    if rules.case_insensitive {
        a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
    } else {
        a == b
    }
}

/// Whether `t` is inside `r` (both checked, so decoding cannot fail here; a failure
/// would count as outside).
fn inside(r: &Path<'_>, t: &Path<'_>, rules: PathRules) -> bool {
    let mut rbuf = [0u8; MAX_NAME];
    let mut tbuf = [0u8; MAX_NAME];
    let mut ts = t.segments(rules);
    let mut first = true;
    for rraw in r.segments(rules) {
        let Ok(rseg) = decode(rraw, r.encoded, rules, &mut rbuf) else {
            return false;
        };
        let Seg::Name(rname) = rseg else { continue };
        // The target's next name: `.` skipped; `..`, the end or an error is outside.
        let tname = loop {
            match ts
                .next()
                .map(|raw| decode(raw, t.encoded, rules, &mut tbuf))
            {
                Some(Ok(Seg::Dot)) => continue,
                Some(Ok(Seg::Name(n))) => break n,
                _ => return false,
            }
        };
        if !same_name(rname, tname, rules, first) {
            return false;
        }
        first = false;
    }
    let mut depth = 0usize;
    for raw in ts {
        match decode(raw, t.encoded, rules, &mut tbuf) {
            Ok(Seg::Dot) => {}
            Ok(Seg::DotDot) => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Ok(Seg::Name(_)) => depth += 1,
            Err(_) => return false,
        }
    }
    true
}
