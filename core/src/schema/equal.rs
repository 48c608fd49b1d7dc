//! Semantic JSON equality (`const`, `enum`, `uniqueItems`) and number comparison.
//!
//! Two values are equal when they have the same type and: numbers are equal as numbers
//! (`1 == 1.0 == 1e0`), strings are equal once unescaped, arrays are equal element by
//! element, objects have the same member names with equal values in any order.
//! `true` is not `1`. An object with duplicate member names compares by the first one
//! (as [`Json::get`] reads it).

// Without `schema-full` the keywords outside the subset are compiled out; what only they
// use stays (unused) rather than gaining a `cfg` of its own.
#![cfg_attr(
    not(feature = "schema-full"),
    allow(dead_code, unused_imports, unused_variables)
)]

use core::cmp::Ordering;

use crate::json::{Json, JsonKind, JsonStr};

/// Nesting went past the bound given to [`equal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooDeep;

/// Two strings, compared once unescaped.
pub(crate) fn str_eq(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    match (a.as_plain(), b.as_plain()) {
        (Some(x), Some(y)) => x == y,
        (Some(x), None) => b.eq_str(x),
        (None, Some(y)) => a.eq_str(y),
        (None, None) => a.chars().eq(b.chars()),
    }
}

/// Semantic equality, following at most `depth` levels of nesting.
pub(crate) fn equal(a: Json<'_>, b: Json<'_>, depth: usize) -> Result<bool, TooDeep> {
    let kind = a.kind();
    if kind != b.kind() {
        return Ok(false);
    }
    Ok(match kind {
        JsonKind::Null => true,
        JsonKind::Bool => a.as_raw() == b.as_raw(),
        JsonKind::Number => cmp_numbers(a, b) == Some(Ordering::Equal),
        JsonKind::String => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => str_eq(x, y),
            _ => false,
        },
        JsonKind::Array => {
            if a.as_raw() == b.as_raw() {
                return Ok(true);
            }
            let depth = depth.checked_sub(1).ok_or(TooDeep)?;
            let mut ea = a.elements();
            let mut eb = b.elements();
            loop {
                match (ea.next(), eb.next()) {
                    (None, None) => break true,
                    (Some(x), Some(y)) => {
                        if !equal(x, y, depth)? {
                            break false;
                        }
                    }
                    _ => break false,
                }
            }
        }
        JsonKind::Object => {
            if a.as_raw() == b.as_raw() {
                return Ok(true);
            }
            let depth = depth.checked_sub(1).ok_or(TooDeep)?;
            if a.members().count() != b.members().count() {
                return Ok(false);
            }
            for (k, va) in a.members() {
                let Some((_, vb)) = b.members().find(|(kb, _)| str_eq(k, *kb)) else {
                    return Ok(false);
                };
                if !equal(va, vb, depth)? {
                    return Ok(false);
                }
            }
            true
        }
    })
}

/// A JSON number as the comparisons read it: exact for integers written without a
/// fraction or exponent (up to 38 digits), `f64` otherwise (through
/// [`Json::as_f64_compact`]: correctly rounded up to 15 significant digits and decimal
/// exponents within ±22, within a few units in the last place beyond).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(crate) fn of(v: Json<'_>) -> Option<Num> {
        if v.kind() != JsonKind::Number {
            return None;
        }
        if v.is_integer()
            && let Ok(i) = v.as_raw().parse::<i128>()
        {
            return Some(Num::Int(i));
        }
        // The crate's compact conversion: `core`'s `f64::from_str` would cost a
        // firmware about 15 KiB of flash. Both sides of a comparison go through it.
        v.as_f64_compact().map(Num::Float)
    }

    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Whether the value is a whole number (2020-12: `1.0` is an integer).
    pub(crate) fn is_integral(self) -> bool {
        match self {
            Num::Int(_) => true,
            Num::Float(f) => f.is_finite() && f == trunc(f),
        }
    }

    pub(crate) fn cmp(self, other: Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }
}

