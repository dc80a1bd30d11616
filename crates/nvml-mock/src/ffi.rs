//! Reading and writing through the pointers a C caller hands over, with NVML's protocols for
//! strings and lists. Every `unsafe` block of the mock is here.

use std::ffi::{c_char, c_uint, CStr};

use nvml_sys::*;

/// Calls a function pointer of a library a capture reads (`generated/capture/`).
///
/// Only the generated readers invoke it, always with a pointer that `NvmlLib`'s accessor for
/// that very symbol returned (so the Rust type is the header's prototype), and with arguments
/// that are handles the same library gave, values of the declared C types, NULL where a
/// reader probes the library's argument checks, or pointers to the reader's own locals,
/// vectors and buffers, which outlive the call and have the size the header documents (string
/// buffers of the length passed beside them, arrays of the count passed beside them).
macro_rules! call {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        let f = $f;
        // SAFETY: see the macro's documentation: `f` has the prototype of its symbol in
        // nvml.h, and every pointer argument is NULL or valid for the access NVML makes during
        // the call (nothing is retained after it returns).
        unsafe { f($($arg),*) }
    }};
}
pub(crate) use call;

/// A copy of member `$m` of the C union at place `$u`.
///
/// Only for the unions of nvml.h whose values a profile gives: their members are plain data
/// (integers, floats, `char` arrays and records of them).
macro_rules! union_member {
    ($u:expr, $m:ident) => {{
        let u = &$u;
        // SAFETY: every member of the union is plain data, for which any bit pattern is valid,
        // and all of the union's bytes are initialised (zeroed by `Default` before the library
        // wrote one member), so reading any member is defined.
        unsafe { u.$m }
    }};
}
pub(crate) use union_member;

/// A number of an `nvmlValue_t`, read as its `nvmlValueType_t` says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

/// The member `value_type` names of `v` (an unknown type: its 64 bits, unsigned).
pub fn value_of(value_type: nvmlValueType_t, v: &nvmlValue_t) -> Number {
    // SAFETY: every member of `nvmlValue_t` is a plain integer or float, for which any bit
    // pattern is valid, and its 8 bytes are initialised (zeroed before the library wrote one
    // member), so reading any member is defined.
    unsafe {
        match value_type {
            NVML_VALUE_TYPE_DOUBLE => Number::Float(v.dVal),
            NVML_VALUE_TYPE_UNSIGNED_INT => Number::Int(v.uiVal.into()),
            NVML_VALUE_TYPE_SIGNED_INT => Number::Int(v.siVal.into()),
            NVML_VALUE_TYPE_UNSIGNED_SHORT => Number::Int(v.usVal.into()),
            NVML_VALUE_TYPE_SIGNED_LONG_LONG => Number::Int(v.sllVal.into()),
            NVML_VALUE_TYPE_UNSIGNED_LONG => Number::Int(v.ulVal as i128),
            _ => Number::Int(v.ullVal.into()),
        }
    }
}

/// An `nvmlValue_t` holding a number as `value_type` says (a float for a double, else the
/// integer), its other bytes zero.
pub fn value_from(value_type: nvmlValueType_t, float: Option<f64>, int: Option<i128>) -> nvmlValue_t {
    let mut v = nvmlValue_t { ullVal: 0 };
    let i = int.unwrap_or(0);
    match value_type {
        NVML_VALUE_TYPE_DOUBLE => v.dVal = float.unwrap_or(0.0),
        NVML_VALUE_TYPE_UNSIGNED_INT => v.uiVal = i as u32,
        NVML_VALUE_TYPE_SIGNED_INT => v.siVal = i as i32,
        NVML_VALUE_TYPE_UNSIGNED_SHORT => v.usVal = i as u16,
        NVML_VALUE_TYPE_SIGNED_LONG_LONG => v.sllVal = i as i64,
        _ => v.ullVal = i as u64,
    }
    v
}

/// The status of an engine operation: `Err` carries the NVML code the caller gets.
pub type Status = Result<(), nvmlReturn_t>;

