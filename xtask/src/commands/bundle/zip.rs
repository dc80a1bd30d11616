//! A zip archive (what a wheel is), written with deflated entries: local headers, the central
//! directory and its end record. No zip64: every size stays under 4 GiB, which is checked.

use std::io::Write;

use anyhow::{bail, Result};

/// A zip being written into memory.
pub struct Zip {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u16,
    /// MS-DOS time and date of every entry.
    dos: (u16, u16),
}

impl Zip {
    /// An empty archive whose entries are dated `unix_time` (UTC).
    pub fn new(unix_time: u64) -> Zip {
        Zip { out: Vec::new(), central: Vec::new(), count: 0, dos: dos_time(unix_time) }
    }

    /// Adds a file `name` with `data`, with Unix permissions `mode` (0o644, 0o755).
    pub fn add(&mut self, name: &str, data: &[u8], mode: u32) -> Result<()> {
        let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        deflate.write_all(data)?;
        let packed = deflate.finish()?;
        let crc = crc32fast::hash(data);
        let offset = self.out.len();
        let (Ok(size), Ok(packed_size), Ok(offset), Ok(name_len)) =
            (u32::try_from(data.len()), u32::try_from(packed.len()), u32::try_from(offset), u16::try_from(name.len()))
        else {
            bail!("{name}: too large for a zip without zip64");
        };
        let (time, date) = self.dos;
        let mut local = Vec::new();
        local.extend(0x0403_4b50u32.to_le_bytes());
        local.extend(20u16.to_le_bytes()); // version needed: 2.0 (deflate)
        local.extend(0x0800u16.to_le_bytes()); // flags: names are UTF-8
        local.extend(8u16.to_le_bytes()); // deflate
        local.extend(time.to_le_bytes());
        local.extend(date.to_le_bytes());
        local.extend(crc.to_le_bytes());
        local.extend(packed_size.to_le_bytes());
        local.extend(size.to_le_bytes());
        local.extend(name_len.to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(name.as_bytes());
        self.out.extend(&local);
        self.out.extend(&packed);

        let c = &mut self.central;
        c.extend(0x0201_4b50u32.to_le_bytes());
        c.extend((0x0300u16 | 20).to_le_bytes()); // made by: Unix, 2.0
        c.extend(20u16.to_le_bytes());
        c.extend(0x0800u16.to_le_bytes());
        c.extend(8u16.to_le_bytes());
        c.extend(time.to_le_bytes());
        c.extend(date.to_le_bytes());
        c.extend(crc.to_le_bytes());
        c.extend(packed_size.to_le_bytes());
        c.extend(size.to_le_bytes());
        c.extend(name_len.to_le_bytes());
        c.extend([0u8; 8]); // extra, comment, disk, internal attributes
        c.extend(((0o100_000 | mode) << 16).to_le_bytes()); // external: a regular file, mode
        c.extend(offset.to_le_bytes());
        c.extend(name.as_bytes());
        self.count = self.count.checked_add(1).ok_or_else(|| anyhow::anyhow!("more than 65535 entries"))?;
        Ok(())
    }

    /// The archive's bytes.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        let (Ok(at), Ok(len)) = (u32::try_from(self.out.len()), u32::try_from(self.central.len())) else {
            bail!("too large for a zip without zip64");
        };
        self.out.extend(&self.central);
        self.out.extend(0x0605_4b50u32.to_le_bytes());
        self.out.extend([0u8; 4]); // this disk, the central directory's disk
        self.out.extend(self.count.to_le_bytes());
        self.out.extend(self.count.to_le_bytes());
        self.out.extend(len.to_le_bytes());
        self.out.extend(at.to_le_bytes());
        self.out.extend(0u16.to_le_bytes());
        Ok(self.out)
    }
}

/// MS-DOS (time, date) of a Unix time, clamped to 1980-01-01 at the earliest.
fn dos_time(unix: u64) -> (u16, u16) {
    let unix = unix.max(315_532_800);
    let (days, secs) = (unix / 86_400, unix % 86_400);
    let (y, m, d) = civil(days as i64);
    let time = (((secs / 3600) << 11) | ((secs % 3600 / 60) << 5) | ((secs % 60) / 2)) as u16;
    let date = ((((y - 1980) as u64) << 9) | ((m as u64) << 5) | d as u64) as u16;
    (time, date)
}

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_the_civil_ones() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
        assert_eq!(dos_time(315_532_800), (0, 1 << 5 | 1));
        // 2024-02-29 13:45:30
        assert_eq!(dos_time(1_709_214_330), (13 << 11 | 45 << 5 | 15, 44 << 9 | 2 << 5 | 29));
    }

    #[test]
    fn python_reads_what_it_writes() {
        let mut z = Zip::new(0);
        z.add("a/b.txt", b"hello hello hello", 0o644).unwrap();
        z.add("run", b"#!/bin/sh\n", 0o755).unwrap();
        let bytes = z.finish().unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-zip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.zip");
        std::fs::write(&path, bytes).unwrap();
        let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n\
                      print([(i.filename, oct(i.external_attr >> 16), z.read(i).decode()) for i in z.infolist()])";
        let out = std::process::Command::new("python3").args(["-c", script]).arg(&path).output().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "[('a/b.txt', '0o100644', 'hello hello hello'), ('run', '0o100755', '#!/bin/sh\\n')]"
        );
    }
}
