//! `roots`: roots containment (`picomcp::uri::roots::contains`).
//!
//! Layout: `[rules] roots… \0 target`, roots separated by `\n`; `rules` bit 0 is
//! `case_insensitive`, bit 1 `windows`. Inputs that are not UTF-8 are skipped.
//!
//! Invariants:
//! - nothing panics; a root index returned is in range;
//! - the answer is the first containing root: `Ok(Some(i))` means root `i` alone
//!   contains the target too;
//! - case-insensitive rules contain at least what case-sensitive ones do;
//! - a contained target stays contained with `/a` appended (`a` after a final separator) (by a root at or before the
//!   same index: an earlier root may be exactly `target/a`), and its root still
//!   contains it with `/a/..` appended.

use picomcp::uri::roots::{PathRules, contains};

pub fn run(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let rules = PathRules {
        case_insensitive: flags & 1 != 0,
        windows: flags & 2 != 0,
    };
    let (r, t) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &b""[..]),
    };
    let (Ok(roots), Ok(target)) = (core::str::from_utf8(r), core::str::from_utf8(t)) else {
        return;
    };
    let list: Vec<&str> = if roots.is_empty() {
        Vec::new()
    } else {
        roots.split('\n').collect()
    };
    let got = contains(list.iter().copied(), target, rules);
    if let Err(e) = got {
        if let Some(i) = e.root {
            assert!(i < list.len());
        }
    }
    let Ok(Some(i)) = got else { return };
    assert!(i < list.len());
    assert_eq!(contains([list[i]], target, rules), Ok(Some(0)));
    if !rules.case_insensitive {
        let wider = PathRules {
            case_insensitive: true,
            ..rules
        };
        assert!(matches!(
            contains(list.iter().copied(), target, wider),
            Ok(Some(_))
        ));
    }
    let sep = if target.ends_with(['/', '\\']) {
        ""
    } else {
        "/"
    };
    let deeper = format!("{target}{sep}a");
    match contains(list.iter().copied(), &deeper, rules) {
        Ok(Some(j)) => assert!(j <= i, "{deeper:?} in root {j}, {target:?} in {i}"),
        other => panic!("{target:?} is in root {i} but {deeper:?} gives {other:?}"),
    }
    let back = format!("{deeper}/..");
    assert!(
        matches!(contains([list[i]], &back, rules), Ok(Some(0))),
        "{back:?}"
    );
}
