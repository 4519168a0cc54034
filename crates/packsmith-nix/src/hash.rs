//! Nix hashes: SRI strings (`sha256-<base64>`), Nix's own base-32, hex, and
//! the placeholder `lib.fakeHash`.
//!
//! Conversion is done here in Rust rather than with `nix hash to-sri`, which
//! Nix 2.8 only offers behind `--extra-experimental-features nix-command` and
//! newer Nix replaced with `nix hash convert`; a test checks both agree.

use serde::{Deserialize, Serialize};

/// What `lib.fakeHash` evaluates to: sha256 of all-zero bytes in SRI form.
/// Nix prints it on the `specified:` line of a mismatch.
pub const FAKE_HASH_SRI: &str = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/// The Nix expression templates write for a hash nobody knows yet.
pub const FAKE_HASH_EXPR: &str = "lib.fakeHash";

/// Nix's base-32 alphabet (no e, o, u, t).
const NIX32: &[u8; 32] = b"0123456789abcdfghijklmnpqrsvwxyz";
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Hash algorithms Nix accepts in SRI strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HashAlgo {
    Sha256,
    Sha512,
    Sha1,
}

impl HashAlgo {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sha256 => "sha256",
            Self::Sha512 => "sha512",
            Self::Sha1 => "sha1",
        }
    }

    /// Digest size in bytes.
    pub fn size(self) -> usize {
        match self {
            Self::Sha256 => 32,
            Self::Sha512 => 64,
            Self::Sha1 => 20,
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "sha256" => Some(Self::Sha256),
            "sha512" => Some(Self::Sha512),
            "sha1" => Some(Self::Sha1),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    #[error("`{0}` is not a hash Nix accepts (expected SRI like `sha256-…=`, base-32 or hex)")]
    Unrecognised(String),
    #[error("`{hash}` has {got} bytes, but {algo} needs {want}")]
    WrongLength {
        hash: String,
        algo: &'static str,
        got: usize,
        want: usize,
    },
}

/// A digest with its algorithm; `Display` gives the SRI form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NixHash {
    pub algo: HashAlgo,
    pub bytes: Vec<u8>,
}

impl NixHash {
    /// Parses an SRI string, or a bare digest (Nix base-32, hex or base-64)
    /// of `default_algo`.
    pub fn parse(text: &str, default_algo: HashAlgo) -> Result<Self, HashError> {
        let text = text.trim();
        let bad = || HashError::Unrecognised(text.to_string());
        let (algo, digest) = match text.split_once(['-', ':']) {
            Some((a, d)) => (HashAlgo::parse(a).ok_or_else(bad)?, d),
            None => (default_algo, text),
        };
        let size = algo.size();
        let bytes = if digest.len() == nix32_len(size) {
            nix32_decode(digest, size)
        } else if digest.len() == size * 2 {
            hex_decode(digest)
        } else {
            base64_decode(digest)
        }
        .ok_or_else(bad)?;
        if bytes.len() != size {
            return Err(HashError::WrongLength {
                hash: text.to_string(),
                algo: algo.as_str(),
                got: bytes.len(),
                want: size,
            });
        }
        Ok(Self { algo, bytes })
    }

    pub fn to_sri(&self) -> String {
        format!("{}-{}", self.algo.as_str(), base64_encode(&self.bytes))
    }

    pub fn to_nix32(&self) -> String {
        nix32_encode(&self.bytes)
    }
}

impl std::fmt::Display for NixHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_sri())
    }
}

/// True for a well-formed SRI hash (what Nix would accept in `hash =`).
pub fn is_valid_sri(text: &str) -> bool {
    text.contains('-') && NixHash::parse(text, HashAlgo::Sha256).is_ok()
}

/// Converts any hash Nix prints (SRI, base-32, hex) to SRI.
pub fn to_sri(text: &str, default_algo: HashAlgo) -> Result<String, HashError> {
    NixHash::parse(text, default_algo).map(|h| h.to_sri())
}

fn nix32_len(size: usize) -> usize {
    (size * 8 - 1) / 5 + 1
}

fn nix32_decode(s: &str, size: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; size];
    for (n, c) in s.bytes().rev().enumerate() {
        let digit = NIX32.iter().position(|&a| a == c)? as u16;
        let b = n * 5;
        let (i, j) = (b / 8, b % 8);
        out[i] |= (digit << j) as u8;
        let carry = (digit << j) >> 8;
        if i + 1 < size {
            out[i + 1] |= carry as u8;
        } else if carry != 0 {
            return None;
        }
    }
    Some(out)
}

fn nix32_encode(bytes: &[u8]) -> String {
    let len = nix32_len(bytes.len());
    (0..len)
        .rev()
        .map(|n| {
            let b = n * 5;
            let (i, j) = (b / 8, b % 8);
            let lo = u16::from(bytes[i]) >> j;
            let hi = bytes.get(i + 1).map_or(0, |&x| u16::from(x) << (8 - j));
            NIX32[usize::from((lo | hi) & 0x1f)] as char
        })
        .collect()
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = B64.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real values printed by Nix 2.8 here for a file containing "hello\n":
    // `nix-prefetch-url file://…` and `nix hash to-sri`.
    const HELLO_NIX32: &str = "00xyyr3fi8l6hb839bv3f7yb86yjv7xi1cgh1xnhipym4asvb4aq";
    const HELLO_SRI: &str = "sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";
    const HELLO_HEX: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

    #[test]
    fn nix32_hex_and_sri_agree_with_nix() {
        assert_eq!(to_sri(HELLO_NIX32, HashAlgo::Sha256).unwrap(), HELLO_SRI);
        assert_eq!(to_sri(HELLO_HEX, HashAlgo::Sha256).unwrap(), HELLO_SRI);
        assert_eq!(to_sri(HELLO_SRI, HashAlgo::Sha512).unwrap(), HELLO_SRI);
        let h = NixHash::parse(HELLO_SRI, HashAlgo::Sha256).unwrap();
        assert_eq!(h.to_nix32(), HELLO_NIX32);
        assert_eq!(
            to_sri(&format!("sha256:{HELLO_NIX32}"), HashAlgo::Sha1).unwrap(),
            HELLO_SRI
        );
    }

    #[test]
    fn fake_hash_is_all_zero() {
        let h = NixHash::parse(FAKE_HASH_SRI, HashAlgo::Sha256).unwrap();
        assert!(h.bytes.iter().all(|&b| b == 0));
        assert_eq!(h.to_sri(), FAKE_HASH_SRI);
    }

    #[test]
    fn malformed_hashes_are_rejected() {
        assert!(!is_valid_sri("sha256-abc"));
        assert!(!is_valid_sri("md5-AAAA"));
        assert!(!is_valid_sri(HELLO_NIX32), "a bare digest is not SRI");
        assert!(matches!(
            NixHash::parse("sha256-AAAA", HashAlgo::Sha256),
            Err(HashError::WrongLength { got: 3, .. })
        ));
        assert!(is_valid_sri(HELLO_SRI));
    }
}
