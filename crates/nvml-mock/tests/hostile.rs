//! The mock's hostile mode (`NVML_MOCK_HOSTILE`), loaded through nvmlkit-sys: its answers are
//! hostile (codes the header does not know, counts beyond the capacity, strings without a NUL
//! or not UTF-8, enum values the header lacks), yet it never writes past what the caller
//! passed, as the header's prototypes and comments size it: each buffer below is followed by
//! guard bytes that must stay untouched, over thousands of calls, with garbage handles that
//! must never be dereferenced. Each scenario runs in a child process with its seed.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_uint, CStr};

use nvml_mock::testing::{in_child, mock_path, HOSTILE_ENV};
use nvml_sys::*;

/// Calls of each function per scenario.
const CALLS: usize = 4000;

/// Elements after each buffer that the library must not touch.
const GUARD: usize = 4;

/// The byte every buffer starts filled with.
const SENTINEL: u8 = 0xA5;

/// A handle no library handed out: the hostile mode must not look behind it.
const GARBAGE: usize = 0x5EED_0001;

/// `n` values of `T` and `GUARD` more, every byte `SENTINEL`, in 8-byte words (aligned for the
/// header's records).
struct Guarded<T> {
    words: Vec<u64>,
    n: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T> Guarded<T> {
    fn new(n: usize) -> Self {
        let bytes = (n + GUARD) * std::mem::size_of::<T>();
        Guarded { words: vec![u64::from_ne_bytes([SENTINEL; 8]); bytes.div_ceil(8)], n, _t: std::marker::PhantomData }
    }

    fn ptr(&mut self) -> *mut T {
        self.words.as_mut_ptr() as *mut T
    }

    fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// Whether the guard after the `n` values is untouched.
    fn guard_intact(&self) -> bool {
        let size = std::mem::size_of::<T>();
        self.bytes()[self.n * size..(self.n + GUARD) * size].iter().all(|b| *b == SENTINEL)
    }

    /// Whether every byte is still `SENTINEL` (nothing was written).
    fn untouched(&self) -> bool {
        self.bytes().iter().all(|b| *b == SENTINEL)
    }
}

/// The child's side: the mock, with the hostile mode of `seed`.
fn hostile(name: &str, seed: &str) -> Option<NvmlLib> {
    if !in_child(name, &[(HOSTILE_ENV, seed)]) {
        return None;
    }
    Some(NvmlLib::open_path(mock_path()).expect("the mock loads"))
}

fn device() -> nvmlDevice_t {
    GARBAGE as nvmlDevice_t
}

/// Every `NVML_ERROR_*` code nvml.h defines, and `NVML_SUCCESS`.
fn header_codes() -> BTreeSet<nvmlReturn_t> {
    let codes = [
        NVML_SUCCESS,
        NVML_ERROR_UNINITIALIZED,
        NVML_ERROR_INVALID_ARGUMENT,
        NVML_ERROR_NOT_SUPPORTED,
        NVML_ERROR_NO_PERMISSION,
        NVML_ERROR_ALREADY_INITIALIZED,
        NVML_ERROR_NOT_FOUND,
        NVML_ERROR_INSUFFICIENT_SIZE,
        NVML_ERROR_INSUFFICIENT_POWER,
        NVML_ERROR_DRIVER_NOT_LOADED,
        NVML_ERROR_TIMEOUT,
        NVML_ERROR_IRQ_ISSUE,
        NVML_ERROR_LIBRARY_NOT_FOUND,
        NVML_ERROR_FUNCTION_NOT_FOUND,
        NVML_ERROR_CORRUPTED_INFOROM,
        NVML_ERROR_GPU_IS_LOST,
        NVML_ERROR_RESET_REQUIRED,
        NVML_ERROR_OPERATING_SYSTEM,
        NVML_ERROR_LIB_RM_VERSION_MISMATCH,
        NVML_ERROR_IN_USE,
        NVML_ERROR_MEMORY,
        NVML_ERROR_NO_DATA,
        NVML_ERROR_VGPU_ECC_NOT_SUPPORTED,
        NVML_ERROR_INSUFFICIENT_RESOURCES,
        NVML_ERROR_FREQ_NOT_SUPPORTED,
        NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
        NVML_ERROR_DEPRECATED,
        NVML_ERROR_NOT_READY,
        NVML_ERROR_GPU_NOT_FOUND,
        NVML_ERROR_INVALID_STATE,
        NVML_ERROR_RESET_TYPE_NOT_SUPPORTED,
        NVML_ERROR_UNKNOWN,
    ];
    codes.into_iter().collect()
}

/// A count + array (`nvmlDeviceGetComputeRunningProcesses_v3`: "infoCount: Reference in which
/// to provide the infos array size, and to return the number of returned elements"): at most
/// the capacity is written, nothing through NULL, and the count answered is sometimes more than
/// the capacity, sometimes `0xFFFFFFFF`. Every code of the header comes, and unknown ones.
#[test]
fn counted_arrays_stay_within_their_capacity() {
    let Some(lib) = hostile("counted_arrays_stay_within_their_capacity", "1") else { return };
    let f = lib.nvmlDeviceGetComputeRunningProcesses_v3().unwrap();
    let (mut codes, mut above, mut all_ones, mut filled) = (BTreeSet::new(), 0, 0, 0);
    for i in 0..CALLS {
        let capacity = (i % 9) as c_uint;
        let mut infos = Guarded::<nvmlProcessInfo_t>::new(capacity as usize);
        let mut count = capacity;
        let array = if capacity == 0 { std::ptr::null_mut() } else { infos.ptr() };
        codes.insert(unsafe { f(device(), &mut count, array) });
        assert!(infos.guard_intact(), "call {i}: written past {capacity} elements");
        if capacity == 0 {
            assert!(infos.untouched(), "call {i}: written through a NULL array");
        } else if !infos.bytes()[..std::mem::size_of::<nvmlProcessInfo_t>()].iter().all(|b| *b == SENTINEL) {
            filled += 1;
        }
        above += usize::from(count > capacity && count != c_uint::MAX);
        all_ones += usize::from(count == c_uint::MAX);
    }
    assert!(
        above > CALLS / 20 && all_ones > 0 && filled > CALLS / 10,
        "counts above the capacity {above}, 0xFFFFFFFF {all_ones}, filled {filled}"
    );
    let known = header_codes();
    assert!(
        known.iter().all(|c| codes.contains(c)),
        "codes never answered: {:?}",
        known.difference(&codes).collect::<Vec<_>>()
    );
    assert!(
        codes.contains(&1234) && codes.iter().any(|c| !known.contains(c) && *c != 1234),
        "no unknown codes: {codes:?}"
    );
}

/// A list inside a versioned record (`nvmlDeviceGetRunningProcessDetailList`: "numProcArrayEntries:
/// Number of process entries in procArray"): at most the record's count of elements is written
/// into its array, nothing through a NULL one, the inputs and the version stay as the caller set
/// them, and the count answered is sometimes more than the capacity.
#[test]
fn lists_inside_records_stay_within_their_count() {
    let Some(lib) = hostile("lists_inside_records_stay_within_their_count", "5") else { return };
    let f = lib.nvmlDeviceGetRunningProcessDetailList().unwrap();
    let (mut above, mut filled) = (0, 0);
    for i in 0..CALLS {
        let capacity = (i % 9) as c_uint;
        let mut entries = Guarded::<nvmlProcessDetail_v1_t>::new(capacity as usize);
        let array = if capacity == 0 { std::ptr::null_mut() } else { entries.ptr() };
        let mut list = nvmlProcessDetailList_v1_t {
            version: nvmlProcessDetailList_v1,
            mode: 2,
            numProcArrayEntries: capacity,
            procArray: array,
        };
        unsafe { f(device(), &mut list) };
        assert!(entries.guard_intact(), "call {i}: written past {capacity} elements");
        assert_eq!((list.version, list.mode, list.procArray), (nvmlProcessDetailList_v1, 2, array), "call {i}");
        if capacity == 0 {
            assert!(entries.untouched(), "call {i}: written through a NULL array");
        } else if !entries.bytes()[..std::mem::size_of::<nvmlProcessDetail_v1_t>()].iter().all(|b| *b == SENTINEL) {
            filled += 1;
        }
        above += usize::from(list.numProcArrayEntries > capacity);
    }
    assert!(above > CALLS / 20 && filled > CALLS / 10, "counts above the capacity {above}, filled {filled}");
}

/// The lists inside records beside other fields: the placements' record in its older layout
/// (`nvmlVgpuPlacementList_v1_t`, shorter than the prototype's v2: "placementSize: The number
/// of slots occupied by the vGPU type", an output beside the list) is not written past its own
/// size, its array within its count, and the slot size answered varies; the context payload
/// ("dataSize: Size of data on input; actual or required size on output", a `void *` of bytes
/// in a record without a version) is written within `dataSize` bytes, its index kept, and so
/// is a CPER record's buffer within `bufferSize` (beside its in/out cursor); and a
/// versioned out-record in an older layout (`nvmlNvLinkInfo_v1_t` to `nvmlDeviceGetNvLinkInfo`)
/// is written within that layout's size.
#[test]
fn lists_beside_outputs_and_older_layouts_stay_within_their_record() {
    let Some(lib) = hostile("lists_beside_outputs_and_older_layouts_stay_within_their_record", "7") else { return };
    let placements = lib.nvmlDeviceGetVgpuTypeSupportedPlacements().unwrap();
    let context = lib.nvmlEventSetGetContextData_v1().unwrap();
    let nvlink = lib.nvmlDeviceGetNvLinkInfo().unwrap();
    let cper_f = lib.nvmlSystemGetCPER_v1().unwrap();
    let (mut sizes, mut filled, mut bytes) = (BTreeSet::new(), 0, 0);
    for i in 0..CALLS {
        let capacity = (i % 9) as c_uint;
        let mut ids = Guarded::<c_uint>::new(capacity as usize);
        let array = if capacity == 0 { std::ptr::null_mut() } else { ids.ptr() };
        let mut rec = Guarded::<nvmlVgpuPlacementList_v1_t>::new(1);
        let v1 = nvmlVgpuPlacementList_v1_t {
            version: nvmlVgpuPlacementList_v1,
            placementSize: 0,
            count: capacity,
            placementIds: array,
        };
        unsafe { rec.ptr().write(v1) };
        unsafe { placements(device(), GARBAGE as nvmlVgpuTypeId_t, rec.ptr().cast()) };
        assert!(rec.guard_intact(), "call {i}: written past the v1 record");
        assert!(ids.guard_intact(), "call {i}: written past {capacity} placements");
        let back = unsafe { rec.ptr().read() };
        assert_eq!((back.version, back.placementIds), (nvmlVgpuPlacementList_v1, array), "call {i}");
        sizes.insert(back.placementSize);
        if capacity > 0 && !ids.bytes()[..4].iter().all(|b| *b == SENTINEL) {
            filled += 1;
        }

        let mut data = Guarded::<u8>::new(capacity as usize);
        let ptr = if capacity == 0 { std::ptr::null_mut() } else { data.ptr() };
        let mut params = nvmlEventSetGetContextData_v1_t { data: ptr.cast(), index: 3, dataSize: capacity };
        unsafe { context(GARBAGE as nvmlEventSet_t, &mut params) };
        assert!(data.guard_intact(), "call {i}: written past {capacity} bytes");
        assert_eq!((params.index, params.data), (3, ptr.cast()), "call {i}");
        if capacity == 0 {
            assert!(data.untouched(), "call {i}: written through a NULL buffer");
        } else if !data.untouched() {
            bytes += 1;
        }

        let mut record = Guarded::<u8>::new(capacity as usize);
        let buf = if capacity == 0 { std::ptr::null_mut() } else { record.ptr() };
        let mut cper = nvmlGetCPER_v1_t { cursor: nvmlCPERCursor_v1_t::default(), buffer: buf, bufferSize: capacity };
        unsafe { cper_f(&mut cper) };
        assert!(record.guard_intact(), "call {i}: written past {capacity} CPER bytes");
        assert_eq!(cper.buffer, buf, "call {i}");
        if capacity == 0 {
            assert!(record.untouched(), "call {i}: written through a NULL CPER buffer");
        }

        let mut info = Guarded::<nvmlNvLinkInfo_v1_t>::new(1);
        unsafe { info.ptr().write(nvmlNvLinkInfo_v1_t { version: nvmlNvLinkInfo_v1, isNvleEnabled: 0 }) };
        unsafe { nvlink(device(), info.ptr().cast()) };
        assert!(info.guard_intact(), "call {i}: written past the v1 NVLink record");
    }
    assert!(
        sizes.len() > 2 && filled > CALLS / 10 && bytes > CALLS / 10,
        "sizes {sizes:?}, filled {filled}, bytes {bytes}"
    );
}

/// String buffers ("length: The maximum allowed length of the string returned in name"; "size:
/// Size of the vgpuTypeClass buffer", in and out): at most `length` bytes are written; some
/// answers have no NUL in the buffer, some are not UTF-8; a size by pointer may claim more.
#[test]
fn strings_stay_within_their_length() {
    let Some(lib) = hostile("strings_stay_within_their_length", "2") else { return };
    let name = lib.nvmlDeviceGetName().unwrap();
    let class = lib.nvmlVgpuTypeGetClass().unwrap();
    let (mut no_nul, mut not_utf8, mut text, mut bigger) = (0, 0, 0, 0);
    for i in 0..CALLS {
        let length = 1 + (i % 96) as c_uint;
        let mut buf = Guarded::<c_char>::new(length as usize);
        let mut size = length;
        if i % 2 == 0 {
            unsafe { name(device(), buf.ptr(), length) };
        } else {
            unsafe { class(GARBAGE as nvmlVgpuTypeId_t, buf.ptr(), &mut size) };
            bigger += usize::from(size > length);
        }
        assert!(buf.guard_intact(), "call {i}: written past {length} bytes");
        let bytes = &buf.bytes()[..length as usize];
        match bytes.iter().position(|b| *b == 0) {
            None if bytes.iter().all(|b| *b == SENTINEL) => {}
            None => no_nul += 1,
            Some(end) if std::str::from_utf8(&bytes[..end]).is_err() => not_utf8 += 1,
            Some(_) => text += 1,
        }
    }
    assert!(
        no_nul > CALLS / 20 && not_utf8 > CALLS / 20 && text > CALLS / 20 && bigger > 0,
        "no NUL {no_nul}, not UTF-8 {not_utf8}, text {text}, bigger size {bigger}"
    );
}

/// Lengths the caller passes by value, in elements ("valuesCount: Number of entries in
/// values") and in bytes ("size: Size of the supplied pstates array in bytes"), and the
/// out-only count of `nvmlDeviceGetGpuInstances`, whose array the safe crate allocates with 32
/// entries (its rule; the header asks for as many as the profile supports) and which may claim
/// more.
#[test]
fn caller_sized_arrays_stay_within_their_length() {
    let Some(lib) = hostile("caller_sized_arrays_stay_within_their_length", "3") else { return };
    let (fields, pstates, instances) = (
        lib.nvmlDeviceGetFieldValues().unwrap(),
        lib.nvmlDeviceGetSupportedPerformanceStates().unwrap(),
        lib.nvmlDeviceGetGpuInstances().unwrap(),
    );
    let mut claimed_more = 0;
    for i in 0..CALLS {
        let n = i % 5;
        let mut values = Guarded::<nvmlFieldValue_t>::new(n);
        unsafe { fields(device(), n as i32, values.ptr()) };
        assert!(values.guard_intact(), "call {i}: field values written past {n} entries");
        let mut states = Guarded::<nvmlPstates_t>::new(n);
        let bytes = (n * std::mem::size_of::<nvmlPstates_t>()) as c_uint;
        unsafe { pstates(device(), states.ptr(), bytes) };
        assert!(states.guard_intact(), "call {i}: P-states written past {bytes} bytes");
        let mut handles = Guarded::<nvmlGpuInstance_t>::new(32);
        let mut count = 0;
        unsafe { instances(device(), 0, handles.ptr(), &mut count) };
        assert!(handles.guard_intact(), "call {i}: GPU instances written past 32 entries");
        claimed_more += usize::from(count > 32);
    }
    assert!(claimed_more > 0, "the out-only count never claimed more than was allocated");
}

/// Values: enum values the header does not define (`nvmlPstates_t` has 0 to 15 and 32), and a
/// record gets all its bytes answered, never more.
#[test]
fn values_are_garbage_within_their_size() {
    let Some(lib) = hostile("values_are_garbage_within_their_size", "4") else { return };
    let (pstate, memory) = (lib.nvmlDeviceGetPerformanceState().unwrap(), lib.nvmlDeviceGetMemoryInfo_v2().unwrap());
    let (mut unknown, mut known) = (0, 0);
    for i in 0..CALLS {
        let mut state = Guarded::<nvmlPstates_t>::new(1);
        unsafe { pstate(device(), state.ptr()) };
        assert!(state.guard_intact(), "call {i}: P-state written past its 4 bytes");
        if !state.untouched() {
            let v = u32::from_ne_bytes(state.bytes()[..4].try_into().unwrap());
            if v <= 15 || v == 32 {
                known += 1;
            } else {
                unknown += 1;
            }
        }
        let mut m = Guarded::<nvmlMemory_v2_t>::new(1);
        unsafe { memory(device(), m.ptr()) };
        assert!(m.guard_intact(), "call {i}: memory record written past its size");
    }
    assert!(unknown > CALLS / 10 && known > CALLS / 20, "unknown P-states {unknown}, known {known}");
}

/// A function without a reading the mock trusts (a record that points to a caller's array)
/// answers codes and writes nothing, through the record or its pointer; `nvmlErrorString`
/// answers NULL or a NUL-terminated string.
#[test]
fn unread_functions_write_nothing() {
    let Some(lib) = hostile("unread_functions_write_nothing", "5") else { return };
    // Not read: its record holds a pointer to an array beside `numEvent`, an output alone.
    let f = lib.nvmlSystemEventSetWait().unwrap();
    let error_string = lib.nvmlErrorString().unwrap();
    let mut codes = BTreeSet::new();
    let (mut null, mut strings) = (0, 0);
    for i in 0..CALLS {
        let mut events = Guarded::<nvmlSystemEventData_v1_t>::new(4);
        // The record as the caller fills it: its array points to `events`.
        let mut r = nvmlSystemEventSetWaitRequest_t {
            version: nvmlSystemEventSetWaitRequest_v1,
            timeoutms: 0,
            set: GARBAGE as nvmlSystemEventSet_t,
            data: events.ptr(),
            dataSize: 4,
            numEvent: 7,
        };
        codes.insert(unsafe { f(&mut r) });
        assert_eq!((r.dataSize, r.numEvent, r.data), (4, 7, events.ptr()), "call {i}: the record was written");
        assert!(events.untouched(), "call {i}: written through the pointer of an unread record");
        let s = unsafe { error_string(i as nvmlReturn_t) };
        if s.is_null() {
            null += 1;
        } else {
            let _ = unsafe { CStr::from_ptr(s) }.to_bytes();
            strings += 1;
        }
    }
    assert!(codes.len() > 20 && null > 0 && strings > 0, "codes {codes:?}, NULL strings {null}, strings {strings}");
}

/// One seed gives one sequence of answers; another seed, another.
#[test]
fn a_seed_gives_one_sequence() {
    let name = "a_seed_gives_one_sequence";
    let report = std::env::var("NVMLKIT_HOSTILE_SEQUENCE");
    if std::env::var_os(nvml_mock::testing::CHILD_ENV).is_none() {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let run = |seed: &str, n: usize| {
            let path = dir.join(format!("hostile-sequence-{n}.txt"));
            in_child(name, &[(HOSTILE_ENV, seed), ("NVMLKIT_HOSTILE_SEQUENCE", path.to_str().unwrap())]);
            std::fs::read_to_string(&path).unwrap()
        };
        let (a, b, c) = (run("0x2a", 1), run("42", 2), run("43", 3));
        assert_eq!(a, b, "one seed, written two ways, gave two sequences");
        assert_ne!(a, c, "two seeds gave one sequence");
        return;
    }
    let lib = NvmlLib::open_path(mock_path()).unwrap();
    let f = lib.nvmlDeviceGetCount_v2().unwrap();
    let answers: Vec<String> = (0..64)
        .map(|_| {
            let mut n = 0xA5A5_A5A5;
            let code = unsafe { f(&mut n) };
            format!("{code} {n}")
        })
        .collect();
    std::fs::write(report.unwrap(), answers.join("\n")).unwrap();
}
