//! The bytes the safe crate decodes: every record read from each of its C layouts
//! (`FromRaw<sys::X>`; the unions it holds read through their tags, its values by their value
//! types), each written back where it has `ToRaw<sys::X>`; `Value` read by any type and
//! written back unchanged; vGPU metadata blobs. An input is two bytes choosing the decoder
//! (little-endian, modulo their number), then the bytes (after a value type for `Value`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use nvml::sys;
use nvmlkit_fuzz::{record, word};

include!(concat!(env!("OUT_DIR"), "/decoders.rs"));

/// `Value` by any value type, and back: the same type and bits.
fn value(b: &[u8]) {
    let (t, b) = word(b);
    let raw: sys::nvmlValue_t = record(b);
    let v = nvml::Value::from_raw(nvml::ValueType(t), &raw);
    let again = nvml::Value::from_raw(v.value_type(), &v.to_raw());
    assert_eq!(format!("{v:?}"), format!("{again:?}"), "Value does not survive to_raw");
    assert_eq!(v.value_type(), nvml::ValueType(t));
    std::hint::black_box((v.as_f64(), v.as_u64()));
}

/// Metadata blobs of any length.
fn blobs(b: &[u8]) {
    std::hint::black_box(nvml::VgpuMetadataBlob::from_bytes(b.to_vec()).record());
    std::hint::black_box(nvml::PgpuMetadataBlob::from_bytes(b.to_vec()).record());
}

fuzz_target!(|data: &[u8]| {
    let (pick, rest) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => return,
    };
    match pick % (DECODERS.len() + 2) {
        0 => value(rest),
        1 => blobs(rest),
        i => (DECODERS[i - 2].1)(rest),
    }
});
