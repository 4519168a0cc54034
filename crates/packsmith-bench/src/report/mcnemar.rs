//! McNemar's exact test: on paired binary outcomes, only the discordant
//! pairs count (b: A passed and B failed; c: the reverse). Under the null
//! hypothesis b ~ Binomial(b + c, 1/2); the two-sided p-value doubles the
//! smaller tail, capped at 1.

/// ln(n choose k), summed term by term (exact enough for n in the tens of
/// thousands; no gamma function in std).
fn ln_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n - k);
    (0..k)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

/// Two-sided exact p-value for `b` and `c` discordant pairs.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let m = b.min(c);
    let ln_half_n = n as f64 * 0.5f64.ln();
    let tail: f64 = (0..=m).map(|k| (ln_choose(n, k) + ln_half_n).exp()).sum();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.max(1e-300) + 1e-15
    }

    #[test]
    fn known_values() {
        // 2 * (C(10,0)+C(10,1)+C(10,2)) / 2^10 = 112/1024.
        assert!(close(mcnemar_exact(2, 8), 0.109375));
        assert!(close(mcnemar_exact(8, 2), 0.109375));
        // 2 * 1/2^5.
        assert!(close(mcnemar_exact(0, 5), 0.0625));
        // 2 * (1 + 12) / 2^12.
        assert!(close(mcnemar_exact(1, 11), 26.0 / 4096.0));
        // Balanced: the tail passes one half, so p is capped at 1.
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // 2 * sum_{k<=10} C(35, k) / 2^35, in exact integer arithmetic.
        assert!((mcnemar_exact(10, 25) - 0.016_673_847_800_120_71).abs() < 1e-14);
    }

    #[test]
    fn large_counts_do_not_overflow() {
        // 2 * sum_{k<=400} C(1000, k) / 2^1000 = 2.7284641560660184e-10.
        let p = mcnemar_exact(400, 600);
        assert!((p / 2.728_464_156_066_018_4e-10 - 1.0).abs() < 1e-9, "{p}");
        assert!((mcnemar_exact(500, 500) - 1.0).abs() < 1e-12);
    }
}
