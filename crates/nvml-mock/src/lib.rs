//! A mock `libnvidia-ml.so`: every function of `nvml.h`, backed by YAML GPU profiles, so any
//! NVML client runs without a GPU.
//!
//! The modules, bottom to top (the `# Layers` list below is the same order, as the workspace's
//! house check reads it):
//!
//! - `ffi` (reading and writing through the caller's pointers with NVML's protocols; every
//!   `unsafe` block), `schema` (the types of the function tables), `generated/names.rs` and
//!   `generated/history.rs` (the header's constants and functions, and the driver branch that
//!   introduced each function newer than the oldest published header);
//! - `generated/tables/`: the schema of the functions answered from a profile's values, the
//!   functions that need privilege or an architecture, and those written by hand
//!   (`gen-config/mock.yaml`); `driver`: driver versions, the branches the history knows, and
//!   whether a driver has a function (the one place that decides it); `private`: the runtime
//!   directory, session files and outputs, which no other user can plant or read;
//! - `answer`: a profile's function values checked against those tables, and the `Answer`
//!   interface the generated answers read them through;
//! - `profile`: loads a profile (and the bases it starts from); `reading`: how a capture reads
//!   a function's outputs back into values. `NVML_MOCK_PROFILE` names a
//!   built-in (`a100`, `a100-r525`, `b200`, `b200-r575`, `b200-r580.65`, `gb200`, `h100`,
//!   `h100-r560`, `l40s`, `l40s-vgpu`, `t4`; default `h100`) or a YAML file;
//! - `generated/answers/`: every getter whose outputs are values, records, strings or lists,
//!   and that is not written by hand, answers from the profile's values; `generated/capture/`:
//!   the reader of each such getter, which calls a driver and turns its outputs into values;
//! - `generated/api/`: the `Api` trait, one trait per area of the header with one method per
//!   function; a getter of `answers/` answers by default, every other function
//!   `NVML_ERROR_NOT_SUPPORTED`;
//! - `engine/`: the hand-written behaviour, one module per area of the header: init/shutdown
//!   reference counting, the profile resolved at init into tables indexed by function id
//!   (`engine/resolve.rs`), the changes of `nvml-mock ctl` taken in (`engine/ctl.rs`), handles,
//!   fault injection, older-driver emulation, the MIG tree,
//!   processes and samples, field values, events, GPM; and the hostile mode
//!   (`NVML_MOCK_HOSTILE=<seed>`, `engine/hostile.rs`), which answers every function like a
//!   lying driver instead: random codes, counts and bytes, never written beyond what the
//!   caller passed;
//! - `generated/dispatch/` (the engine's impls of the areas' traits: each hand-written function
//!   calls its engine module), `generated/hostile/` (the hostile mode's impls: each function's outputs filled
//!   from its reading) and `generated/exports/` (every symbol of the header, legacy names
//!   included, with its exact C signature, handing each call with the handle it is for to
//!   the engine); `answers_doc` (the README's table of the answers that are not values);
//! - `allocations`: the GPU memory processes hold through the CUDA mock (in a session, in its
//!   files), which NVML counts as used memory and lists among the compute processes;
//! - `cuda`: the CUDA driver API (`libcuda.so.1`, the package `nvmlkit-cuda-mock`, is an ELF
//!   filter of this library): the GPUs read through the NVML exports, `CUDA_VISIBLE_DEVICES`,
//!   attributes, contexts and memory; `generated/cuda/` holds `cuda.h`'s names, types and every
//!   function's export (`gen-config/cuda.yaml` lists those the engine writes by hand);
//! - [`driver_lib`]: a `libnvidia-ml.so.1` that exports exactly one driver's functions, each
//!   forwarded to the mock beside it, and tells the mock its driver (`cargo xtask mock-lib`,
//!   through `nvml-mock lib`, `src/bin/`);
//! - [`capture`]: `nvml-mock capture` records the GPUs a driver shows into a profile (never
//!   calling a function that changes anything), then replays it through the mock and records
//!   by name whatever the replay answers differently;
//! - [`testing`] helps tests of NVML clients: the path of the built mock, and a test run in a
//!   child process with its own environment (the mock's state is per process).
//!
//! Environment: `NVML_MOCK_PROFILE`, `NVML_MOCK_FAULTS` (e.g.
//! `nvmlDeviceGetName=NVML_ERROR_GPU_IS_LOST,nvmlDeviceGetPowerUsage=NVML_ERROR_UNKNOWN@3`),
//! `NVML_MOCK_LIVE_PIDS` (`1`: the profile's processes take live pids), `NVML_MOCK_CLOCK=<µs>`
//! (the clock stands still at that moment), `NVML_MOCK_STRICT=1`
//! (print every answer `NOT_SUPPORTED` without a reason on stderr),
//! `NVML_MOCK_HOSTILE=<seed>` (the hostile mode), `NVML_MOCK_LOG` (`1` or `stderr`, or a file:
//! a line per call, `engine/log.rs`), `NVML_MOCK_SESSION=<name>` (join a session that
//! `nvml-mock ctl` changes while clients run, [`session`]; `NVML_MOCK_RUNTIME_DIR`: where
//! sessions live).
//!
//! # Layers
//!
//! For whoever works on the crate: its modules bottom to top; a module refers only to modules
//! of lower layers (`xtask/tests/house.rs` in the repository checks it, and reads this list).
//!
//! 1. `ffi`, `schema`, `packed`, `bases`, `generated::names`, `generated::history`, `generated::cuda`:
//!    NVML's buffer protocols over raw pointers, the types of the function tables, a YAML tree
//!    in the binary form `build.rs` packs the built-in profiles in, a profile's tree with its
//!    bases merged in (`build.rs` merges the built-ins so), the header's names and the
//!    branch that introduced each function; `cuda.h`'s names and types (its exports are a
//!    layer of their own, below).
//! 2. `generated::tables`, `driver`, `private`: the functions answered from a profile's values,
//!    and those written by hand; the functions each driver version has; files and directories
//!    only their owner can use.
//! 3. `answer`: a profile's function values checked against the tables, and the `Answer`
//!    interface.
//! 4. `profile`, `reading`: a profile loaded (with its bases) and checked; how a capture reads
//!    a function's outputs back into a profile's values.
//! 5. `generated::answers`, `generated::capture`, `session`: the getters that answer from the
//!    profile's values, and the readers that record them from a driver; the shared state of
//!    the sessions of `nvml-mock ctl`, the GPUs' MIG trees among it (`session::mig`).
//! 6. `allocations`: the GPU memory processes hold through the CUDA mock, in a session's
//!    files.
//! 7. `generated::api`: the `Api` trait.
//! 8. `engine`: the hand-written behaviour.
//! 9. `generated::{dispatch, exports, hostile}`, `answers_doc`: the engine's `Api`, the exported
//!    symbols, the hostile mode's answers, and the README's table of each profile's answers.
//! 10. `cuda`: the CUDA driver API's behaviour, which reads the GPUs through the exports of
//!     NVML.
//! 11. `generated::cuda::exports`: every function of `cuda.h`, handed to `cuda`.
//! 12. `driver_lib`: a library of one driver's symbols, forwarded to the mock.
//! 13. `capture`: records a driver's GPUs into a profile and checks its replay.
//! 14. `testing`, `fuzzing`: helpers for tests of NVML clients; the parsers the workspace's fuzz
//!     targets drive (the `fuzzing` feature).
//! 15. `bin`: the `nvml-mock` program (`capture`, `ctl`, `lib`; `cargo xtask mock-lib` runs
//!     `lib`).

// Trait methods and exports carry the C names of the functions they implement.
#![allow(non_snake_case)]

mod allocations;
mod answer;
mod answers_doc;
mod bases;
pub mod capture;
mod cuda;
mod driver;
pub mod driver_lib;
mod engine;
mod ffi;
mod packed;
pub mod private;
mod profile;
mod reading;
mod schema;
pub mod session;
pub mod testing;

/// The parsers the workspace's fuzz targets drive; not part of the API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

#[rustfmt::skip] // written by the generator (prettyplease)
mod generated {
    pub mod answers;
    pub mod api;
    pub mod capture;
    pub mod cuda;
    pub mod dispatch;
    pub mod exports;
    pub mod history;
    pub mod hostile;
    pub mod names;
    pub mod tables;
}
