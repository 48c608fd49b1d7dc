//! `float`: the float conversions of `json::number` and `json::float_text` against
//! `core`'s. Input: `[8 bytes: an f64's bits] text...`.
//!
//! - The bits, when finite: `format_f64` is valid JSON, reads back (`str::parse` and
//!   `Json::as_f64_compact`) as the same value, and has no more significant digits than
//!   `core`'s shortest form (`{:e}`).
//! - The text, when it is a JSON number of at most 19 significant digits:
//!   `Json::as_f64_compact` equals `str::parse::<f64>` bit for bit.

use picomcp::json::{F64_TEXT_MAX, Json, JsonKind, format_f64};

fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

pub fn run(data: &[u8]) {
    let (bits, text) = match data.split_first_chunk::<8>() {
        Some((b, rest)) => (Some(u64::from_le_bytes(*b)), rest),
        None => (None, data),
    };
    if let Some(bits) = bits {
        let v = f64::from_bits(bits);
        if v.is_finite() {
            let mut buf = [0u8; F64_TEXT_MAX];
            let s = format_f64(v, &mut buf);
            let back: f64 = s.parse().expect("format_f64 text parses");
            assert_eq!(back.to_bits(), v.to_bits(), "{s} reads back");
            let j = Json::new(s).expect("format_f64 text is JSON");
            let compact = j.as_f64_compact().expect("a number");
            assert_eq!(compact.to_bits(), v.to_bits(), "{s} through as_f64_compact");
            if v != 0.0 {
                let shortest = format!("{v:e}");
                assert!(
                    significant_digits(s) <= significant_digits(&shortest),
                    "{s} longer than {shortest}"
                );
            }
        }
    }
    let Ok(text) = core::str::from_utf8(text) else {
        return;
    };
    let Ok(j) = Json::new(text) else {
        return;
    };
    if j.kind() != JsonKind::Number || significant_digits(j.as_raw()) > 19 {
        return;
    }
    let want: f64 = j.as_raw().parse().expect("a JSON number parses");
    let got = j.as_f64_compact().expect("a number");
    assert_eq!(got.to_bits(), want.to_bits(), "{text}");
}
