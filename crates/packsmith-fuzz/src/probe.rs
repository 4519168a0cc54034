//! Memory of one input: the process's peak resident set (VmHWM), reset
//! before each input through /proc/self/clear_refs, so the peak read after
//! it is that input's own.

/// Resets the peak to the current resident set. Linux ≥ 4.0; elsewhere a
/// no-op, and the peak then only ever grows (still an upper bound).
pub fn reset_peak() {
    // A procfs control file, not a file of ours: a plain write is the API.
    let _ = std::fs::write("/proc/self/clear_refs", b"5");
}

/// (current, peak) resident set in KiB, or zeros where /proc is absent.
pub fn rss_kib() -> (u64, u64) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return (0, 0);
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_sees_a_large_allocation_and_resets() {
        reset_peak();
        let (before, _) = rss_kib();
        let big = vec![1u8; 64 << 20];
        std::hint::black_box(&big);
        drop(big);
        let (_, peak) = rss_kib();
        assert!(
            peak >= before + 60 * 1024,
            "peak {peak} KiB, before {before} KiB"
        );
        reset_peak();
        let (_, after) = rss_kib();
        assert!(after < peak, "reset: {after} KiB, peak was {peak} KiB");
    }
}
