//! Natural numbers: base 10^9 limbs, little endian, no high zero limbs.

#[allow(unused_imports)]
use super::*;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Nat(pub(super) Vec<u32>);

impl Nat {
    pub(super) fn from_u128(mut v: u128) -> Nat {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(LIMB_BASE)) as u32);
            v /= u128::from(LIMB_BASE);
        }
        Nat(limbs)
    }

    /// Builds a number from ASCII decimal digits (callers pass digits only).
    pub(super) fn from_digits(digits: &[u8]) -> Nat {
        let mut limbs = Vec::with_capacity(digits.len() / LIMB_DIGITS + 1);
        let mut end = digits.len();
        while end > 0 {
            let start = end.saturating_sub(LIMB_DIGITS);
            let mut limb = 0u32;
            for &c in &digits[start..end] {
                limb = limb * 10 + u32::from(c.wrapping_sub(b'0') % 10);
            }
            limbs.push(limb);
            end = start;
        }
        let mut n = Nat(limbs);
        n.trim();
        n
    }

    pub(super) fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    pub(super) fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn num_digits(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() - 1) * LIMB_DIGITS + decimal_len(u64::from(top)),
        }
    }

    pub(super) fn mul_small(&mut self, m: u64) {
        if self.is_zero() {
            return;
        }
        if m == 0 {
            self.0.clear();
            return;
        }
        let base = u128::from(LIMB_BASE);
        let mut carry: u128 = 0;
        for limb in &mut self.0 {
            let t = u128::from(*limb) * u128::from(m) + carry;
            *limb = (t % base) as u32;
            carry = t / base;
        }
        while carry > 0 {
            self.0.push((carry % base) as u32);
            carry /= base;
        }
    }

    pub(super) fn mul_pow10(&mut self, k: usize) {
        if self.is_zero() || k == 0 {
            return;
        }
        self.mul_small(POW10_U64[k % LIMB_DIGITS]);
        let zeros = k / LIMB_DIGITS;
        if zeros > 0 {
            let mut limbs = vec![0u32; zeros];
            limbs.append(&mut self.0);
            self.0 = limbs;
        }
    }

    pub(super) fn add_small(&mut self, a: u64) {
        let mut carry = a;
        for limb in &mut self.0 {
            if carry == 0 {
                break;
            }
            let t = u64::from(*limb) + carry;
            *limb = (t % LIMB_BASE) as u32;
            carry = t / LIMB_BASE;
        }
        while carry > 0 {
            self.0.push((carry % LIMB_BASE) as u32);
            carry /= LIMB_BASE;
        }
    }

    pub(super) fn add(&self, other: &Nat) -> Nat {
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.0.iter().enumerate() {
            let t = u64::from(l) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            out.push((t % LIMB_BASE) as u32);
            carry = t / LIMB_BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Nat(out)
    }

    /// `self - other`; requires `self >= other`.
    pub(super) fn sub(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &l) in self.0.iter().enumerate() {
            let mut t = i64::from(l) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            if t < 0 {
                t += LIMB_BASE as i64;
                borrow = 1;
            } else {
                borrow = 0;
            }
            out.push(t as u32);
        }
        let mut n = Nat(out);
        n.trim();
        n
    }

    pub(super) fn cmp_nat(&self, other: &Nat) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// Divides in place by `d` (1 ≤ d ≤ 10^9), returning the remainder.
    pub(super) fn div_small(&mut self, d: u64) -> u64 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let cur = rem * LIMB_BASE + u64::from(*limb);
            *limb = (cur / d) as u32;
            rem = cur % d;
        }
        self.trim();
        rem
    }

    /// Truncating division by 10^k; returns whether the remainder was non-zero.
    pub(super) fn div_pow10(&mut self, k: usize) -> bool {
        if k == 0 || self.is_zero() {
            return false;
        }
        let limbs = k / LIMB_DIGITS;
        if limbs >= self.0.len() {
            self.0.clear();
            return true;
        }
        let mut inexact = self.0[..limbs].iter().any(|&l| l != 0);
        self.0.drain(..limbs);
        let r = k % LIMB_DIGITS;
        if r > 0 && self.div_small(POW10_U64[r]) != 0 {
            inexact = true;
        }
        inexact
    }

    pub(super) fn trailing_decimal_zeros(&self) -> usize {
        let mut n = 0;
        for &l in &self.0 {
            if l == 0 {
                n += LIMB_DIGITS;
            } else {
                let mut l = l;
                while l % 10 == 0 {
                    l /= 10;
                    n += 1;
                }
                return n;
            }
        }
        n
    }

    /// The value modulo 2^64.
    pub(super) fn low_u64(&self) -> u64 {
        self.0.iter().rev().fold(0u64, |acc, &l| {
            acc.wrapping_mul(LIMB_BASE).wrapping_add(u64::from(l))
        })
    }

    pub(super) fn to_u128(&self) -> Option<u128> {
        self.0.iter().rev().try_fold(0u128, |acc, &l| {
            acc.checked_mul(u128::from(LIMB_BASE))?
                .checked_add(u128::from(l))
        })
    }
}

impl fmt::Display for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut limbs = self.0.iter().rev();
        match limbs.next() {
            None => f.write_str("0"),
            Some(top) => {
                write!(f, "{top}")?;
                for l in limbs {
                    write!(f, "{l:09}")?;
                }
                Ok(())
            }
        }
    }
}

pub(super) fn decimal_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// 10^k modulo 2^64.
pub(super) fn pow10_mod_2_64(k: u64) -> u64 {
    if k >= 64 {
        0 // 2^64 divides 10^k
    } else {
        10u64.wrapping_pow(k as u32)
    }
}
