//! The shortest decimal text of an `f64` that reads back as the same value, in a few
//! hundred bytes of code and no tables.
//!
//! `core::fmt`'s float printing (Grisu with a Dragon fallback) and the `ryu` crate are
//! fast, but cost 3–8 KiB of flash on a Cortex-M, most of it tables of powers of ten and
//! 64-bit division. A device prints a float rarely (the firmware's `add`), so this is
//! the free-format algorithm of Steele & White / Burger & Dybvig on small fixed-size
//! big integers (`big.rs`) instead: exact, slower (a few thousand limb operations per number), and
//! small. Its digits are those `ryu` prints (the shortest that round-trip, the closest
//! to the exact value among them, ties to even) and its layout is `ryu`'s too (`1e16`,
//! `1.5e-7`, `0.001`), except that integers have no `.0`: `5`, as JSON writes them.
//! `core/tests/float_text.rs` compares it to `ryu` byte for byte.

use core::cmp::Ordering;

use super::big::Big;

/// The longest text [`format_f64`] writes: a sign, 17 digits, a point and `e-324`.
pub const F64_TEXT_MAX: usize = 24;

/// Whether `a + b` reaches `c`: `>=` when the bound is part of the interval, `>` otherwise.
fn sum_reaches(a: &Big, b: &Big, c: &Big, inclusive: bool) -> bool {
    let mut t = *a;
    t.add(b);
    reaches(t.cmp(c), inclusive)
}

fn reaches(o: Ordering, inclusive: bool) -> bool {
    o == Ordering::Greater || (inclusive && o == Ordering::Equal)
}

/// Appends bytes to a fixed buffer (never past its end).
struct Out<'a> {
    buf: &'a mut [u8; F64_TEXT_MAX],
    len: usize,
}

impl Out<'_> {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn push_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    fn zeros(&mut self, n: i32) {
        for _ in 0..n {
            self.push(b'0');
        }
    }
}

/// Writes `v` as the shortest decimal that reads back as `v`, in `ryu`'s layout without
/// its `.0` on integers (`5`, `-0`, `0.1`, `1e16`, `1.5e-7`, `5e-324`), and returns it.
/// NaN and the infinities (not JSON numbers) are `null`.
pub fn format_f64(v: f64, buf: &mut [u8; F64_TEXT_MAX]) -> &str {
    let mut out = Out { buf, len: 0 };
    write(v, &mut out);
    let len = out.len;
    core::str::from_utf8(&buf[..len]).unwrap_or("null")
}

fn write(v: f64, out: &mut Out<'_>) {
    if !v.is_finite() {
        return out.push_all(b"null");
    }
    if v.is_sign_negative() {
        out.push(b'-');
    }
    if v == 0.0 {
        return out.push(b'0');
    }
    let mut digits = [0u8; 17];
    let (n, k) = shortest(v, &mut digits);
    let digits = &digits[..n];
    // The value is 0.d1d2…dn × 10^k.
    let n = n as i32;
    if (n..=16).contains(&k) {
        out.push_all(digits); // 1234e7 -> 12340000000
        out.zeros(k - n);
    } else if (1..=16).contains(&k) {
        let (int, frac) = digits.split_at(k as usize); // 1234e-2 -> 12.34
        out.push_all(int);
        out.push(b'.');
        out.push_all(frac);
    } else if (-4..=0).contains(&k) {
        out.push_all(b"0."); // 1234e-6 -> 0.001234
        out.zeros(-k);
        out.push_all(digits);
    } else {
        let (first, rest) = digits.split_at(1); // 1234e30 -> 1.234e33, 1e30
        out.push_all(first);
        if !rest.is_empty() {
            out.push(b'.');
            out.push_all(rest);
        }
        out.push(b'e');
        let e = k - 1;
        if e < 0 {
            out.push(b'-');
        }
        let e = e.unsigned_abs();
        if e >= 100 {
            out.push(b'0' + (e / 100) as u8);
        }
        if e >= 10 {
            out.push(b'0' + (e / 10 % 10) as u8);
        }
        out.push(b'0' + (e % 10) as u8);
    }
}

