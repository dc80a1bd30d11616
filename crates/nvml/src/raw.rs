//! Conversions between this crate's data types and the C layouts of [`nvml_sys`], for code
//! that mixes the safe API with raw calls (`nvml.lib()`).
//!
//! **Outside the stable API.** These impls name nvml-sys's types, which follow `nvml.h` layout
//! by layout: when NVIDIA adds a layout (`nvmlPlatformInfo_v2_t` beside `_v1_t`), a type gains
//! an impl for it, and when NVIDIA removes one, the impl goes, in a minor release of this crate.
//! The safe types themselves keep their names and fields across such changes (one type per
//! record, whatever layouts the header declares). `cargo xtask header-diff` reports changes
//! here apart from the rest of the API.
//!
//! ```no_run
//! use nvml::raw::{FromRaw, ToRaw};
//!
//! let m = nvml::sys::nvmlMemory_v2_t { total: 80 << 30, ..Default::default() };
//! let safe = nvml::Memory::from_raw(&m);
//! let back: nvml::sys::nvmlMemory_v2_t = safe.to_raw(); // `version` filled in
//! assert_eq!(back.total, m.total);
//! ```

/// A safe value read from a C layout `R` of nvml-sys. Every layout of a record converts into
/// the record's one safe type; fields the layout lacks keep their defaults (or the value the
/// header gives for "none").
pub trait FromRaw<R>: Sized {
    /// Reads `raw`.
    fn from_raw(raw: &R) -> Self;
}

/// A safe value written into a C layout `R` of nvml-sys: strings cut to fit, longer lists
/// truncated, fields `R` lacks left out, and a versioned layout's `version` filled in.
pub trait ToRaw<R> {
    /// The C layout of this value.
    fn to_raw(&self) -> R;
}
