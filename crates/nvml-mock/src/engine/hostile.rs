//! The hostile mode: a second implementation of [`Api`](crate::generated::api::Api) that
//! answers like a lying, but not memory-corrupting, driver, to show that a client survives any
//! answer. `NVML_MOCK_HOSTILE=<seed>` turns it on for the whole process (the exports then never
//! reach the engine): a decimal or `0x` hexadecimal `u64`, or any other text, whose FNV-1a
//! hash is the seed. Each seed gives one sequence of answers for one sequence of calls.
//!
//! Each function answers a random return code: `NVML_SUCCESS` half of the time (so that
//! outputs are read), `NVML_ERROR_INSUFFICIENT_SIZE` often, any other `NVML_ERROR_*` of the
//! header, or a code the header does not know (1234, `0x7FFFFFFF`, `0xFFFFFFFF`, any `u32`).
//! Whatever the code, it writes the outputs its reading in the generator's plan gives it
//! (`generated/hostile/`, one method per function) with these helpers:
//!
//! - a value (scalar, enum, bit flags, record, handle; an in/out record too) gets random bytes,
//!   zeros, all ones, a small number, or is left as it was: enum values the header lacks,
//!   garbage handles, strings in records without a NUL;
//! - a count of a count + array pair gets the number of elements written, 0, less or more than
//!   the capacity, a count that grows on every call, a huge one, `0xFFFFFFFF`, or nothing; an
//!   out-only count (no capacity passed in) likewise, so it may claim more than was allocated;
//! - arrays get at most as many elements as the capacity the caller passed (its count, its
//!   length in elements or bytes, or the fixed capacity of the reading), never more; a list
//!   inside a record likewise, by the record's count field, which is answered like a count;
//! - a string buffer gets at most its length in bytes: NUL-terminated text, bytes without any
//!   NUL, invalid UTF-8, an empty string, or nothing; a length passed by pointer is answered
//!   like a count.
//!
//! Nothing is written through a NULL pointer, inputs (but an in/out count or length, for its
//! capacity, and the count and array pointer of a list's record) and handles are never
//! dereferenced, and a
//! function without a reading a generated method follows (one wrapped by hand, one whose
//! reading the documentation doubts, one that is not read) only answers a code: its pointers
//! are not known well enough to write through. `nvmlErrorString` answers a NUL-terminated
//! static string (empty, or invalid UTF-8, at times) or NULL.

use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use nvml_sys::*;

use crate::ffi::{get, put, put_items};

/// The variable that turns the hostile mode on, with its seed.
pub const ENV: &str = "NVML_MOCK_HOSTILE";

/// The most bytes one array gets (at most its capacity), so that a large capacity costs
/// little time.
const MAX_ARRAY_BYTES: usize = 64 << 10;

/// The hostile library: a seeded generator (splitmix64) and a count that grows on every use.
#[derive(Debug)]
pub struct Hostile {
    state: AtomicU64,
    grown: AtomicU64,
    /// Every `NVML_ERROR_*` constant of the header: a slice of the sorted constants, not a
    /// copy (the heap of an unloaded library is lost).
    errors: &'static [(&'static str, i128)],
}

/// The hostile library, when `NVML_MOCK_HOSTILE` is set and not empty.
pub fn library() -> Option<&'static Hostile> {
    static LIBRARY: OnceLock<Option<Hostile>> = OnceLock::new();
    LIBRARY.get_or_init(|| std::env::var(ENV).ok().filter(|v| !v.is_empty()).map(|v| Hostile::new(seed(&v)))).as_ref()
}