/// The shortest digits of a finite, nonzero `v` (as ASCII, into `digits`) and the
/// decimal exponent `k` with `|v|` ≈ 0.d1d2…dn × 10^k: `(n, k)`.
fn shortest(v: f64, digits: &mut [u8; 17]) -> (usize, i32) {
    let bits = v.to_bits();
    let fraction = bits & ((1 << 52) - 1);
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let (f, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    // Round-to-even reading: the interval's ends read back as `v` when `f` is even.
    let even = f & 1 == 0;
    // At a power of two the gap below is half the gap above.
    let unequal = fraction == 0 && biased > 1;
    // v = r/s; the interval that reads back as v is (r - mm)/s ..= (r + mp)/s.
    let (mut r, mut s, mut mp, mut mm);
    let gap = u32::from(unequal);
    if e >= 0 {
        r = Big::new(f);
        r.mul_pow(2, 31, e as u32 + 1 + gap);
        s = Big::new(2 << gap);
        mp = Big::new(1);
        mp.mul_pow(2, 31, e as u32 + gap);
        mm = Big::new(1);
        mm.mul_pow(2, 31, e as u32);
    } else {
        r = Big::new(f << (1 + gap));
        s = Big::new(1);
        s.mul_pow(2, 31, (1 - e) as u32 + gap);
        mp = Big::new(1 << gap);
        mm = Big::new(1);
    }
    // The bit length of v is p+1 with p = e + 52 (less for subnormals), so
    // floor(p·log10 2) - 1 is below the decimal exponent; the loop below raises it.
    let p = e + 63 - f.leading_zeros() as i32;
    let mut k = ((p * 78913) >> 18) - 1;
    if k >= 0 {
        s.mul_pow(10, 9, k as u32);
    } else {
        for x in [&mut r, &mut mp, &mut mm] {
            x.mul_pow(10, 9, k.unsigned_abs());
        }
    }
    // Smallest k with (r + mp)/s below 1 (at most 1 when the end is excluded).
    while sum_reaches(&r, &mp, &s, even) {
        s.mul_small(10);
        k += 1;
    }
    let mut n = 0;
    loop {
        for x in [&mut r, &mut mp, &mut mm] {
            x.mul_small(10);
        }
        let mut d = 0u8;
        while r.cmp(&s) != Ordering::Less {
            r.sub(&s);
            d += 1;
        }
        let low = reaches(mm.cmp(&r), even); // d itself is in the interval
        let high = sum_reaches(&r, &mp, &s, even); // so is d + 1
        let last = n + 1 == digits.len();
        let d = match (low, high) {
            (false, false) if !last => d,
            (true, false) => d,
            (false, true) => d + 1,
            // Both (or, never reached, the 17th digit): the closer, ties to even.
            _ => {
                let mut twice = r;
                twice.add(&r);
                match twice.cmp(&s) {
                    Ordering::Less => d,
                    Ordering::Greater => d + 1,
                    Ordering::Equal => d + (d & 1),
                }
            }
        };
        digits[n] = b'0' + d;
        n += 1;
        if low || high || last {
            return (n, k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        for (v, want) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (5.0, "5"),
            (0.1, "0.1"),
            (0.3, "0.3"),
            (0.1 + 0.2, "0.30000000000000004"),
            (12.34, "12.34"),
            (0.001234, "0.001234"),
            (1e-5, "0.00001"),
            (1e-6, "1e-6"),
            (1.5e-7, "1.5e-7"),
            (1e15, "1000000000000000"),
            (1e16, "1e16"),
            (1.5e300, "1.5e300"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e308"),
            (f64::NAN, "null"),
            (f64::NEG_INFINITY, "null"),
        ] {
            let mut buf = [0u8; F64_TEXT_MAX];
            assert_eq!(format_f64(v, &mut buf), want, "{v:e}");
        }
    }
}
