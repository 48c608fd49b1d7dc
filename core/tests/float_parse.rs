//! `Json::as_f64_compact` is correctly rounded (as `str::parse::<f64>`) for every number
//! of at most 19 significant digits: random digit strings over the whole exponent range
//! (subnormals, overflow and underflow included), the shortest text of random doubles,
//! and numbers near the midpoint of neighbouring doubles. Bare-metal targets use only the
//! exact big-integer path; `number.rs`'s unit tests pin it to the hosts' fast path.

use picomcp::json::Json;
use proptest::prelude::*;

fn check(text: &str) {
    let want: f64 = text.parse().unwrap();
    let got = Json::new(text).unwrap().as_f64_compact().unwrap();
    assert_eq!(got.to_bits(), want.to_bits(), "{text}: {got:e} vs {want:e}");
}

fn cases() -> u32 {
    if cfg!(debug_assertions) {
        2_000
    } else {
        20_000
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn digits_and_exponents(
        neg in any::<bool>(),
        mant in 1u64..10_000_000_000_000_000_000,
        point in 0usize..20,
        exp in -360i32..330,
    ) {
        let digits = mant.to_string();
        let point = point.min(digits.len());
        let (int, frac) = digits.split_at(point);
        let int = if int.is_empty() { "0" } else { int };
        let sign = if neg { "-" } else { "" };
        let text = if frac.is_empty() {
            format!("{sign}{int}e{exp}")
        } else {
            format!("{sign}{int}.{frac}e{exp}")
        };
        check(&text);
    }

    #[test]
    fn shortest_text_of_any_double(bits in any::<u64>()) {
        let v = f64::from_bits(bits);
        if v.is_finite() {
            check(&format!("{v:e}"));
        }
    }

    #[test]
    fn near_midpoints(bits in 1u64..0x7fef_ffff_ffff_ffff) {
        // Near the midpoint of two neighbouring doubles, to 19 digits.
        let lo = f64::from_bits(bits);
        let hi = f64::from_bits(bits + 1);
        let text = format!("{:.18e}", (lo / 2.0) + (hi / 2.0));
        check(&text);
        let mid = format!("{:.18e}", lo + (hi - lo) / 2.0);
        check(&mid);
    }

    #[test]
    fn integers(n in 0u64..10_000_000_000_000_000_000) {
        check(&n.to_string());
    }
}
