//! A compact JSON-number-to-`f64` conversion that does not link `core`'s `f64::from_str`.
//!
//! `f64::from_str` is exact for every input, but costs about 15 KiB of flash on a
//! Cortex-M (a 10 KiB table of powers of five plus the big-decimal fallback) and up to
//! 1.7 KiB of stack. This keeps the first 19 significant digits (the rest are dropped,
//! so longer inputs can be off by an ulp) and converts them exactly with small big
//! integers (`big.rs`): correctly rounded, ties to even, for every input of at most 19
//! significant digits, in a few hundred bytes of code. Hosts first try Clinger's fast
//! path (at most 15 digits and a power of ten up to 22: one `f64` operation), which
//! gives the same result sooner.

use core::cmp::Ordering;

use super::big::Big;

/// Parses a number the scanner already validated as JSON (see [`Json::as_f64_compact`]).
pub(crate) fn parse_f64(b: &[u8]) -> f64 {
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
    let x = if mant == 0 {
        0.0
    } else {
        fast(mant, exp).unwrap_or_else(|| exact(mant, exp))
    };
    if neg { -x } else { x }
}

/// Clinger's fast path on hosts: one correctly rounded operation on exact operands.
/// (Bare-metal targets take [`exact`] for everything: the `f64` multiply, divide and
/// integer conversion it would link are about 1.8 KiB of soft-float code there.)
#[cfg(not(target_os = "none"))]
fn fast(mant: u64, exp: i32) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if mant >= 1 << 53 || !(-22..=22).contains(&exp) {
        return None;
    }
    let (x, p) = (mant as f64, POW10[exp.unsigned_abs() as usize]);
    Some(if exp < 0 { x / p } else { x * p })
}

#[cfg(target_os = "none")]
fn fast(_: u64, _: i32) -> Option<f64> {
    None
}

/// `mant × 10^exp` correctly rounded (ties to even), `mant > 0`: the quotient `n / d`
/// (`n = mant·10^exp`, `d = 1`, or `n = mant`, `d = 10^-exp`) is aligned to `[1, 2)`
/// times `2^t`, its first 64 bits are found by long division, and those are rounded to
/// the 53 bits of an `f64` (fewer for a subnormal), the remainder deciding ties.
fn exact(mant: u64, exp: i32) -> f64 {
    // mant < 2^64 < 10^20: below 10^-343 the value is under half the smallest
    // subnormal, and above 10^309 it is over the largest finite value.
    if exp > 309 {
        return f64::INFINITY;
    }
    if exp < -343 {
        return 0.0;
    }
    let mut n = Big::new(mant);
    let mut d = Big::new(1);
    if exp >= 0 {
        n.mul_pow(10, 9, exp as u32);
    } else {
        d.mul_pow(10, 9, exp.unsigned_abs());
    }
    // Align: d <= n < 2d, value = (n / d) · 2^t.
    let mut t = n.bit_len() as i32 - d.bit_len() as i32;
    if t > 0 {
        d.mul_pow(2, 31, t as u32);
    } else {
        n.mul_pow(2, 31, t.unsigned_abs());
    }
    if n.cmp(&d) == Ordering::Less {
        n.mul_small(2);
        t -= 1;
    }
    // q = floor(n / d · 2^63), in [2^63, 2^64); the remainder stays in n.
    let mut q = 0u64;
    for _ in 0..64 {
        q <<= 1;
        if n.cmp(&d) != Ordering::Less {
            n.sub(&d);
            q |= 1;
        }
        n.mul_small(2);
    }
    let sticky = !n.is_zero();
    // value in [2^t, 2^(t+1)): biased exponent t + 1023 if normal.
    let biased = t + 1023;
    if biased >= 0x7ff {
        return f64::INFINITY;
    }
    // Bits of q below the result's last place: 11 for a normal, more for a subnormal.
    let shift = 11 + (1 - biased).max(0) as u32;
    if shift > 64 {
        return 0.0; // below half the smallest subnormal
    }
    let (m, rem, half) = if shift == 64 {
        (0, q, 1 << 63)
    } else {
        (q >> shift, q & ((1 << shift) - 1), 1 << (shift - 1))
    };
    let up = rem > half || (rem == half && (sticky || m & 1 == 1));
    let m = m + u64::from(up);
    // m holds the implicit bit (2^52) for a normal, so one addition places the exponent;
    // a carry out of rounding (m = 2^53) moves it up by one, to infinity at most.
    f64::from_bits((((biased.max(1) - 1) as u64) << 52) + m)
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
    fn exact_outside_it() {
        for t in [
            "1e300",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9406564584124654e-324",
            "2.4703282292062328e-324",
            "2.4703282292062327e-324",
            "1234567890123456789e-10",
            "0.1234567890123456789",
            "9007199254740993",
            "1e-300",
            "1e23",
            "8.98846567431158e307",
        ] {
            let want: f64 = t.parse().unwrap();
            let got = parse_f64(t.as_bytes());
            assert_eq!(got.to_bits(), want.to_bits(), "{t}: {got:e} vs {want:e}");
        }
        assert!(parse_f64(b"1e400").is_infinite());
        assert!(parse_f64(b"1.7976931348623159e308").is_infinite());
        assert_eq!(parse_f64(b"1e-400"), 0.0);
        assert_eq!(parse_f64(b"2e-324"), 0.0);
        // More than 19 significant digits: the rest are dropped (truncation).
        let got = parse_f64(b"12345678901234567890123");
        let want: f64 = "1234567890123456789e4".parse().unwrap();
        assert_eq!(got.to_bits(), want.to_bits());
    }

    #[test]
    fn exact_path_agrees_with_the_fast_path() {
        for (mant, exp) in [(1u64, 0), (5, -1), (123456789012345, -7), (3, 22), (7, -22)] {
            let fast = super::fast(mant, exp).unwrap();
            assert_eq!(
                super::exact(mant, exp).to_bits(),
                fast.to_bits(),
                "{mant}e{exp}"
            );
        }
    }

    /// What bare-metal targets run for every input: `exact` alone, against `core`.
    #[test]
    fn exact_alone_is_correctly_rounded() {
        extern crate std;
        use std::format;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for i in 0..3_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Small mantissas and exponents half the time (the fast path's range).
            let (mant, exp) = if i % 2 == 0 {
                (x % 10_000_000_000_000_000_000, (x >> 40) as i32 % 345 - 20)
            } else {
                (x % 1_000_000_000_000_000, (x >> 40) as i32 % 23)
            };
            if mant == 0 {
                continue;
            }
            let want: f64 = format!("{mant}e{exp}").parse().unwrap();
            let want_neg: f64 = format!("{mant}e{}", -exp).parse().unwrap();
            assert_eq!(
                super::exact(mant, exp).to_bits(),
                want.to_bits(),
                "{mant}e{exp}"
            );
            assert_eq!(
                super::exact(mant, -exp).to_bits(),
                want_neg.to_bits(),
                "{mant}e-{exp}"
            );
        }
    }
}
