//! A compact JSON-number-to-`f64` conversion that does not link `core`'s `f64::from_str`.
//!
//! `f64::from_str` is exact for every input, but costs about 15 KiB of flash on a
//! Cortex-M (a 10 KiB table of powers of five plus the big-decimal fallback) and up to
//! 1.7 KiB of stack. This is Clinger's fast path: correctly rounded whenever the
//! significand has at most 15 significant digits and the decimal exponent is within
//! ±22, and within a few units in the last place otherwise.

/// Parses a number the scanner already validated as JSON (see [`Json::as_f64_compact`]).
pub(crate) fn parse_f64(b: &[u8]) -> f64 {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let neg = b.first() == Some(&b'-');
    let mut mant: u64 = 0;
    let mut digits = 0; // significant digits kept in `mant`
    let mut exp: i32 = 0; // value = mant * 10^exp
    let mut frac = false;
    let mut i = usize::from(neg);
    while i < b.len() {
        match b[i] {
            b'.' => frac = true,
            d @ b'0'..=b'9' => {
                let d = u64::from(d - b'0');
                if digits < 19 && (mant != 0 || d != 0) {
                    mant = mant * 10 + d;
                    digits += 1;
                    exp -= i32::from(frac);
                } else if mant == 0 {
                    exp -= i32::from(frac); // a leading zero after the point
                } else if !frac {
                    exp += 1; // an integer digit beyond the 19 we keep
                }
            }
            _ => break, // 'e' or 'E'
        }
        i += 1;
    }
    if i < b.len() {
        i += 1;
        let eneg = b.get(i) == Some(&b'-');
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let mut e: i32 = 0;
        for &d in &b[i..] {
            e = e.saturating_mul(10).saturating_add(i32::from(d - b'0'));
        }
        exp = exp.saturating_add(if eneg { -e } else { e });
    }
    let mut x = mant as f64;
    if mant != 0 {
        if mant < 1 << 53 && (-22..=22).contains(&exp) {
            // One correctly rounded operation on exact operands.
            let p = POW10[exp.unsigned_abs() as usize];
            x = if exp < 0 { x / p } else { x * p };
        } else {
            let mut e = exp;
            while e > 0 && x.is_finite() {
                let k = e.min(22);
                x *= POW10[k as usize];
                e -= k;
            }
            while e < 0 && x != 0.0 {
                let k = (-e).min(22);
                x /= POW10[k as usize];
                e += k;
            }
        }
    }
    if neg { -x } else { x }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    #[test]
    fn exact_in_the_fast_path() {
        for t in [
            "0",
            "-0",
            "1",
            "-1",
            "0.5",
            "2.5e3",
            "1e22",
            "123456789012345",
            "0.1",
            "-3.25e-7",
            "1.5",
            "100",
            "0.000001",
            "9007199254740991",
            "1E5",
            "1e+2",
            "4.9e-22",
        ] {
            let want: f64 = t.parse().unwrap();
            let got = parse_f64(t.as_bytes());
            assert_eq!(got.to_bits(), want.to_bits(), "{t}");
        }
    }

    #[test]
    fn close_outside_it() {
        for t in [
            "1e300",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "12345678901234567890123",
            "0.1234567890123456789",
            "1e-300",
        ] {
            let want: f64 = t.parse().unwrap();
            let got = parse_f64(t.as_bytes());
            assert!(((got - want) / want).abs() < 1e-14, "{t}: {got} vs {want}");
        }
        assert!(parse_f64(b"1e400").is_infinite());
        assert_eq!(parse_f64(b"1e-400"), 0.0);
    }
}
