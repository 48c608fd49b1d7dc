//! `uri_template`: RFC 6570 templates (check, match, expand) and `percent_decode`.
//!
//! Layout: `template \0 uri`; without a `\0` the whole input is the template and also
//! the URI. Inputs that are not UTF-8 are skipped.
//!
//! Invariants:
//! - nothing panics: `UriTemplate::new`, `match_uri`, `expand` (into a buffer too small,
//!   then into one of the reported size), `percent_decode` of every value;
//! - `expand` into a buffer of `required` bytes succeeds, and the result has that length;
//! - every matched value is a slice of the URI (`Vars` borrows it, never copies);
//! - round trip: with values of ASCII letters and digits (taken from the URI bytes, one
//!   per variable, never empty), `match_uri(expand(v))` matches, and when every value it
//!   found is made of unreserved characters, expanding those values gives the same URI.

use picomcp::uri::{UriTemplate, percent_decode};

pub fn run(data: &[u8]) {
    let (t, u) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let (Ok(text), Ok(uri)) = (core::str::from_utf8(t), core::str::from_utf8(u)) else {
        return;
    };
    let Ok(t) = UriTemplate::new(text) else {
        return;
    };
    let _ = t.var_names().count();

    // Arbitrary URI.
    if let Some(vars) = t.match_uri(uri) {
        let range = uri.as_ptr() as usize..=uri.as_ptr() as usize + uri.len();
        for (name, value) in vars.iter() {
            let p = value.as_ptr() as usize;
            assert!(range.contains(&p) && range.contains(&(p + value.len())));
            assert_eq!(vars.get(name), Some(value));
            let mut buf = vec![0u8; value.len()];
            let _ = percent_decode(value, &mut buf);
        }
        expand_checked(&t, |n| vars.get(n));
    }

    // Round trip with alphanumeric values.
    let alnum = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let names: Vec<&str> = t.var_names().collect();
    let values: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let len = 1 + u.get(i).map_or(0, |&b| (b % 4) as usize);
            (0..len)
                .map(|j| {
                    let b = u.get(i * 3 + j).copied().unwrap_or(i as u8 + j as u8);
                    alnum[b as usize % alnum.len()] as char
                })
                .collect()
        })
        .collect();
    let lookup = |n: &str| {
        names
            .iter()
            .position(|&m| m == n)
            .map(|i| values[i].as_str())
    };
    let expanded = expand_checked(&t, lookup);
    let vars = t.match_uri(&expanded).unwrap_or_else(|| {
        panic!("{text:?} does not match its own expansion {expanded:?} (values {values:?})")
    });
    if vars.iter().all(|(_, v)| {
        v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
    }) {
        let again = expand_checked(&t, |n| vars.get(n));
        assert_eq!(again, expanded, "{text:?}: re-expanding {vars:?}");
    }
}

/// Expands into a too small buffer, then into one of the size it asked for.
fn expand_checked<'v>(t: &UriTemplate<'_>, value: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut small = [0u8; 8];
    let required = match t.expand(&value, &mut small) {
        Ok(s) => return s.to_owned(),
        Err(e) => e.required,
    };
    assert!(required > small.len());
    let mut buf = vec![0u8; required];
    let s = t
        .expand(&value, &mut buf)
        .expect("the reported size is enough");
    assert_eq!(s.len(), required);
    s.to_owned()
}