/// The seed `text` names: a decimal or `0x` hexadecimal `u64`, else the FNV-1a hash of the text.
pub(crate) fn seed(text: &str) -> u64 {
    let number = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    };
    number.unwrap_or_else(|| {
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

/// Codes the header does not define.
const UNKNOWN_CODES: [nvmlReturn_t; 3] = [1234, 0x7FFF_FFFF, 0xFFFF_FFFF];

/// Static strings for `nvmlErrorString`: text, empty, invalid UTF-8.
const STRINGS: [&CStr; 4] = [c"Hostile error", c"", c"\xff\xfe not UTF-8 \xc3", c"\xe2\x82"];

impl Hostile {
    fn new(seed: u64) -> Hostile {
        let all = &crate::generated::names::CONSTANTS[..];
        let start = all.partition_point(|(n, _)| *n < "NVML_ERROR_");
        let len = all[start..].partition_point(|(n, _)| n.starts_with("NVML_ERROR_"));
        let errors = &all[start..start + len];
        Hostile { state: AtomicU64::new(seed), grown: AtomicU64::new(0), errors }
    }

    /// The next random number (splitmix64; safe to call from any thread).
    fn next(&self) -> u64 {
        let mut z = self.state.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 for 0).
    fn below(&self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    /// A return code: success half of the time, else an error of the header or an unknown code.
    pub fn code(&self) -> nvmlReturn_t {
        match self.below(100) {
            0..=49 => NVML_SUCCESS,
            50..=61 => NVML_ERROR_INSUFFICIENT_SIZE,
            62..=91 if !self.errors.is_empty() => {
                self.errors[self.below(self.errors.len() as u64) as usize].1 as nvmlReturn_t
            }
            62..=95 => UNKNOWN_CODES[self.below(UNKNOWN_CODES.len() as u64) as usize],
            _ => self.next() as nvmlReturn_t,
        }
    }

    /// `nvmlErrorString`'s answer: a static NUL-terminated string, or NULL.
    pub fn static_string(&self) -> *const c_char {
        match STRINGS.get(self.below(STRINGS.len() as u64 + 1) as usize) {
            Some(s) => s.as_ptr(),
            None => std::ptr::null(),
        }
    }

    /// `n` random bytes.
    fn random_bytes(&self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next().to_ne_bytes());
        }
        out.truncate(n);
        out
    }

    /// What `n` bytes of values become: random, zeros, all ones, a small number in the first
    /// byte, or `None` (left as they were).
    fn pattern(&self, n: usize) -> Option<Vec<u8>> {
        match self.below(10) {
            0 => None,
            1 => Some(vec![0; n]),
            2 => Some(vec![0xFF; n]),
            3 | 4 => {
                let mut v = vec![0; n];
                if let Some(first) = v.first_mut() {
                    *first = self.below(16) as u8;
                }
                Some(v)
            }
            _ => Some(self.random_bytes(n)),
        }
    }

    /// Fills `n` values of `T` at `p` (a `pattern` of their bytes); nothing for NULL.
    fn fill<T>(&self, p: *mut T, n: usize) {
        let bytes = n.saturating_mul(std::mem::size_of::<T>());
        if p.is_null() || bytes == 0 {
            return;
        }
        if let Some(v) = self.pattern(bytes) {
            // Cannot fail: `p` is not NULL.
            let _ = put_items(p as *mut u8, &v);
        }
    }

    /// An out-parameter (or an in/out record): `p` points to one `T` of the caller.
    pub fn value<T>(&self, p: *mut T) {
        self.fill(p, 1);
    }

    /// A versioned record of the caller (its first field `version`, which
    /// `NVML_STRUCT_VERSION` makes the layout's size in the low 24 bits and its number above):
    /// written as [`Hostile::value`] writes one, but within the size of the layout the caller
    /// set, as a driver writes an older layout (shorter than `T`) that the caller passes.
    pub fn versioned<T>(&self, p: *mut T) {
        let declared = get(p as *const std::ffi::c_uint).map_or(0, |v| (v & 0x00FF_FFFF) as usize);
        let size = match declared {
            0 => std::mem::size_of::<T>(),
            n => n.min(std::mem::size_of::<T>()),
        };
        self.fill(p as *mut u8, size);
    }

    /// The capacity an in/out count or length holds on entry (0 for NULL).
    pub fn capacity<N: Copy>(&self, p: *mut N) -> usize
    where
        usize: TryFrom<N>,
    {
        get(p as *const N).ok().and_then(|n| usize::try_from(n).ok()).unwrap_or(0)
    }

    /// A length passed by value, as a number of elements or bytes (0 when negative).
    pub fn length<N>(&self, n: N) -> usize
    where
        usize: TryFrom<N>,
    {
        usize::try_from(n).unwrap_or(0)
    }

    /// How many elements to write into arrays of `capacity` elements: none, all, or some.
    pub fn elements(&self, capacity: usize) -> usize {
        match self.below(6) {
            _ if capacity == 0 => 0,
            0 => 0,
            1 | 2 => capacity,
            _ => 1 + self.below(capacity as u64) as usize,
        }
    }

    /// Writes `n` elements (at most `MAX_ARRAY_BYTES`) into an array: the caller passes an `n`
    /// no larger than the array's capacity.
    pub fn array<T>(&self, p: *mut T, n: usize) {
        let most = MAX_ARRAY_BYTES / std::mem::size_of::<T>().max(1);
        self.fill(p, n.min(most.max(1)));
    }

    /// An array whose length the caller passes by value: `len` elements, or `len` bytes.
    pub fn sized_array<T>(&self, p: *mut T, len: usize, bytes: bool) {
        let capacity = if bytes { len / std::mem::size_of::<T>().max(1) } else { len };
        let n = self.elements(capacity);
        self.array(p, n);
    }

    /// Answers a count (or a length passed by pointer) after `written` elements of `capacity`
    /// were written: that number, 0, less or more than the capacity, a number that grows on
    /// every call, a large or huge one, `0xFFFFFFFF`, or nothing.
    pub fn count<N: Copy + TryFrom<u64>>(&self, p: *mut N, capacity: usize, written: usize) {
        let capacity = capacity as u64;
        let n: u64 = match self.below(20) {
            0 | 1 => return,
            2..=7 => written as u64,
            8 | 9 => 0,
            10 => self.below(capacity),
            11..=13 => capacity + 1 + self.below(64),
            14 | 15 => self.grown.fetch_add(1, Ordering::Relaxed) % 1024,
            16 => self.below(4096),
            17 => (1 << 20) + self.below(1 << 30),
            18 => u64::from(u32::MAX),
            _ => self.next(),
        };
        match N::try_from(n) {
            Ok(v) => {
                let _ = put(p, v);
            }
            Err(_) => self.value(p),
        }
    }

    /// A list inside the caller's record `rec` (NULL: nothing): the capacity its count field (at
    /// byte `count_at`, a `c_uint`) holds on entry, at most that many elements written into the
    /// array its pointer field (at byte `array_at`) points to, then the count answered as
    /// [`Hostile::count`] answers one.
    pub fn record_list<R, T>(&self, rec: *mut R, count_at: usize, array_at: usize) {
        if rec.is_null() {
            return;
        }
        let base = rec as *mut u8;
        let count = base.wrapping_add(count_at) as *mut std::ffi::c_uint;
        let array = get(base.wrapping_add(array_at) as *const *mut T).unwrap_or(std::ptr::null_mut());
        let capacity = self.capacity(count);
        let n = self.elements(capacity);
        self.array(array, n);
        self.count(count, capacity, n);
    }

    /// A field beside a list inside the caller's record `rec` (NULL: nothing), of type `T` at
    /// byte `at`: written as [`Hostile::value`] writes an out-parameter.
    pub fn record_field<R, T>(&self, rec: *mut R, at: usize) {
        if rec.is_null() {
            return;
        }
        self.value((rec as *mut u8).wrapping_add(at) as *mut T);
    }

    /// Writes into a string buffer of `capacity` bytes (at most `MAX_ARRAY_BYTES` of them):
    /// NUL-terminated text, bytes without a NUL, invalid UTF-8 ended by a NUL, an empty string,
    /// random bytes, or nothing. Returns the size an honest library would ask for.
    pub fn string(&self, p: *mut c_char, capacity: usize) -> usize {
        if p.is_null() || capacity == 0 {
            return 0;
        }
        let capacity = capacity.min(MAX_ARRAY_BYTES);
        let len = self.below(capacity as u64) as usize;
        let mut bytes = match self.below(10) {
            0 => return len + 1,
            1..=3 => (0..len).map(|_| b' ' + self.below(95) as u8).collect(),
            4 | 5 => (0..capacity).map(|_| 1 + self.below(255) as u8).collect(),
            6 | 7 => (0..len).map(|_| 0x80 + self.below(128) as u8).collect(),
            8 => Vec::new(),
            _ => self.random_bytes(capacity),
        };
        if bytes.len() < capacity {
            bytes.push(0);
        }
        let _ = put_items(p as *mut u8, &bytes);
        bytes.len() + usize::from(bytes.len() == capacity && bytes.last() != Some(&0))
    }
}