/// Writes `v` through an out-pointer; a null pointer is `NVML_ERROR_INVALID_ARGUMENT`.
pub fn put<T>(p: *mut T, v: T) -> Status {
    if p.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: NVML's contract is that a non-null out-pointer points to writable memory for a
    // `T` (the type of the C prototype); unaligned writes keep a sloppy caller safe too.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// Reads an in-pointer (or the current value of an in/out pointer).
pub fn get<T: Copy>(p: *const T) -> Result<T, nvmlReturn_t> {
    if p.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: as for `put`: a non-null pointer from the caller points to a readable `T`.
    Ok(unsafe { p.read_unaligned() })
}

/// Reads the `version` field every versioned struct starts with, and checks it.
/// `v` as an `nvmlValue_t`'s `unsigned int`, its other bytes zero: a literal of the one member
/// would leave the upper four bytes of the 8-byte union uninitialised, and they are copied into
/// the caller's memory.
pub fn uint_value(v: c_uint) -> nvmlValue_t {
    let mut value = nvmlValue_t { ullVal: 0 };
    value.uiVal = v;
    value
}

pub fn check_version<T>(p: *mut T, expected: c_uint) -> Status {
    let version = get(p as *const c_uint)?;
    if version != expected {
        return Err(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    }
    Ok(())
}

/// A NUL-terminated string argument.
pub fn read_str(p: *const c_char) -> Result<String, nvmlReturn_t> {
    if p.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: string arguments of NVML functions are NUL-terminated C strings.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Copies `s` and a NUL into `buf` of `len` bytes, or answers `INSUFFICIENT_SIZE`.
pub fn put_str(buf: *mut c_char, len: c_uint, s: &str) -> Status {
    if buf.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    if (len as usize) < s.len() + 1 {
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    // SAFETY: `buf` is non-null and, per the caller's `len`, holds at least `s.len() + 1`
    // bytes; the source is a distinct Rust string.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), buf as *mut u8, s.len());
        *buf.add(s.len()) = 0;
    }
    Ok(())
}

/// A string whose buffer size is in and out (`*size`): a buffer shorter than `s` and its NUL
/// (a null one of size 0 included) answers `INSUFFICIENT_SIZE` with the size needed in
/// `*size`; a null buffer with a non-zero size is `INVALID_ARGUMENT`.
pub fn put_sized_str(buf: *mut c_char, size: *mut c_uint, s: &str) -> Status {
    let len = get(size)?;
    if buf.is_null() && len != 0 {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    if (len as usize) < s.len() + 1 {
        put(size, (s.len() + 1) as c_uint)?;
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    put_str(buf, len, s)
}

/// Copies `bytes` into `buf` of `len` bytes: `INSUFFICIENT_SIZE` when they do not fit,
/// `INVALID_ARGUMENT` for a null buffer.
pub fn put_bytes(buf: *mut u8, len: c_uint, bytes: &[u8]) -> Status {
    if (len as usize) < bytes.len() {
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if buf.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: `buf` is non-null and, per the caller's `len`, holds at least `bytes.len()`
    // bytes; the source is a distinct Rust slice.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len()) };
    Ok(())
}

/// The text of a fixed `char` array field, up to its first NUL.
pub fn chars_str(src: &[c_char]) -> String {
    let bytes: Vec<u8> = src.iter().map(|c| *c as u8).take_while(|b| *b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `s` cut (at a character boundary) to fit a buffer of `size` bytes with its NUL.
/// Copies `bytes` to `offset` bytes past `base`: the entry of an array whose size the caller
/// gave (the internal process lists of `nvidia-smi`, whose capacity it passes).
pub fn put_bytes_at(base: *mut u8, offset: usize, bytes: &[u8]) -> Status {
    if base.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: the caller's array holds the entries its capacity says, each of `bytes.len()`
    // bytes, and `offset` is that of an entry within that capacity; the source is a distinct
    // Rust slice.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(offset), bytes.len()) };
    Ok(())
}

/// The 32 bytes at `p`, when `p` points into the calling thread's stack near `near` (an
/// address of the caller's frame): for the call log of the internal slots, whose arguments'
/// types are unknown. Anything else is not read.
pub fn stack_bytes(p: usize, near: usize) -> Option<[u8; 32]> {
    if p < 4096 || p.abs_diff(near) > 256 * 1024 || p % 4 != 0 {
        return None;
    }
    // SAFETY: `p` lies within 256 KiB of a live local of this thread, inside the thread's
    // mapped stack (the frames of the caller, which passed it), and 32 bytes from there stay
    // inside it; any bytes are valid `u8`s.
    Some(unsafe { (p as *const [u8; 32]).read_unaligned() })
}

pub fn crop(s: &str, size: usize) -> &str {
    let mut n = s.len().min(size.saturating_sub(1));
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

/// Copies `s` into a fixed `char` array field of a struct, cut (see [`crop`]) to leave the NUL.
pub fn set_chars<const N: usize>(dst: &mut [c_char; N], s: &str) {
    let n = crop(s, N).len();
    for (d, b) in dst.iter_mut().zip(s.as_bytes()[..n].iter()) {
        *d = *b as c_char;
    }
    if N > 0 {
        dst[n] = 0;
    }
}

/// NVML's two-call list protocol: `*count` is the capacity on entry and the number of items
/// on return; a null array or a short capacity answers `INSUFFICIENT_SIZE` (an empty list
/// always succeeds).
pub fn put_list<T: Copy>(count: *mut c_uint, array: *mut T, items: &[T]) -> Status {
    let capacity = get(count)? as usize;
    put(count, items.len() as c_uint)?;
    if items.is_empty() {
        return Ok(());
    }
    if array.is_null() || capacity < items.len() {
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    // SAFETY: `array` is non-null and the caller said it holds `capacity >= items.len()`
    // elements of `T`.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), array, items.len()) };
    Ok(())
}

/// [`put_list`] for a list whose size query is a NULL array (`nvmlDeviceGetSamples`: "invoked
/// with samples set to NULL"): that answers `NVML_SUCCESS` and the count.
pub fn put_counted<T: Copy>(count: *mut c_uint, array: *mut T, items: &[T]) -> Status {
    if array.is_null() {
        get(count)?;
        return put(count, items.len() as c_uint);
    }
    put_list(count, array, items)
}

/// [`put_list`] for a struct that holds the count and the array pointer (the versioned
/// structs of newer functions): `fields` picks them out of the struct, whose count is written
/// back whatever the outcome.
pub fn put_list_in<S: Copy, T: Copy>(
    s: *mut S,
    fields: impl FnOnce(&mut S) -> (&mut c_uint, *mut T),
    items: &[T],
) -> Status {
    let mut v = get(s)?;
    let (count, array) = fields(&mut v);
    let status = put_list(count, array, items);
    put(s, v)?;
    status
}

/// Writes `items` one by one into an array the caller made long enough for them.
pub fn put_items<T: Copy>(array: *mut T, items: &[T]) -> Status {
    for (i, item) in items.iter().enumerate() {
        put(array.wrapping_add(i), *item)?;
    }
    Ok(())
}

/// Writes `items`, then `fill` up to `len` elements, into an array the caller made `len`
/// elements long (without allocating `len` elements: the caller chose `len`).
pub fn put_filled<T: Copy>(array: *mut T, items: &[T], len: usize, fill: T) -> Status {
    put_items(array, items)?;
    for i in items.len()..len {
        put(array.wrapping_add(i), fill)?;
    }
    Ok(())
}

/// Writes `items` into a caller-sized array and their number into `*count` (out only): the
/// protocol of calls such as `nvmlDeviceGetGpuInstances`, where the caller sizes the array
/// from a profile's instance count.
pub fn put_all<T: Copy>(count: *mut c_uint, array: *mut T, items: &[T]) -> Status {
    if array.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    put(count, items.len() as c_uint)?;
    put_items(array, items)
}

/// The type and value of an `nvmlUUID_t`: its text (up to the first NUL) and its 16 bytes.
pub fn read_uuid(p: *const nvmlUUID_t) -> Result<(c_uint, String, [u8; 16]), nvmlReturn_t> {
    let u = get(p)?;
    // SAFETY: both members of the union are plain byte arrays, for which every bit pattern is
    // valid; the caller's struct was copied whole by `get`.
    let (text, bytes) = unsafe { (chars_str(&u.value.str), u.value.bytes) };
    Ok((u.r#type, text, bytes))
}

/// Turns a status into the code returned to C.
pub fn code(s: Status) -> nvmlReturn_t {
    match s {
        Ok(()) => NVML_SUCCESS,
        Err(c) => c,
    }
}

/// The GUID of the export table `nvidia-smi` asks `nvmlInternalGetExportTable` for (its 16
/// bytes in memory), shared by the mock's table and the capture.
pub const SMI_TABLE: [u8; 16] =
    [0xc4, 0xfe, 0x3e, 0x6c, 0xc9, 0x8f, 0x6c, 0x4e, 0xa3, 0x27, 0xee, 0x69, 0x6e, 0x12, 0xf7, 0xc4];

/// The string slot `slot` of a driver's `nvidia-smi` export table writes for `device`, called
/// as `nvidia-smi -q` calls it: `(device, char *buffer, unsigned length)` with 80 bytes (slot
/// 231 of driver 580: the GPU part number). `None` when the library has no such table or
/// slot; `Err` with the code the slot answered.
pub fn export_table_string(lib: &NvmlLib, slot: usize, device: nvmlDevice_t) -> Option<Result<String, nvmlReturn_t>> {
    type GetTable = unsafe extern "C" fn(*mut *const u64, *const [u8; 16]) -> nvmlReturn_t;
    type StringSlot = unsafe extern "C" fn(nvmlDevice_t, *mut c_char, c_uint) -> nvmlReturn_t;
    // SAFETY: `nvmlInternalGetExportTable` has this prototype in every driver that exports it
    // (`nvidia-smi` calls it so; `engine/internal.rs` documents the protocol).
    let get = unsafe { lib.library().get::<GetTable>(b"nvmlInternalGetExportTable\0") }.ok()?;
    let mut table: *const u64 = std::ptr::null();
    // SAFETY: both pointers are valid locals; the driver writes the table's address.
    if unsafe { get(&mut table, &SMI_TABLE) } != NVML_SUCCESS || table.is_null() {
        return None;
    }
    // SAFETY: word 0 of the table is its size in bytes, and the table holds that many bytes.
    let size = unsafe { table.read() } as usize;
    if size < (slot + 1) * 8 {
        return None;
    }
    // SAFETY: the slot lies inside the table (checked above), and is a function pointer.
    let f = unsafe { table.add(slot).read() } as usize;
    if f == 0 {
        return None;
    }
    // SAFETY: a non-zero slot of the table is a function; this slot takes a device, a buffer
    // and its length, as `nvidia-smi -q` calls it (recorded on driver 580.159.04).
    let f: StringSlot = unsafe { std::mem::transmute::<usize, StringSlot>(f) };
    let mut buf = [0 as c_char; 80];
    // SAFETY: `buf` is a local of the length passed.
    let code = unsafe { f(device, buf.as_mut_ptr(), buf.len() as c_uint) };
    if code != NVML_SUCCESS {
        return Some(Err(code));
    }
    Some(read_str(buf.as_ptr()))
}

/// The first `words` 64-bit words of `file`, mapped shared for the rest of the process: what
/// another process writes there (through its own mapping) is seen at once. The file must be at
/// least `words * 8` bytes long; the mapping is never unmapped.
pub fn map_words(file: &std::fs::File, words: usize) -> std::io::Result<&'static [std::sync::atomic::AtomicU64]> {
    use std::os::fd::AsRawFd;
    let len = words * 8;
    if file.metadata()?.len() < len as u64 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is shorter than its words"));
    }
    // SAFETY: a fresh shared mapping of an open file descriptor; the kernel chooses the address.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0)
    };
    if p == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `p` is a page-aligned mapping of `len` bytes (so aligned for `AtomicU64`) that
    // stays mapped for the rest of the process; every access to it, here and in the other
    // processes that map the file, is atomic, and any bit pattern is a valid `u64`.
    Ok(unsafe { std::slice::from_raw_parts(p as *const std::sync::atomic::AtomicU64, words) })
}

/// Locks `file` (`flock`): shared or exclusive, waiting for it at most `wait` (not at all with
/// `None`). `Ok(false)`: another process holds a lock that excludes this one for all that
/// time. The lock lasts until the file is closed.
pub fn lock_file(file: &std::fs::File, exclusive: bool, wait: Option<std::time::Duration>) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let op = if exclusive { libc::LOCK_EX } else { libc::LOCK_SH } | libc::LOCK_NB;
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(100);
    loop {
        // SAFETY: `flock` on an open file descriptor touches no memory of ours.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => match wait {
                Some(limit) if start.elapsed() < limit => {
                    std::thread::sleep(pause.min(limit.saturating_sub(start.elapsed())));
                    pause = (pause * 2).min(std::time::Duration::from_millis(5));
                }
                _ => return Ok(false),
            },
            _ => return Err(e),
        }
    }
}

/// Swaps the directory entries `a` and `b` atomically (`renameat2` with `RENAME_EXCHANGE`):
/// neither is followed if it is a link. An error where either is missing or the file system
/// (or the kernel) cannot exchange them.
pub fn exchange(a: &std::path::Path, b: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &std::path::Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call; `renameat2` reads
    // them and touches no other memory of ours.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The user id this process runs as.
pub fn user_id() -> u32 {
    // SAFETY: `getuid` cannot fail and touches no memory of ours.
    unsafe { libc::getuid() }
}

/// The effective user id of the process (0: root).
pub fn effective_user_id() -> u32 {
    // SAFETY: `geteuid` cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_leaves_room_for_the_nul_and_never_splits_a_character() {
        assert_eq!(crop("Tesla", 4), "Tes");
        assert_eq!(crop("Tésla", 3), "T", "é takes bytes 1 and 2");
        assert_eq!(crop("Tésla", 4), "Té");
        assert_eq!(crop("T4", 0), "");
        let mut field = [1 as c_char; 4];
        set_chars(&mut field, "Tésla");
        assert_eq!(chars_str(&field), "Té");
    }
}
