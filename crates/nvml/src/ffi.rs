//! The helpers generated methods call: every `unsafe` block of the safe crate's calls into
//! the library is here, each with its justification.

use std::ffi::{c_char, c_uint, CStr, CString};

use nvml_sys as sys;

use crate::Error;

/// Calls a resolved NVML function pointer with arguments prepared by a generated method.
///
/// Only generated code, the core and the hand-written wrappers of `manual/` invoke it, always with a pointer obtained from
/// `NvmlLib`'s accessor for that very symbol (so the Rust type is the header's prototype),
/// and with arguments that are handles from the same library, values of the declared C
/// types, or pointers to locals, vectors and buffers owned by the caller that outlive the
/// call and have the size the header documents (string buffers of the documented length,
/// arrays of the count passed alongside).
macro_rules! call {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        let f = $f;
        // SAFETY: see the macro's documentation: `f` has the prototype of its symbol in
        // nvml.h, and every pointer argument is valid for the access NVML makes during the
        // call (nothing is retained after it returns).
        unsafe { f($($arg),*) }
    }};
}

/// `Ok` for `NVML_SUCCESS`, the error otherwise.
///
/// Every call of the library goes through here, so success is one comparison inlined into the
/// caller; the error's mapping is out of line ([`error`]).
#[inline(always)]
pub fn check(code: sys::nvmlReturn_t) -> Result<(), Error> {
    if code == sys::NVML_SUCCESS {
        Ok(())
    } else {
        Err(error(code))
    }
}

/// The error of a code other than `NVML_SUCCESS`: kept out of the callers' fast path.
#[cold]
#[inline(never)]
fn error(code: sys::nvmlReturn_t) -> Error {
    Error::from_code(code).unwrap_or(Error::Unknown(code))
}

/// A NUL-terminated copy of `s`; an interior NUL is `InvalidArgument`.
pub fn cstring(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::InvalidArgument)
}

/// The text of a C buffer up to its first NUL (or its end when there is none), with invalid
/// UTF-8 replaced.
pub fn string_from(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Copies `s` into a C buffer, cut to leave room for the NUL.
pub fn set_string(buf: &mut [c_char], s: &str) {
    let n = s.len().min(buf.len().saturating_sub(1));
    for (d, b) in buf.iter_mut().zip(s.as_bytes()[..n].iter()) {
        *d = *b as c_char;
    }
    for d in buf.iter_mut().skip(n) {
        *d = 0;
    }
}

/// How many times a list is re-fetched when it keeps growing between the size query and the
/// fill.
pub const LIST_ATTEMPTS: usize = 4;

/// The most elements a list the library sizes may have: a count beyond it is no list a GPU has
/// (a driver bug, or a corrupted answer) and is an error, not an allocation.
pub const MAX_LIST_LEN: usize = 1 << 20;

/// The most bytes the arrays of one list may take together (see [`MAX_LIST_LEN`]).
pub const MAX_LIST_BYTES: usize = 256 << 20;

/// How a count + array call learns the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// A NULL array with a count of 0 asks for the size.
    Null,
    /// As [`Probe::Null`], but the library answers the size with
    /// `NVML_ERROR_INSUFFICIENT_SIZE` even when it is 0 (nvmlDeviceGetAccountingPids: "The
    /// return code will be NVML_ERROR_INSUFFICIENT_SIZE with an updated count value"): that
    /// answer with a count of 0 is an empty list.
    NullSizeError,
    /// The library refuses a NULL array: start with this many elements, then grow to what it
    /// asks for (or double, when it does not say).
    Capacity(c_uint),
}

/// `count` as a length, unless `count` elements of `elem_bytes` bytes (all arrays of one
/// element together) cannot be a real list: [`Error::Implausible`].
pub fn check_count(count: c_uint, elem_bytes: usize) -> Result<usize, Error> {
    let n = count as usize;
    if n > MAX_LIST_LEN || n.saturating_mul(elem_bytes.max(1)) > MAX_LIST_BYTES {
        return Err(Error::Implausible("the library answered a list length no GPU has"));
    }
    Ok(n)
}

