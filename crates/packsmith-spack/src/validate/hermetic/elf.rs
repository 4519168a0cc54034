//! The dynamic section of an ELF file, read by hand: `DT_NEEDED`,
//! `DT_RPATH` and `DT_RUNPATH`, which is all the hermeticity check needs
//! (no crate for a few dozen lines of fixed layouts). Little- and
//! big-endian, 32- and 64-bit; anything else, or a file that is not ELF,
//! is `None`.

use std::path::Path;

/// What the dynamic linker reads from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicInfo {
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RPATH` entries (colon-separated in the file).
    pub rpath: Vec<String>,
    /// `DT_RUNPATH` entries.
    pub runpath: Vec<String>,
}

const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;
const DT_RPATH: u64 = 15;
const DT_RUNPATH: u64 = 29;
const SHT_DYNAMIC: u32 = 6;

/// Reads fixed-size integers at an offset in the file's byte order.
struct Reader<'a> {
    bytes: &'a [u8],
    little: bool,
    wide: bool,
}

impl Reader<'_> {
    fn uint(&self, at: usize, len: usize) -> Option<u64> {
        let s = self.bytes.get(at..at.checked_add(len)?)?;
        let mut v: u64 = 0;
        for i in 0..len {
            let b = if self.little { s[len - 1 - i] } else { s[i] };
            v = (v << 8) | u64::from(b);
        }
        Some(v)
    }

    fn u16(&self, at: usize) -> Option<u64> {
        self.uint(at, 2)
    }

    fn u32(&self, at: usize) -> Option<u64> {
        self.uint(at, 4)
    }

    /// An address, offset or size: 8 bytes in ELF64, 4 in ELF32.
    fn word(&self, at: usize) -> Option<u64> {
        self.uint(at, if self.wide { 8 } else { 4 })
    }

    fn cstr(&self, at: usize) -> Option<String> {
        let rest = self.bytes.get(at..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(&rest[..end]).into_owned())
    }
}

fn index(v: u64) -> Option<usize> {
    usize::try_from(v).ok()
}

/// Whether `bytes` start like an ELF file.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
}

/// The dynamic section of `bytes`; `None` for a file that is not ELF or
/// whose headers do not hold together, an empty value for a static one.
pub fn parse_dynamic(bytes: &[u8]) -> Option<DynamicInfo> {
    if !is_elf(bytes) {
        return None;
    }
    let wide = match bytes.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let little = match bytes.get(5)? {
        1 => true,
        2 => false,
        _ => return None,
    };
    let r = Reader {
        bytes,
        little,
        wide,
    };
    // e_shoff, e_shentsize, e_shnum sit at fixed places per class.
    let (shoff, shentsize, shnum) = if wide {
        (r.word(0x28)?, r.u16(0x3a)?, r.u16(0x3c)?)
    } else {
        (r.word(0x20)?, r.u16(0x2e)?, r.u16(0x30)?)
    };
    let section =
        |i: u64| -> Option<usize> { index(shoff.checked_add(i.checked_mul(shentsize)?)?) };
    // Section header fields: sh_type at 4; sh_offset, sh_size, sh_link
    // after the flags and address words.
    let (off_at, size_at, link_at) = if wide {
        (0x18, 0x20, 0x28)
    } else {
        (0x10, 0x14, 0x18)
    };
    let mut info = DynamicInfo::default();
    for i in 0..shnum {
        let sh = section(i)?;
        if r.u32(sh + 4)? != u64::from(SHT_DYNAMIC) {
            continue;
        }
        let dyn_off = index(r.word(sh + off_at)?)?;
        let dyn_size = index(r.word(sh + size_at)?)?;
        let strtab = section(r.u32(sh + link_at)?)?;
        let str_off = index(r.word(strtab + off_at)?)?;
        let entry = if wide { 16 } else { 8 };
        let step = entry / 2;
        for e in (0..dyn_size / entry).map(|k| dyn_off + k * entry) {
            let tag = r.word(e)?;
            if tag == DT_NULL {
                break;
            }
            let value = || r.cstr(str_off.checked_add(index(r.word(e + step)?)?)?);
            match tag {
                DT_NEEDED => info.needed.push(value()?),
                DT_RPATH => info.rpath.extend(split_path(&value()?)),
                DT_RUNPATH => info.runpath.extend(split_path(&value()?)),
                _ => {}
            }
        }
    }
    Some(info)
}

fn split_path(list: &str) -> Vec<String> {
    list.split(':')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads `path` and parses it; `None` when it cannot be read or is not ELF.
pub fn read_dynamic(path: &Path) -> Option<DynamicInfo> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut magic = [0u8; 4];
    f.read_exact(&mut magic).ok()?;
    if !is_elf(&magic) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    parse_dynamic(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_elf_is_none() {
        assert_eq!(parse_dynamic(b"#!/bin/sh\necho hi\n"), None);
        assert_eq!(parse_dynamic(b"\x7fELF"), None);
        assert_eq!(parse_dynamic(b""), None);
    }
}
