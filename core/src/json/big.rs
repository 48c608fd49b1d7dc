//! Small fixed-size unsigned big integers for the exact float conversions
//! (`float_text.rs`, `number.rs`): just the operations those need, without allocation,
//! on 32-bit limbs so that a 32-bit device multiplies with one instruction.

use core::cmp::Ordering;

/// 32-bit limbs. The largest value is below 2^1150 (`number.rs`: 10^343 as a divisor,
/// the dividend aligned to it and doubled once); `float_text.rs` stays below 2^1090.
/// 40 limbs are 1280 bits, 160 bytes of stack per value.
const LIMBS: usize = 40;

/// An unsigned integer of `LIMBS` 32-bit limbs, least significant first.
#[derive(Clone, Copy)]
pub(crate) struct Big([u32; LIMBS]);

impl Big {
    pub(crate) fn new(v: u64) -> Self {
        let mut b = Big([0; LIMBS]);
        b.0[0] = v as u32;
        b.0[1] = (v >> 32) as u32;
        b
    }

    pub(crate) fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.0 {
            let t = u64::from(*l) * u64::from(m) + carry;
            *l = t as u32;
            carry = t >> 32;
        }
    }

    /// Multiplies by `base^n`, `base^chunk` at a time (`base^chunk` must fit a `u32`).
    pub(crate) fn mul_pow(&mut self, base: u32, chunk: u32, mut n: u32) {
        while n > 0 {
            let step = n.min(chunk);
            self.mul_small(base.pow(step));
            n -= step;
        }
    }

    pub(crate) fn add(&mut self, o: &Big) {
        let mut carry = 0u64;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let t = u64::from(*a) + u64::from(*b) + carry;
            *a = t as u32;
            carry = t >> 32;
        }
    }

    /// `self -= o`; callers ensure `self >= o`.
    pub(crate) fn sub(&mut self, o: &Big) {
        let mut borrow = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let (t, b1) = a.overflowing_sub(*b);
            let (t, b2) = t.overflowing_sub(u32::from(borrow));
            *a = t;
            borrow = b1 | b2;
        }
    }

    pub(crate) fn cmp(&self, o: &Big) -> Ordering {
        self.0.iter().rev().cmp(o.0.iter().rev())
    }

    /// The number of significant bits (0 for zero).
    pub(crate) fn bit_len(&self) -> u32 {
        let mut len = 0;
        for (i, &l) in self.0.iter().enumerate() {
            if l != 0 {
                len = 32 * i as u32 + 32 - l.leading_zeros();
            }
        }
        len
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }
}
