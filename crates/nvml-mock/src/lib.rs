//! A mock `libnvidia-ml.so`: every function of `nvml.h`, backed by YAML GPU profiles, so any
//! NVML client runs without a GPU.
//!
//! - `generated/exports.rs` exports every symbol of the header (legacy names included) with its
//!   exact C signature and hands each call, with the handle it is for, to the engine;
//!   `generated/api.rs` is the trait those exports call: a getter whose outputs are values,
//!   records, strings or lists answers from the profile's values (`generated/answers.rs`),
//!   every other function `NVML_ERROR_NOT_SUPPORTED` unless the engine implements it;
//!   `generated/history.rs` is the driver branch that introduced each function newer than the
//!   oldest published header.
//! - `engine/` is the hand-written behaviour, one module per area of the header: init/shutdown
//!   reference counting, handles, NVML's buffer protocols, fault injection, older-driver
//!   emulation, the MIG tree, processes and samples, field values, events, GPM.
//! - The hostile mode (`NVML_MOCK_HOSTILE=<seed>`) answers every function like a lying driver
//!   instead: random codes, counts and bytes, never written beyond what the caller passed
//!   (`engine/hostile.rs`; `generated/hostile.rs` fills each function's outputs from its reading).
//! - `profile.rs` loads a profile (and the bases it starts from); `answer.rs` checks its
//!   function values against the header's types. `NVML_MOCK_PROFILE` names a built-in (`a100`,
//!   `a100-r525`, `b200`, `gb200`, `h100`, `l40s`, `l40s-vgpu`, `t4`; default `h100`) or a YAML
//!   file.
//! - [`testing`] helps tests of NVML clients: the path of the built mock, and a test run in a
//!   child process with its own environment (the mock's state is per process).
//!
//! Environment: `NVML_MOCK_PROFILE`, `NVML_MOCK_FAULTS` (e.g.
//! `nvmlDeviceGetName=NVML_ERROR_GPU_IS_LOST,nvmlDeviceGetPowerUsage=NVML_ERROR_UNKNOWN@3`),
//! `NVML_MOCK_LIVE_PIDS` (`1`: the profile's processes take live pids), `NVML_MOCK_CLOCK=<µs>`
//! (the clock stands still at that moment), `NVML_MOCK_STRICT=1`
//! (print every answer `NOT_SUPPORTED` without a reason on stderr),
//! `NVML_MOCK_HOSTILE=<seed>` (the hostile mode).
//!
//! # Layers
//!
//! For whoever works on the crate: its modules bottom to top; a module refers only to modules
//! of lower layers (`xtask/tests/house.rs` in the repository checks it, and reads this list).
//!
//! 1. `engine::ffi`, `generated::names`, `generated::history`: NVML's buffer protocols over raw
//!    pointers; the header's names and the branch that introduced each function.
//! 2. `answer`: the schema of the values a profile gives a function, and the values.
//! 3. `profile`: a profile loaded (with its bases) and checked.
//! 4. `generated::{api, answers}`: the `Api` trait, whose default methods answer from the
//!    profile's values or `NOT_SUPPORTED`, and the functions that answer them.
//! 5. `engine`: the hand-written behaviour.
//! 6. `generated::{exports, hostile}`: the exported symbols and the hostile mode's answers.
//! 7. `answers_doc`: the README's table of each profile's answers.
//! 8. `testing`: helpers for tests of NVML clients.

// Trait methods and exports carry the C names of the functions they implement.
#![allow(non_snake_case)]

mod answer;
mod answers_doc;
mod engine;
mod profile;
pub mod testing;

#[rustfmt::skip] // written by the generator (prettyplease)
mod generated {
    pub mod answers;
    pub mod api;
    pub mod exports;
    pub mod history;
    pub mod hostile;
    pub mod names;
}
