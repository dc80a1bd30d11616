//! A gzip-compressed tar archive (ustar), with directories, files and links, for the release
//! archive.

use std::io::Write;

use anyhow::{bail, Context, Result};

use super::Entry;

/// The `.tar.gz` of `entries`, each dated `mtime` and owned by root.
pub fn tar_gz(entries: &[Entry], mtime: u64) -> Result<Vec<u8>> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    for e in entries {
        match e {
            Entry::Dir { path } => gz.write_all(&header(&format!("{path}/"), 0o755, 0, mtime, b'5', "")?)?,
            Entry::Link { path, target } => gz.write_all(&header(path, 0o777, 0, mtime, b'2', target)?)?,
            Entry::File { path, source, mode } => {
                let data = std::fs::read(source).with_context(|| format!("cannot read {}", source.display()))?;
                gz.write_all(&header(path, *mode, data.len() as u64, mtime, b'0', "")?)?;
                gz.write_all(&data)?;
                gz.write_all(&vec![0; (512 - data.len() % 512) % 512])?;
            }
        }
    }
    gz.write_all(&[0; 1024])?;
    Ok(gz.finish()?)
}

/// One ustar header block.
fn header(path: &str, mode: u32, size: u64, mtime: u64, kind: u8, link: &str) -> Result<[u8; 512]> {
    let mut h = [0u8; 512];
    // A name over 100 bytes is split at a `/` into the prefix (155) and the name (100).
    let (prefix, name) = if path.len() <= 100 {
        ("", path)
    } else {
        // By bytes: a `/` is always a character boundary to cut at.
        let head = &path.as_bytes()[..path.len().min(156)];
        let cut = head.iter().rposition(|&b| b == b'/').filter(|&i| path.len() - i - 1 <= 100);
        let Some(i) = cut else { bail!("{path}: too long for a tar header") };
        (&path[..i], &path[i + 1..])
    };
    if link.len() > 100 {
        bail!("{path}: its link target is too long for a tar header");
    }
    let put = |h: &mut [u8; 512], at: usize, bytes: &[u8]| h[at..at + bytes.len()].copy_from_slice(bytes);
    put(&mut h, 0, name.as_bytes());
    put(&mut h, 100, format!("{mode:07o}\0").as_bytes());
    put(&mut h, 108, b"0000000\0");
    put(&mut h, 116, b"0000000\0");
    put(&mut h, 124, format!("{size:011o}\0").as_bytes());
    put(&mut h, 136, format!("{mtime:011o}\0").as_bytes());
    h[156] = kind;
    put(&mut h, 157, link.as_bytes());
    put(&mut h, 257, b"ustar\x0000");
    put(&mut h, 265, b"root");
    put(&mut h, 297, b"root");
    put(&mut h, 345, prefix.as_bytes());
    put(&mut h, 148, b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    put(&mut h, 148, format!("{sum:06o}\0 ").as_bytes());
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tar_reads_what_it_writes() {
        let dir = std::env::temp_dir().join(format!("xtask-tar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f"), b"data").unwrap();
        let long = format!("top/{}/f", "d".repeat(120));
        let entries = vec![
            Entry::Dir { path: "top".into() },
            Entry::File { path: "top/f".into(), source: dir.join("f"), mode: 0o755 },
            Entry::Link { path: "top/l".into(), target: "f".into() },
            Entry::File { path: long.clone(), source: dir.join("f"), mode: 0o644 },
        ];
        std::fs::write(dir.join("t.tar.gz"), tar_gz(&entries, 1_700_000_000).unwrap()).unwrap();
        let out = std::process::Command::new("tar").arg("tvzf").arg(dir.join("t.tar.gz")).output().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("-rwxr-xr-x root/root         4 2023-11-14 22:13 top/f"), "{text}");
        assert!(text.contains("top/l -> f"), "{text}");
        assert!(text.contains(&long), "{text}");
    }
}
