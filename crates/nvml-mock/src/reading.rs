//! What the generated readers (`generated/capture/`) of `nvml-mock capture` share: the
//! library they read and the mode they read in, and the conversions of C outputs into the
//! values a profile gives.

use std::collections::BTreeSet;
use std::ffi::c_char;

use nvml_sys::{nvmlReturn_t, NvmlLib};

use crate::answer::{Object, Val};

/// `NVML_SUCCESS`.
pub const SUCCESS: u32 = nvml_sys::NVML_SUCCESS;
/// `NVML_ERROR_FUNCTION_NOT_FOUND`.
pub const FUNCTION_NOT_FOUND: u32 = nvml_sys::NVML_ERROR_FUNCTION_NOT_FOUND;

/// How a reader calls its function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Reads the outputs, following the header's protocols.
    Read,
    /// Calls with the first output NULL: the code says whether NULL is checked first.
    Null,
    /// Calls with version 0 in the versioned record: the code says whether the version is
    /// checked before support.
    WrongVersion,
}

/// A reading's context: the library, the mode, and the record versions the library refused
/// with `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` (by constant, `nvmlNvLinkInfo_v2`).
pub struct Cx<'a> {
    pub lib: &'a NvmlLib,
    pub mode: Mode,
    pub refused: BTreeSet<&'static str>,
}

impl<'a> Cx<'a> {
    pub fn new(lib: &'a NvmlLib) -> Cx<'a> {
        Cx { lib, mode: Mode::Read, refused: BTreeSet::new() }
    }
}

/// A reader: the values of one function for an object and its selector values, or the code
/// it answered (`NVML_ERROR_FUNCTION_NOT_FOUND` when the library lacks the symbol).
pub type Reader = fn(&mut Cx, Object, &[i64]) -> Result<Vec<Val>, nvmlReturn_t>;

/// Selector `i` of a call (0 when there is none).
/// The array a list call fills: NULL for an empty one (a size query), else its first entry.
pub fn array_ptr<T>(items: &mut [T]) -> *mut T {
    if items.is_empty() {
        std::ptr::null_mut()
    } else {
        items.as_mut_ptr()
    }
}

pub fn selector(s: &[i64], i: usize) -> i64 {
    s.get(i).copied().unwrap_or(0)
}

/// The text of a C buffer up to its first NUL (its end when there is none), invalid UTF-8
/// replaced.
pub fn c_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A record read back without its `version` when that is the one the caller set (`expected`):
/// a profile gives a version only where the driver wrote another.
pub fn without_version(v: Val, expected: u32) -> Val {
    match v {
        Val::Record(mut fields) => {
            if fields.get("version") == Some(&Val::Int(expected.into())) {
                fields.remove("version");
            }
            Val::Record(fields)
        }
        other => other,
    }
}

/// An array field's items without its trailing zeros, which a profile leaves out (the mock
/// fills an array's items and zeros after them).
pub fn trimmed(mut items: Vec<Val>) -> Vec<Val> {
    while items.last().is_some_and(is_zero) {
        items.pop();
    }
    items
}

/// Whether a value reads as what the mock writes for a value a profile leaves out.
pub fn is_zero(v: &Val) -> bool {
    match v {
        Val::Int(i) => *i == 0,
        Val::Float(f) => *f == 0.0 && f.is_sign_positive(),
        Val::Str(s) => s.is_empty(),
        Val::List(l) => l.is_empty(),
        Val::Record(r) => r.values().all(is_zero),
        Val::Member(..) => false,
    }
}
