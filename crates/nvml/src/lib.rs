//! Safe bindings to NVIDIA's management library (NVML), generated from `nvml.h`.
//!
//! [`Nvml::init`] loads `libnvidia-ml` at run time (nothing is linked at build time) and
//! initialises it; handles such as [`Device`] borrow it and expose a method for every
//! function of the header that the generator wraps. Each method calls the newest version of
//! its function that the loaded driver exports, so one binary runs on old and new drivers: a
//! function the driver lacks is [`Error::FunctionNotFound`], never a crash.
//!
//! ```no_run
//! use nvml::Nvml;
//!
//! let nvml = Nvml::init()?;
//! println!("driver {}", nvml.driver_version()?);
//! for i in 0..nvml.device_count()? {
//!     let gpu = nvml.device_by_index(i)?;
//!     let mem = gpu.memory_info()?;
//!     println!("{} {}: {} MiB used of {}", gpu.uuid()?, gpu.name()?, mem.used >> 20, mem.total >> 20);
//! }
//! # Ok::<(), nvml::Error>(())
//! ```
//!
//! - Enums are open newtypes ([`ClockType`]`(u32)` with constants): values newer than the
//!   header survive. Bit masks are [`bitflags`] types that keep unknown bits.
//! - Records are plain Rust structs converted from the C layout; versioned ones get their
//!   `version` filled in by the method.
//! - Lists use NVML's two-call protocol (size query, fill) and retry if the list grows; a
//!   count no real list has is [`Error::Implausible`], never an allocation.
//! - The `serde` feature implements `serde::Serialize` for the data types, in the form a
//!   derive would write for the Rust type: records as maps keyed by their Rust field names
//!   (`{"bus_id_legacy": …}`), `Option`s as `null` or the value, unions read through their tag
//!   as `{"Variant": value}` (`{"Unknown": {"tag", "bytes"}}`); an enum's value as the name of
//!   its Rust constant (`"HOPPER"`), or its number where the header names none; bit flags as
//!   their bits, a number; [`Value`] as its number.
//! - [`sys`] is the raw layer, for anything else: the function table (`nvml.lib()`), every C
//!   type and every constant of the header; [`raw`] converts between its records and this
//!   crate's. The docs link the constants they name (`[sys::NVML_VALUE_NOT_AVAILABLE]`), and
//!   the limit methods take, the number of NVLink links, is [`NVLINK_MAX_LINKS`].
//!
//! # Handles
//!
//! Handles of objects the library owns ([`Device`], [`Unit`], [`VgpuTypeId`]...) are `Clone`.
//! Objects the process allocates ([`EventSet`], [`GpmSample`], [`SystemEventSet`]) are owned:
//! not `Clone`, freed when dropped, and `free(self)` returns the library's answer instead.
//! GPU and compute instances outlive the process: dropping their handle leaves them, and only
//! `destroy(self)` destroys them:
//!
//! ```no_run
//! fn lifetimes(nvml: &nvml::Nvml, gi: nvml::GpuInstance<'_>) -> Result<(), nvml::Error> {
//!     let set = nvml.event_set_create()?;
//!     set.wait(0)?;
//!     set.free()?; // or let it drop
//!     gi.info()?;
//!     gi.destroy()
//! }
//! ```
//!
//! A freed or destroyed handle cannot be used, nor copied first:
//!
//! ```compile_fail,E0599
//! fn twice(set: nvml::EventSet<'_>) -> Result<(), nvml::Error> {
//!     let copy = set.clone(); // an event set is not Clone
//!     set.free()?;
//!     copy.wait(0).map(|_| ())
//! }
//! ```
//!
//! ```compile_fail,E0382
//! fn after_free(set: nvml::EventSet<'_>) -> Result<(), nvml::Error> {
//!     set.free()?;
//!     set.wait(0).map(|_| ()) // `set` was moved into `free`
//! }
//! ```
//!
//! ```compile_fail,E0382
//! fn after_destroy(gi: nvml::GpuInstance<'_>) -> Result<(), nvml::Error> {
//!     gi.destroy()?;
//!     gi.info().map(|_| ()) // `gi` was moved into `destroy`
//! }
//! ```
//!
//! [`Nvml::shutdown`] likewise takes the library by value.
//!
//! Everything under `src/generated/` is written by `cargo xtask regen`; the other files are
//! written by hand: the core (loading, lifetime, errors, handles) and, in `src/manual/`, the
//! few functions whose shape needs hand code (each named by a `manual` rule).
//!
//! # Layers
//!
//! For whoever works on the crate: its modules bottom to top; a module refers only to modules
//! of lower layers (`xtask/tests/house.rs` in the repository checks it, and reads this list).
//!
//! 1. `ffi`, `value`, `newtype`, `raw`: the `call!` macro, the status check and the list and
//!    string helpers every call goes through; `nvmlValue_t` read by its type, and the macros
//!    through which the other unions' members are read; the macro of the open newtypes; the
//!    traits of the conversions to and from nvml-sys's layouts.
//! 2. `nvml`: loading the library, `nvmlInit`, shutdown.
//! 3. `handle`: the macros the generated handle list invokes.
//! 4. `generated`: everything `cargo xtask regen` writes.
//! 5. `error`, `manual`: `Display` for the generated `Error`; the functions wrapped by hand.
//! 6. `tests`: every generated method called against the mock.

#![warn(missing_docs)]

#[macro_use]
mod ffi;
#[macro_use]
mod handle;
#[macro_use]
mod newtype;
mod error;
mod manual;
mod nvml;
pub mod raw;
#[macro_use]
mod value;

// Written by the generator (laid out by prettyplease): the error type, the handles, and one
// module per area of nvml.h with its types and methods, whose types `mod.rs` re-exports.
#[rustfmt::skip]
mod generated;

#[cfg(test)]
mod tests;

pub use error::Error;
pub use generated::handles::*;
pub use generated::*;
pub use handle::RawHandle;
pub use manual::*;
pub use nvml::{Builder, Nvml};
pub use nvml_sys as sys;
/// The number of NVLink links a device can have (`NVML_NVLINK_MAX_LINKS`): the NVLink methods
/// take a link index below it (`for link in 0..NVLINK_MAX_LINKS`), a `u32` as they do.
#[doc(alias = "NVML_NVLINK_MAX_LINKS")]
pub const NVLINK_MAX_LINKS: u32 = nvml_sys::NVML_NVLINK_MAX_LINKS as u32;

impl EventTypes {
    /// nvml-wrapper's name of [`EventTypes::XID_CRITICAL_ERROR`], so that a port meets a hint
    /// and not only an unknown name.
    #[deprecated(note = "nvml-wrapper's spelling: the bit is `EventTypes::XID_CRITICAL_ERROR`")]
    pub const CRITICAL_XID_ERROR: EventTypes = EventTypes::XID_CRITICAL_ERROR;
}
pub use value::Value;

/// The README's examples, compiled as doc tests so that they stay right.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