/// What the size query of the count + array protocol (NULL arrays, `*count == 0`) answers: the
/// length of the list, read by `probe` from the library's `code` and `count`. `NVML_SUCCESS`
/// or `NVML_ERROR_INSUFFICIENT_SIZE` (the code that asks for arrays that big) gives `count`,
/// unless no real list has it ([`Error::Implausible`]). `NVML_ERROR_INSUFFICIENT_SIZE` with a
/// count of 0 is an empty list only for [`Probe::NullSizeError`], whose header says the library
/// answers so; for [`Probe::Null`] it is [`Error::InsufficientSize`] (a library that asks for
/// more and does not say how much). [`count_of`] and [`fill_counted`] read the answer here, so
/// that a count method and the list it counts agree.
pub fn size_answer(probe: Probe, code: sys::nvmlReturn_t, count: c_uint, elem_bytes: usize) -> Result<usize, Error> {
    match code {
        sys::NVML_SUCCESS => check_count(count, elem_bytes),
        sys::NVML_ERROR_INSUFFICIENT_SIZE if count > 0 || probe == Probe::NullSizeError => {
            check_count(count, elem_bytes)
        }
        code => Err(Error::from_code(code).unwrap_or(Error::Unknown(code))),
    }
}

/// The size query of the count + array protocol alone: `call(count)` calls the library with
/// NULL arrays and `*count == 0`; the length it answers, read as [`size_answer`] reads it
/// (and as [`fill_counted`] reads the same answer).
pub fn count_of(
    probe: Probe,
    elem_bytes: usize,
    call: impl FnOnce(&mut c_uint) -> sys::nvmlReturn_t,
) -> Result<u32, Error> {
    let mut count: c_uint = 0;
    let code = call(&mut count);
    Ok(size_answer(probe, code, count, elem_bytes)? as u32)
}

/// The count + array protocol, for one or more arrays that share a count. `call(capacity,
/// count)` allocates `capacity` elements in each array (NULL when 0, see [`ptr_or_null`]),
/// calls the library with `*count == capacity`, and returns its code with the arrays; the
/// library writes the elements it filled, or needs, into `count`. Returns the arrays and how
/// many of their elements are filled (never more than were allocated).
///
/// With [`Probe::Null`] the first call passes NULL arrays to learn the size; with
/// [`Probe::Capacity`] it passes that many elements. `NVML_ERROR_INSUFFICIENT_SIZE` grows the
/// arrays to the count the library answers (doubling when it answers none), at most
/// [`LIST_ATTEMPTS`] times; a count beyond [`MAX_LIST_LEN`] is [`Error::Implausible`].
/// `elem_bytes` is the size of one element of every array together.
pub fn fill_counted<A>(
    probe: Probe,
    elem_bytes: usize,
    mut call: impl FnMut(c_uint, &mut c_uint) -> (sys::nvmlReturn_t, A),
) -> Result<(A, usize), Error> {
    let mut capacity: c_uint = match probe {
        Probe::Null | Probe::NullSizeError => 0,
        Probe::Capacity(n) => n,
    };
    check_count(capacity, elem_bytes)?;
    for _ in 0..LIST_ATTEMPTS {
        let mut count = capacity;
        let (code, arrays) = call(capacity, &mut count);
        // The size query (NULL arrays): its answer is the list's length, read as `count_of`
        // reads it; an empty list is done, another is fetched (the protocol of the placement
        // queries answers the count with `NVML_SUCCESS`, the others with
        // `NVML_ERROR_INSUFFICIENT_SIZE`).
        if capacity == 0 && matches!(probe, Probe::Null | Probe::NullSizeError) {
            match size_answer(probe, code, count, elem_bytes)? {
                0 => return Ok((arrays, 0)),
                n => {
                    capacity = n as c_uint;
                    continue;
                }
            }
        }
        match code {
            sys::NVML_SUCCESS => return Ok((arrays, (count as usize).min(capacity as usize))),
            sys::NVML_ERROR_INSUFFICIENT_SIZE if count > capacity => {
                capacity = check_count(count, elem_bytes)? as c_uint
            }
            sys::NVML_ERROR_INSUFFICIENT_SIZE if matches!(probe, Probe::Capacity(_)) => {
                capacity = check_count(capacity.saturating_mul(2).max(1), elem_bytes)? as c_uint;
            }
            code => return Err(Error::from_code(code).unwrap_or(Error::Unknown(code))),
        }
    }
    Err(Error::InsufficientSize)
}

/// The count + array protocol for a single array of `T` (see [`fill_counted`]), with
/// [`Probe::Null`].
pub fn fill_list<T: Copy>(
    init: T,
    mut call: impl FnMut(&mut c_uint, *mut T) -> sys::nvmlReturn_t,
) -> Result<Vec<T>, Error> {
    let (mut buf, n) = fill_counted(Probe::Null, std::mem::size_of::<T>(), |capacity, count| {
        let mut buf = vec![init; capacity as usize];
        let code = call(count, ptr_or_null(&mut buf));
        (code, buf)
    })?;
    buf.truncate(n);
    Ok(buf)
}

