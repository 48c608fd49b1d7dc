//! `json::format_f64` prints every finite `f64` byte for byte as `ryu` does (without
//! `ryu`'s `.0` on integers), and the text reads back as the same value.
//!
//! The firmware's `add` replaced `ryu` with it (about 3.5 KiB of flash), so its output
//! must not change: random bit patterns (every exponent, subnormals included), random
//! "human" decimals, integers and their neighbours at and beyond 2^53, the powers of two
//! and ten, and the layout boundaries (1e15/1e16, 1e-4/1e-5, 1e21, 1e-7).

use picomcp::json::{F64_TEXT_MAX, format_f64};
use proptest::prelude::*;

/// What the firmware printed with `ryu` (`number_json` in examples/firmware/src/app.rs).
fn reference(v: f64) -> String {
    let mut b = ryu::Buffer::new();
    let s = b.format_finite(v);
    s.strip_suffix(".0").unwrap_or(s).to_owned()
}

fn check(v: f64) {
    let mut buf = [0u8; F64_TEXT_MAX];
    let got = format_f64(v, &mut buf);
    assert_eq!(got, reference(v), "bits {:#018x} ({v:e})", v.to_bits());
    let back: f64 = got.parse().unwrap();
    assert_eq!(back.to_bits(), v.to_bits(), "{got} does not read back");
}

fn neighbours(v: f64) -> [f64; 5] {
    let b = v.to_bits();
    [
        f64::from_bits(b.wrapping_sub(2)),
        f64::from_bits(b.wrapping_sub(1)),
        v,
        f64::from_bits(b + 1),
        f64::from_bits(b + 2),
    ]
}

#[test]
fn edge_cases() {
    let mut cases = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        5e-324,
        -5e-324,
        1e-7,
        1e21,
        1e22,
        1e23,
        0.1,
        0.2,
        0.3,
        0.1 + 0.2,
        2.0f64.powi(53),
        2.0f64.powi(53) + 2.0,
        2.0f64.powi(54),
        2.0f64.powi(63),
        2.0f64.powi(64),
        9007199254740991.0,
        123456789012345680.0,
        1.7976931348623157e308,
        f64::from_bits(0x000f_ffff_ffff_ffff), // largest subnormal
        2.2250738585072014e-308,
        f64::from_bits(1),
        f64::from_bits(2),
        1.5e-7,
        0.001234,
        12.34,
    ];
    for e in -1074..=1023 {
        cases.push(2.0f64.powi(e));
    }
    for e in -325..=309 {
        if let Ok(v) = format!("1e{e}").parse::<f64>() {
            cases.push(v);
        }
        if let Ok(v) = format!("9.999999999999999e{e}").parse::<f64>() {
            cases.push(v);
        }
        if let Ok(v) = format!("5e{e}").parse::<f64>() {
            cases.push(v);
        }
    }
    for i in 0..200u64 {
        cases.push(i as f64);
        cases.push((1u64 << 53) as f64 - i as f64);
        cases.push(i as f64 / 10.0);
        cases.push(i as f64 / 1000.0);
    }
    for &v in &cases {
        for v in neighbours(v) {
            if v.is_finite() {
                check(v);
                check(-v);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 500 } else { 20_000 }))]

    #[test]
    fn any_bit_pattern(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        if v.is_finite() {
            check(v);
        }
    }

    #[test]
    fn subnormals(bits in 0u64..(1 << 52)) {
        check(f64::from_bits(bits));
    }

    #[test]
    fn decimals(mantissa in 0u64..100_000_000_000_000_000, exp in -330i32..310) {
        if let Ok(v) = format!("{mantissa}e{exp}").parse::<f64>()
            && v.is_finite()
        {
            check(v);
        }
    }

    #[test]
    fn integers(n in any::<i64>()) {
        for v in neighbours(n as f64) {
            check(v);
        }
    }

    #[test]
    fn sums(a in -1e6f64..1e6, b in -1e6f64..1e6) {
        check(a + b);
    }
}

#[test]
fn non_finite_is_null() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut buf = [0u8; F64_TEXT_MAX];
        assert_eq!(format_f64(v, &mut buf), "null");
    }
}
