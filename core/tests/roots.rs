//! Roots containment (`picomcp::uri::roots`): a table of traversal attempts and the
//! normalisation rules (module docs of `picomcp::uri::roots`).

use picomcp::uri::roots::{PathErrorKind as E, PathRules, contains};

const P: PathRules = PathRules::POSIX;
const M: PathRules = PathRules::MACOS;
const W: PathRules = PathRules::WINDOWS;

/// Expected outcome.
#[derive(Debug, PartialEq)]
enum Want {
    In(usize),
    Out,
    /// An error in the target.
    Bad(E),
    /// An error in root `i` (no root contained the target).
    BadRoot(usize, E),
}
use Want::*;

const HOME: &[&str] = &["file:///home/ann/project"];

#[test]
fn traversal_table() {
    let rows: &[(&[&str], &str, PathRules, Want)] = &[
        // plain inside / outside
        (HOME, "/home/ann/project", P, In(0)),
        (HOME, "/home/ann/project/", P, In(0)),
        (HOME, "/home/ann/project/src/main.rs", P, In(0)),
        (HOME, "file:///home/ann/project/src/main.rs", P, In(0)),
        (HOME, "file://localhost/home/ann/project/a", P, In(0)),
        (HOME, "FILE://LOCALHOST/home/ann/project/a", P, In(0)),
        (HOME, "file:/home/ann/project/a", P, In(0)),
        (HOME, "/home/ann", P, Out),
        (HOME, "/", P, Out),
        (HOME, "/home/ann/projectile", P, Out),
        (HOME, "/home/ann/project.bak/x", P, Out),
        (HOME, "/home/ann/projec", P, Out),
        // repeated separators, dots
        (HOME, "//home///ann//project//x", P, In(0)),
        (HOME, "/home/./ann/./project/./x", P, In(0)),
        (HOME, "/home/ann/project/./.", P, In(0)),
        // `..` escapes
        (HOME, "/home/ann/project/..", P, Out),
        (HOME, "/home/ann/project/../secrets", P, Out),
        (HOME, "/home/ann/project/../project/x", P, Out),
        (HOME, "/home/ann/project/a/../../x", P, Out),
        (HOME, "/home/ann/project/a/../b", P, In(0)),
        (HOME, "/home/ann/project/a/b/../../c", P, In(0)),
        (HOME, "/home/ann/other/../project/x", P, Out),
        (HOME, "/../home/ann/project/x", P, Out),
        (HOME, "/home/ann/project/.../x", P, In(0)), // `...` is a name on POSIX
        (HOME, "/home/ann/project/..x/y", P, In(0)),
        // percent-encoding
        (HOME, "file:///home/ann/project/%2e%2e/secrets", P, Out),
        (HOME, "file:///home/ann/project/%2E%2E/secrets", P, Out),
        (HOME, "file:///home/ann/project/.%2e/x", P, Out),
        (HOME, "file:///home/ann/project/%2e/x", P, In(0)),
        (HOME, "file:///home/ann/project/a/%2e%2e/b", P, In(0)),
        (
            HOME,
            "file:///home/ann/project/%2e%2e%2fsecrets",
            P,
            Bad(E::EncodedSeparator),
        ),
        (
            HOME,
            "file:///home/ann/project/..%2F..%2Fetc",
            P,
            Bad(E::EncodedSeparator),
        ),
        (HOME, "file:///home/ann/project/%252e%252e/x", P, In(0)), // the name `%2e%2e`
        (HOME, "file:///home/%61nn/project/x", P, In(0)),
        (
            HOME,
            "file:///home/ann/project/%zz",
            P,
            Bad(E::InvalidEscape),
        ),
        (
            HOME,
            "file:///home/ann/project/%4",
            P,
            Bad(E::InvalidEscape),
        ),
        (
            HOME,
            "file:///home/ann/project/%C0%AE%C0%AE/x",
            P,
            Bad(E::NotUtf8),
        ),
        (HOME, "file:///home/ann/project/%FF", P, Bad(E::NotUtf8)),
        (HOME, "/home/ann/project/%2e%2e/x", P, In(0)), // plain paths are literal
        // NUL
        (HOME, "/home/ann/project/a\0b", P, Bad(E::Nul)),
        (HOME, "file:///home/ann/project/a%00.txt", P, Bad(E::Nul)),
        // backslashes
        (HOME, "/home/ann/project/..\\..\\etc", P, In(0)), // one odd name on POSIX
        (HOME, "file:///home/ann/project/%5c..%5c..", P, In(0)),
        (&["file:///C:/Users/ann"], "C:\\Users\\ann\\..\\bob", W, Out),
        (
            &["file:///C:/Users/ann"],
            "C:\\Users\\ann\\doc.txt",
            W,
            In(0),
        ),
        (
            &["file:///C:/Users/ann"],
            "file:///C:/Users/ann/a%5C..%5C..%5Cbob",
            W,
            Bad(E::EncodedSeparator),
        ),
        (
            &["file:///C:/Users/ann"],
            "file:///C:/Users/ann\\..\\..\\x",
            W,
            Out,
        ),
        // case rules
        (HOME, "/HOME/ann/project/x", P, Out),
        (HOME, "/HOME/Ann/PROJECT/x", M, In(0)),
        (
            &["file:///Users/Ann/Ünïcode"],
            "/users/ann/üNÏCODE/x",
            M,
            In(0),
        ),
        (&["file:///C:/Users/ann"], "c:/users/ANN/x", W, In(0)),
        (
            &["file:///C:/Users/ann"],
            "C:/USERS/ann/x",
            PathRules {
                case_insensitive: false,
                windows: true,
            },
            Out,
        ),
        (
            &["file:///c:/Users/ann"],
            "C:/Users/ann/x",
            PathRules {
                case_insensitive: false,
                windows: true,
            },
            In(0),
        ),
        (&["file:///C:/Users/ann"], "D:\\Users\\ann", W, Out),
        (
            &["file:///C:/Users/ann"],
            "file://localhost/C:/Users/ann/x",
            W,
            In(0),
        ),
        (
            &["file:///C:/Users/ann"],
            "file:///C%3A/Users/ann/x",
            W,
            In(0),
        ),
        // Windows names
        (
            &["file:///C:/Users/ann"],
            "C:\\Users\\ann\\...\\x",
            W,
            Bad(E::AmbiguousName),
        ),
        (
            &["file:///C:/Users/ann"],
            "C:\\Users\\ann\\.. \\x",
            W,
            Bad(E::AmbiguousName),
        ),
        (&["file:///C:/Users/ann"], "C:\\Users\\ann.\\x", W, In(0)),
        (&["file:///C:/Users/ann"], "C:\\Users\\ann \\x", W, In(0)),
        (
            &["file:///C:/Users/ann"],
            "\\\\server\\share\\x",
            W,
            Bad(E::ForeignHost),
        ),
        (
            &["file:///C:/Users/ann"],
            "\\\\?\\C:\\Users\\ann",
            W,
            Bad(E::ForeignHost),
        ),
        (
            &["file:///C:/Users/ann"],
            "C:Users\\ann",
            W,
            Bad(E::Relative),
        ),
        (
            &["file:///C:/Users/ann"],
            "file:////server/share",
            W,
            Bad(E::ForeignHost),
        ),
        // unicode
        (&["file:///home/%C3%A9t%C3%A9"], "/home/été/x", P, In(0)),
        (
            &["file:///home/été"],
            "file:///home/%C3%A9t%C3%A9/x",
            P,
            In(0),
        ),
        (&["file:///home/e%CC%81t%CC%81"], "/home/été/x", P, Out), // NFD is not NFC
        (HOME, "/home/ann/project/\u{202e}txt.exe", P, In(0)),
        (HOME, "/home/ann/project/\u{ff0e}\u{ff0e}/x", P, In(0)), // fullwidth dots: a name
        // hosts, schemes, query/fragment
        (
            HOME,
            "file://evil.com/home/ann/project/x",
            P,
            Bad(E::ForeignHost),
        ),
        (
            HOME,
            "file://localhost.evil.com/home/ann/project/x",
            P,
            Bad(E::ForeignHost),
        ),
        (
            HOME,
            "file://user@localhost/home/ann/project/x",
            P,
            Bad(E::ForeignHost),
        ),
        (
            HOME,
            "file://localhost:80/home/ann/project/x",
            P,
            Bad(E::ForeignHost),
        ),
        (
            HOME,
            "https://example.com/home/ann/project",
            P,
            Bad(E::NotFile),
        ),
        (
            HOME,
            "file:///home/ann/project/x?y=1",
            P,
            Bad(E::QueryOrFragment),
        ),
        (
            HOME,
            "file:///home/ann/project/x#frag",
            P,
            Bad(E::QueryOrFragment),
        ),
        (HOME, "file:///home/ann/project/x%3Fy", P, In(0)),
        (HOME, "/home/ann/project/x?y#z", P, In(0)), // plain paths: `?` is a character
        (HOME, "relative/path", P, Bad(E::Relative)),
        (HOME, "", P, Bad(E::Relative)),
        (HOME, "file:relative", P, Bad(E::Relative)),
        // several roots, empty list, bad roots
        (&[], "/home/ann/project", P, Out),
        (&[], "/x/%00", P, Out), // plain paths are literal: `%00` is three characters
        (&[], "file:///x/%00", P, Bad(E::Nul)),
        (&["file:///a", "file:///b", "file:///"], "/b/c", P, In(1)),
        (&["file:///a", "file:///"], "/zzz", P, In(1)),
        (&["file:///"], "/..", P, Out),
        (&["file:///a/"], "/a", P, In(0)),
        (&["file://evil.com/a", "file:///a"], "/a/x", P, In(1)),
        (
            &["file://evil.com/a", "file:///b"],
            "/a/x",
            P,
            BadRoot(0, E::ForeignHost),
        ),
        (&["/home/ann"], "/home/ann/x", P, BadRoot(0, E::NotFile)),
        (
            &["file:///home/ann/../bob"],
            "/home/bob/x",
            P,
            BadRoot(0, E::DotDotInRoot),
        ),
        (
            &["file:///home/ann?x"],
            "/home/ann/x",
            P,
            BadRoot(0, E::QueryOrFragment),
        ),
        (
            &["file:///home/a%2Fb"],
            "/home/a/b/x",
            P,
            BadRoot(0, E::EncodedSeparator),
        ),
    ];
    let mut failures = Vec::new();
    for (i, &(roots, target, rules, ref want)) in rows.iter().enumerate() {
        let got = match contains(roots.iter().copied(), target, rules) {
            Ok(Some(i)) => In(i),
            Ok(None) => Out,
            Err(e) => match e.root {
                None => Bad(e.kind),
                Some(r) => BadRoot(r, e.kind),
            },
        };
        if &got != want {
            failures.push(format!(
                "row {i}: {roots:?} / {target:?}: want {want:?}, got {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(rows.len() >= 40);
}

#[test]
fn long_names_are_an_error_not_a_panic() {
    let long = format!("/home/ann/project/{}", "a".repeat(5000));
    assert_eq!(
        contains(HOME.iter().copied(), &long, P).unwrap_err().kind,
        E::NameTooLong
    );
    let deep = format!("/home/ann/project{}", "/a".repeat(10_000));
    assert_eq!(contains(HOME.iter().copied(), &deep, P), Ok(Some(0)));
}