/// The array's pointer, or NULL for an empty one (the size probe).
pub fn ptr_or_null<T>(v: &mut [T]) -> *mut T {
    if v.is_empty() {
        std::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

/// A length the caller asks for, if it can be a real list (see [`MAX_LIST_LEN`]); beyond,
/// `InvalidArgument` rather than an allocation.
pub fn checked_len(n: usize) -> Result<usize, Error> {
    if n > MAX_LIST_LEN {
        return Err(Error::InvalidArgument);
    }
    Ok(n)
}

/// `elems` elements of `elem_size` bytes as the C length argument of type `L` (in bytes when
/// `elem_size > 1`); `InvalidArgument` when it does not fit.
pub fn length<L: TryFrom<usize>>(elems: usize, elem_size: usize) -> Result<L, Error> {
    elems.checked_mul(elem_size).and_then(|n| L::try_from(n).ok()).ok_or(Error::InvalidArgument)
}

/// [`fill_list`] for an array that a record points to: `make` builds the record from the
/// capacity and the array pointer, `call` passes it to the library, and `count_of` reads the
/// count the library wrote back.
pub fn fill_in_record<T: Copy + Default, R>(
    make: impl Fn(c_uint, *mut T) -> R,
    count_of: impl Fn(&R) -> c_uint,
    mut call: impl FnMut(&mut R) -> sys::nvmlReturn_t,
) -> Result<Vec<T>, Error> {
    fill_list(T::default(), |count, ptr| {
        let mut r = make(*count, ptr);
        let code = call(&mut r);
        *count = count_of(&r);
        code
    })
}

/// A variable-size record (a fixed part followed by opaque data) fetched with the size-query
/// protocol of `bufferSize` in bytes: returned as its bytes.
pub fn fill_record_bytes(mut call: impl FnMut(*mut u64, &mut c_uint) -> sys::nvmlReturn_t) -> Result<Vec<u8>, Error> {
    let mut size: c_uint = 0;
    for _ in 0..LIST_ATTEMPTS {
        // 8-byte words: aligned for the record the library writes at the start.
        let mut words = vec![0u64; (size as usize).div_ceil(8)];
        let ptr = if words.is_empty() { std::ptr::null_mut() } else { words.as_mut_ptr() };
        let mut n = size;
        match call(ptr, &mut n) {
            sys::NVML_SUCCESS if !words.is_empty() => {
                return Ok(words.iter().flat_map(|w| w.to_ne_bytes()).take(size as usize).collect())
            }
            // The size query answered with success and no size: there is nothing (the same
            // answer is an empty list to `fill_counted`).
            sys::NVML_SUCCESS if n == 0 => return Ok(Vec::new()),
            sys::NVML_SUCCESS | sys::NVML_ERROR_INSUFFICIENT_SIZE if n > size => size = check_count(n, 1)? as c_uint,
            code => return Err(Error::from_code(code).unwrap_or(Error::Unknown(code))),
        }
    }
    Err(Error::InsufficientSize)
}

/// `bytes` in 8-byte-aligned words, to pass a record fetched by [`fill_record_bytes`] back to
/// the library.
pub fn aligned_words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect()
}

/// The fixed part of record `T` at the start of `bytes` (zeros where `bytes` is shorter).
pub fn record_prefix<T: Copy + Default>(bytes: &[u8]) -> T {
    let mut words = aligned_words(bytes);
    words.resize(std::mem::size_of::<T>().div_ceil(8), 0);
    if std::mem::align_of::<T>() > 8 {
        return T::default();
    }
    // SAFETY: `words` holds at least `size_of::<T>()` initialised bytes at an address aligned
    // for `T` (checked above), and `T` is a plain C record of nvml.h (integers, chars and
    // arrays of them, as the callers pass), for which every bit pattern is a valid value.
    unsafe { (words.as_ptr() as *const T).read() }
}

/// `nvmlErrorString(code)` of `lib`, if the library exports it.
pub fn error_string(lib: &sys::NvmlLib, code: sys::nvmlReturn_t) -> Option<String> {
    let f = lib.nvmlErrorString().ok()?;
    let p = call!(f(code));
    if p.is_null() {
        return None;
    }
    // SAFETY: nvmlErrorString returns a pointer to a static NUL-terminated string of the
    // library (checked non-null above); it is copied out before the library can be unloaded,
    // which the caller prevents by holding the library.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// A string the library owns for as long as it is loaded (NULL: none), such as the names of
/// GPM metrics.
pub fn library_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller passes a pointer the library returned to a NUL-terminated string of
    // its own static data (checked non-null above), and holds the library loaded (through the
    // `Nvml` it borrows) while the string is copied out here.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}
