//! A mock `libnvidia-ml.so`: every function of `nvml.h`, backed by YAML GPU profiles, so any
//! NVML client runs without a GPU.
//!
//! - `generated/exports.rs` exports every symbol of the header (legacy names included) with its
//!   exact C signature; `generated/api.rs` is the trait those exports call, whose default
//!   methods answer `NVML_ERROR_NOT_SUPPORTED`; `generated/history.rs` is the driver branch
//!   that introduced each function newer than the oldest published header.
//! - `engine/` is the hand-written behaviour: init/shutdown reference counting, handles,
//!   NVML's buffer protocols, fault injection, older-driver emulation, events.
//! - The hostile mode (`NVML_MOCK_HOSTILE=<seed>`) answers every function like a lying driver
//!   instead: random codes, counts and bytes, never written beyond what the caller passed
//!   (`engine/hostile.rs`; `generated/hostile.rs` fills each function's outputs from its reading).
//! - `profile.rs` loads a profile: `NVML_MOCK_PROFILE` names a built-in (`a100`, `a100-r525`,
//!   `h100`, `b200`, `gb200`, `l40s`, `t4`; default `h100`) or a YAML file.
//! - [`testing`] helps tests of NVML clients: the path of the built mock, and a test run in a
//!   child process with its own environment (the mock's state is per process).
//!
//! Environment: `NVML_MOCK_PROFILE`, `NVML_MOCK_FAULTS` (e.g.
//! `nvmlDeviceGetName=NVML_ERROR_GPU_IS_LOST,nvmlDeviceGetPowerUsage=NVML_ERROR_UNKNOWN@3`),
//! `NVML_MOCK_STRICT=1` (print every call of an unimplemented function on stderr),
//! `NVML_MOCK_HOSTILE=<seed>` (the hostile mode).

// Trait methods and exports carry the C names of the functions they implement.
#![allow(non_snake_case)]

mod engine;
mod profile;
pub mod testing;

mod generated {
    pub mod api;
    pub mod exports;
    pub mod history;
    pub mod hostile;
    pub mod names;
}
