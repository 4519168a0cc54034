//! Small text helpers: clipping by characters, lines and bytes.

/// At most `max` characters of `s`, with `…` when cut.
pub fn clip_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char
/// boundary.
pub fn clip_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Hex SHA-256 of `bytes`, first 16 characters.
pub fn short_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    hex::encode(digest)[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_respects_char_boundaries() {
        assert_eq!(clip_chars("héllo", 2), "hé…");
        assert_eq!(clip_chars("hi", 2), "hi");
        assert_eq!(clip_bytes("héllo", 2), "h");
        assert_eq!(clip_bytes("abc", 10), "abc");
    }
}
