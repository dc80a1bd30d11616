//! What the fuzz targets (`fuzz_targets/`) share: structured YAML built from a vocabulary, for
//! inputs where random bytes would never get past the YAML parser, and a scratch directory.
//!
//! Each target takes its input either as text (the checked-in corpus holds the real files,
//! which libFuzzer mutates) or, when its first byte says so, as a document built by
//! [`Yaml`] from the vocabulary of the input (the real keys, names and constants), so that
//! deep checks are reached by documents that parse.

use std::path::PathBuf;

pub mod model;

use arbitrary::{Result, Unstructured};
use serde_yaml::{Mapping, Value};

/// Numbers that sit on the edges parsers trip over.
const NUMBERS: &[i128] = &[
    0,
    1,
    2,
    7,
    100,
    101,
    255,
    256,
    65535,
    65536,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1_0000_0000,
    i64::MAX as i128,
    u64::MAX as i128,
    -1,
    -2,
    i32::MIN as i128,
    i64::MIN as i128,
];

/// Builds YAML documents from a vocabulary: keys and strings are mostly words of the input's
/// language, numbers mostly edge values.
pub struct Yaml<'v> {
    pub words: &'v [String],
    /// Deepest nesting of a generated value.
    pub depth: usize,
}

impl Yaml<'_> {
    /// A word of the vocabulary, now and then mangled (a suffix, a dotted path, a glob).
    pub fn word(&self, u: &mut Unstructured) -> Result<String> {
        if self.words.is_empty() {
            return u.arbitrary();
        }
        let w = u.choose(self.words)?.clone();
        Ok(match u.int_in_range(0..=15)? {
            0 => format!("{w}{}", u.arbitrary::<&str>()?),
            1 => format!("{w}.{}", u.choose(self.words)?),
            2 => format!("{w}*"),
            3 => u.arbitrary()?,
            _ => w,
        })
    }

    /// A scalar: a number, a word, a boolean, null or a float.
    pub fn scalar(&self, u: &mut Unstructured) -> Result<Value> {
        Ok(match u.int_in_range(0..=9)? {
            0 | 1 => number(*u.choose(NUMBERS)?),
            2 => number(u.arbitrary::<i64>()?.into()),
            3..=5 => Value::String(self.word(u)?),
            6 => Value::Bool(u.arbitrary()?),
            7 => Value::Null,
            8 => Value::from(u.arbitrary::<f64>()?),
            _ => Value::String(format!("{:x}", u.arbitrary::<u32>()?)),
        })
    }

    /// Any value, nested at most `depth` more levels.
    pub fn value(&self, u: &mut Unstructured, depth: usize) -> Result<Value> {
        if depth == 0 {
            return self.scalar(u);
        }
        Ok(match u.int_in_range(0..=5)? {
            0..=2 => self.scalar(u)?,
            3 => Value::Sequence(self.list(u, depth - 1)?),
            _ => Value::Mapping(self.mapping(u, depth - 1)?),
        })
    }

    /// A list of up to 6 values.
    pub fn list(&self, u: &mut Unstructured, depth: usize) -> Result<Vec<Value>> {
        let n = u.int_in_range(0..=6)?;
        (0..n).map(|_| self.value(u, depth)).collect()
    }

    /// A mapping of up to 8 entries keyed by words.
    pub fn mapping(&self, u: &mut Unstructured, depth: usize) -> Result<Mapping> {
        let n = u.int_in_range(0..=8)?;
        let mut m = Mapping::new();
        for _ in 0..n {
            let k = Value::String(self.word(u)?);
            m.insert(k, self.value(u, depth)?);
        }
        Ok(m)
    }
}

fn number(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(i), _) => Value::from(i),
        (_, Ok(u)) => Value::from(u),
        _ => Value::from(n as f64),
    }
}

/// YAML text of a value (empty when serde_yaml cannot write it, which then is the input).
pub fn to_text(v: &Value) -> String {
    serde_yaml::to_string(v).unwrap_or_default()
}

/// A directory of this process's own under the system's temporary directory, created empty on
/// first use: for inputs that must be files.
pub fn scratch(target: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nvmlkit-fuzz-{target}-{}", std::process::id()));
    if !dir.is_dir() {
        let _ = std::fs::remove_dir_all(&dir);
        // Mode 0700, as the mock requires of its runtime directory (`nvml_mock::private`),
        // whatever the umask.
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(&dir)
            .expect("cannot create the fuzz scratch directory");
    }
    dir
}

/// A C record of nvml.h whose first bytes are `bytes` (the rest zero; longer input cut to the
/// record's size), as a library might fill it.
pub fn record<T: Copy + Default>(bytes: &[u8]) -> T {
    let mut r = T::default();
    let n = bytes.len().min(std::mem::size_of::<T>());
    // SAFETY: `n` bytes fit in `r` (at most its size), the source does not overlap it, and the
    // records of nvml-sys are plain C data (integers, floats, chars, raw pointers and arrays and
    // unions of them), for which any bytes make a valid value.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (&mut r as *mut T).cast::<u8>(), n) };
    r
}

/// The first four bytes as a little-endian `u32` (missing bytes zero), and the rest.
pub fn word(bytes: &[u8]) -> (u32, &[u8]) {
    let n = bytes.len().min(4);
    let mut w = [0u8; 4];
    w[..n].copy_from_slice(&bytes[..n]);
    (u32::from_le_bytes(w), &bytes[n..])
}
