//! Python's `random` module, as far as RAGFlow uses it (`random.choice` of a Message's
//! alternatives), so that seeded runs pick exactly what RAGFlow picks.

use rand_mt::Mt;

/// A Mersenne Twister seeded like `random.seed(n)` for a non-negative int.
pub struct PyRandom(Mt);

impl PyRandom {
    pub fn seeded(seed: u64) -> Self {
        // `random.seed(int)` feeds the absolute value as 32-bit words, least significant first.
        let mut key: Vec<u32> = Vec::new();
        let mut n = seed;
        loop {
            key.push((n & 0xffff_ffff) as u32);
            n >>= 32;
            if n == 0 {
                break;
            }
        }
        PyRandom(Mt::new_with_key(key))
    }

    pub fn from_entropy() -> Self {
        PyRandom::seeded(rand::random::<u64>())
    }

    fn getrandbits(&mut self, k: u32) -> u64 {
        debug_assert!(k <= 32);
        if k == 0 {
            return 0;
        }
        u64::from(self.0.next_u32() >> (32 - k))
    }

    /// `random.choice` index for a sequence of `n > 0` items (CPython 3.11 `_randbelow`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let n = n as u64;
        let k = 64 - n.leading_zeros();
        let mut r = self.getrandbits(k.min(32));
        while r >= n {
            r = self.getrandbits(k.min(32));
        }
        r as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_cpython_seed_zero() {
        // python3 -c "import random; random.seed(0); print([random.choice(range(5)) for _ in range(8)], random.choice([1]), random.choice(range(3)))"
        let mut r = PyRandom::seeded(0);
        let picks: Vec<usize> = (0..8).map(|_| r.below(5)).collect();
        assert_eq!(picks, vec![3, 3, 0, 2, 4, 3, 3, 2]);
        assert_eq!(r.below(1), 0);
        assert_eq!(r.below(3), 1);
    }
}
