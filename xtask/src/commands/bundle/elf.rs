//! What an ELF file needs of glibc, read from its version needs (`.gnu.version_r`): the newest
//! `GLIBC_2.N` gives the wheel's `manylinux_2_N` tag, true to what the files load.

use anyhow::{bail, Context, Result};

/// An ELF file's machine and the glibc symbol versions it needs, `(2, 34)` for `GLIBC_2.34`.
#[derive(Debug, PartialEq, Eq)]
pub struct Needs {
    /// The architecture as wheel tags name it: `x86_64`, `aarch64`.
    pub arch: &'static str,
    pub glibc: Vec<(u32, u32)>,
}

/// `None` when `bytes` are not an ELF file.
///
/// # Errors
///
/// An ELF file that is not 64-bit little-endian, of another machine than x86-64 or AArch64, or
/// whose tables point outside it.
pub fn needs(bytes: &[u8]) -> Result<Option<Needs>> {
    if bytes.get(..4) != Some(b"\x7fELF") {
        return Ok(None);
    }
    if bytes.get(4) != Some(&2) || bytes.get(5) != Some(&1) {
        bail!("not a 64-bit little-endian ELF file");
    }
    let arch = match u16_at(bytes, 18)? {
        62 => "x86_64",
        183 => "aarch64",
        m => bail!("ELF machine {m} is neither x86-64 nor AArch64"),
    };
    let shoff = u64_at(bytes, 0x28)? as usize;
    let shentsize = u16_at(bytes, 0x3a)? as usize;
    let shnum = u16_at(bytes, 0x3c)? as usize;
    let section = |i: usize| -> Result<(u32, usize, usize, u32)> {
        let at = shoff + i * shentsize;
        Ok((
            u32_at(bytes, at + 4)?,
            u64_at(bytes, at + 0x18)? as usize,
            u64_at(bytes, at + 0x20)? as usize,
            u32_at(bytes, at + 0x28)?,
        ))
    };
    const SHT_GNU_VERNEED: u32 = 0x6fff_fffe;
    let mut glibc = Vec::new();
    for i in 0..shnum {
        let (kind, offset, _, link) = section(i)?;
        if kind != SHT_GNU_VERNEED {
            continue;
        }
        let (_, strings, strings_len, _) = section(link as usize)?;
        let name = |at: usize| -> Result<&str> {
            let table = bytes.get(strings..strings + strings_len).context("the string table is outside the file")?;
            let s = table.get(at..).context("a name is outside the string table")?;
            let end = s.iter().position(|&b| b == 0).context("an unterminated name")?;
            std::str::from_utf8(&s[..end]).context("a name that is not UTF-8")
        };
        // Elf64_Verneed: vn_version, vn_cnt (u16), vn_file, vn_aux, vn_next (u32);
        // Elf64_Vernaux: vna_hash (u32), vna_flags, vna_other (u16), vna_name, vna_next (u32).
        let mut need = offset;
        loop {
            let count = u16_at(bytes, need + 2)? as usize;
            let mut aux = need + u32_at(bytes, need + 8)? as usize;
            for _ in 0..count {
                if let Some(v) = name(u32_at(bytes, aux + 8)? as usize)?.strip_prefix("GLIBC_") {
                    let mut parts = v.split('.').map(str::parse::<u32>);
                    if let (Some(Ok(major)), Some(Ok(minor))) = (parts.next(), parts.next()) {
                        glibc.push((major, minor));
                    }
                }
                let next = u32_at(bytes, aux + 12)? as usize;
                if next == 0 {
                    break;
                }
                aux += next;
            }
            let next = u32_at(bytes, need + 12)? as usize;
            if next == 0 {
                break;
            }
            need += next;
        }
    }
    glibc.sort_unstable();
    glibc.dedup();
    Ok(Some(Needs { arch, glibc }))
}

fn u16_at(b: &[u8], at: usize) -> Result<u16> {
    let s = b.get(at..at + 2).context("the ELF file is cut short")?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32> {
    let s = b.get(at..at + 4).context("the ELF file is cut short")?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: usize) -> Result<u64> {
    let s = b.get(at..at + 8).context("the ELF file is cut short")?;
    let mut a = [0; 8];
    a.copy_from_slice(s);
    Ok(u64::from_le_bytes(a))
}

/// The wheel's platform tag for files that need `needs`: `manylinux_2_N_ARCH` for the newest
/// `GLIBC_2.N` any of them needs (at least 2.17, the oldest manylinux tag).
///
/// # Errors
///
/// No ELF file, or files of two architectures.
pub fn platform_tag(needs: &[Needs]) -> Result<String> {
    let Some(first) = needs.first() else { bail!("no ELF file to tag") };
    if let Some(other) = needs.iter().find(|n| n.arch != first.arch) {
        bail!("files of two architectures, {} and {}", first.arch, other.arch);
    }
    let newest = needs.iter().flat_map(|n| n.glibc.iter().copied()).filter(|v| v.0 == 2).max().unwrap_or((2, 17));
    Ok(format!("manylinux_2_{}_{}", newest.1.max(17), first.arch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_program_needs_glibc_versions_of_its_machine() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let n = needs(&me).unwrap().unwrap();
        assert_eq!(n.arch, std::env::consts::ARCH);
        assert!(n.glibc.iter().any(|&(major, minor)| major == 2 && minor >= 2), "{n:?}");
        assert!(needs(b"#!/bin/sh\n").unwrap().is_none());
        assert!(needs(b"\x7fELF\x02\x01").is_err(), "a cut-short file is an error");
    }

    #[test]
    fn the_tag_is_the_newest_glibc_needed() {
        let a = Needs { arch: "x86_64", glibc: vec![(2, 2), (2, 34)] };
        let b = Needs { arch: "x86_64", glibc: vec![(2, 17)] };
        assert_eq!(platform_tag(&[a, b]).unwrap(), "manylinux_2_34_x86_64");
        assert_eq!(platform_tag(&[Needs { arch: "aarch64", glibc: vec![(2, 3)] }]).unwrap(), "manylinux_2_17_aarch64");
        let mixed = [Needs { arch: "x86_64", glibc: vec![] }, Needs { arch: "aarch64", glibc: vec![] }];
        assert!(platform_tag(&mixed).unwrap_err().to_string().contains("two architectures"));
        assert!(platform_tag(&[]).is_err());
    }
}