/// Compares two JSON numbers (`None` when either is not a number).
pub(crate) fn cmp_numbers(a: Json<'_>, b: Json<'_>) -> Option<Ordering> {
    Num::of(a)?.cmp(Num::of(b)?)
}

/// The relative tolerance of `multipleOf` on non-integers: `x / m` must be within
/// `MULTIPLE_OF_TOLERANCE * |x / m|` of a whole number. Far above the rounding error of
/// decimal fractions in binary (`0.07 / 0.01 = 7.000000000000001`), far below any
/// difference a schema means.
pub const MULTIPLE_OF_TOLERANCE: f64 = 1e-12;

/// `multipleOf`: exact when both are integers, else the quotient must be a whole number
/// (within [`MULTIPLE_OF_TOLERANCE`]) and finite. `m` is positive (checked).
pub(crate) fn is_multiple_of(x: Num, m: Num) -> bool {
    if let (Num::Int(x), Num::Int(m)) = (x, m) {
        return m != 0 && x.checked_rem(m) == Some(0);
    }
    let q = x.as_f64() / m.as_f64();
    if !q.is_finite() {
        return false;
    }
    let r = round(q);
    let diff = if q > r { q - r } else { r - q };
    diff <= MULTIPLE_OF_TOLERANCE * abs(q)
}

/// `f64::trunc` without std.
fn trunc(f: f64) -> f64 {
    if !(f.is_finite()) || abs(f) >= 4_503_599_627_370_496.0 {
        return f;
    }
    (f as i64) as f64
}

/// `f64::round` (half away from zero) without std.
fn round(f: f64) -> f64 {
    if !(f.is_finite()) || abs(f) >= 4_503_599_627_370_496.0 {
        return f;
    }
    let t = trunc(f);
    let frac = f - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

fn abs(f: f64) -> f64 {
    if f < 0.0 { -f } else { f }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(a: &str, b: &str) -> bool {
        equal(Json::new(a).unwrap(), Json::new(b).unwrap(), 8).unwrap()
    }

    #[test]
    fn semantic_equality() {
        let yes = [
            ("1", "1.0"),
            ("1", "1e0"),
            ("-0", "0"),
            (r#""a\u0062""#, r#""ab""#),
            (r#"{"a":1,"b":[2]}"#, r#"{ "b":[2.0], "a":1 }"#),
            ("[]", "[ ]"),
            ("null", "null"),
        ];
        for (a, b) in yes {
            assert!(eq(a, b), "{a} == {b}");
            assert!(eq(b, a), "{b} == {a}");
        }
        let no = [
            ("1", "true"),
            ("0", "false"),
            ("[1]", "[1,1]"),
            (r#"{"a":1}"#, r#"{"a":1,"b":1}"#),
            (r#"{"a":1}"#, r#"{"b":1}"#),
            (r#""1""#, "1"),
            ("{}", "[]"),
            ("null", "false"),
        ];
        for (a, b) in no {
            assert!(!eq(a, b), "{a} != {b}");
            assert!(!eq(b, a), "{b} != {a}");
        }
        let deep = Json::new("[[[[1]]]]").unwrap();
        let deep2 = Json::new("[[[[2]]]]").unwrap();
        assert_eq!(equal(deep, deep2, 2), Err(TooDeep));
    }

    #[test]
    fn multiples() {
        let n = |s: &str| Num::of(Json::new(s).unwrap()).unwrap();
        assert!(is_multiple_of(n("10"), n("5")));
        assert!(!is_multiple_of(n("10"), n("3")));
        assert!(is_multiple_of(n("0.07"), n("0.01")));
        assert!(is_multiple_of(n("0.0075"), n("0.0001")));
        assert!(!is_multiple_of(n("0.00751"), n("0.0001")));
        assert!(!is_multiple_of(n("1e308"), n("0.123456789")));
        assert!(is_multiple_of(n("4.0"), n("2")));
        assert!(!is_multiple_of(n("4.5"), n("2")));
        assert!(is_multiple_of(
            n("170141183460469231731687303715884105727"),
            n("1")
        ));
        assert!(n("1.0").is_integral() && !n("1.5").is_integral() && !n("1e400").is_integral());
    }
}
