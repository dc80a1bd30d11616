//! Raw FFI for NVIDIA's management library (NVML), generated from `nvml.h`.
//!
//! Every type, constant, enum and function of the header is here. Nothing is linked at build
//! time: [`NvmlLib`] opens `libnvidia-ml.so.1` (then `libnvidia-ml.so`, or the path in
//! `NVML_LIBRARY_PATH`) at run time, so a binary starts on any machine, and resolves each
//! function on first use, so a driver older than the header gives an `Err` naming the missing
//! symbol instead of a `symbol lookup error`.
//!
//! - Each function `nvmlX` has an accessor `NvmlLib::nvmlX()` returning its typed pointer.
//! - Each versioned family (`nvmlDeviceGetCount_v2`, `nvmlDeviceGetCount`, ...) has a resolver
//!   `NvmlLib::nvmlDeviceGetCount_newest()` that returns the newest version the library has.
//! - C enums are integer types with constants, so values newer than the header fit.
//! - [`FieldNumbering`] maps the `NVML_FI_*` field ids to the numbers of the running driver,
//!   which NVIDIA renumbered between releases (from every published header's numbers).
//!
//! ```no_run
//! use nvml_sys::*;
//!
//! let lib = NvmlLib::open()?;
//! let mut count = 0;
//! // SAFETY: the pointers are valid for the duration of each call.
//! unsafe {
//!     assert_eq!(lib.nvmlInit_v2()?(), NVML_SUCCESS);
//!     assert_eq!(lib.nvmlDeviceGetCount_v2()?(&mut count), NVML_SUCCESS);
//!     lib.nvmlShutdown()?();
//! }
//! println!("{count} GPUs");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Everything under `src/generated/` is written by `cargo xtask regen`; this file,
//! `loader.rs`, `macros.rs` and `fields.rs` are written by hand.

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

#[macro_use]
mod macros;
mod fields;
mod loader;

// Written by the generator (laid out by prettyplease): one module per area of nvml.h, each
// re-exported flat by the generated `mod.rs`.
#[rustfmt::skip]
mod generated;

pub use fields::{parse_driver_version, FieldNumbering};
pub use generated::*;
pub use loader::{LoadError, MissingSymbol, NvmlLib, DEFAULT_LIBRARY_NAMES, LIBRARY_PATH_ENV};

/// The README's examples, compiled as doc tests so that they stay right.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
