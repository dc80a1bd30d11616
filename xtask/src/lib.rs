//! The NVML binding generator behind `cargo xtask`: a pipeline of stages over plain data
//! (`nvml.h` → [`clang`] → [`model`] → [`rules`] → [`plan`] → [`emit`]), strung together once in
//! [`pipeline`], with the commands on top.
//!
//! # Layers
//!
//! Bottom to top; a module refers only to modules of lower layers (`xtask/tests/house.rs` checks
//! it, and reads this list):
//!
//! 1. [`diag`], [`model`], [`workspace`]: diagnostics, the plain-data model of a header, the
//!    workspace's paths.
//! 2. [`fetch`]: what is fetched with pip (headers, libclang) into the cache, and the vendored
//!    headers.
//! 3. [`clang`], [`history`]: `nvml.h` parsed into the model; the function history
//!    (`gen-config/function-history.yaml`) that the mock's emitter reads.
//! 4. [`rules`]: `gen-config/nvml.yaml` applied to the model.
//! 5. [`plan`]: how every function is wrapped.
//! 6. [`emit`]: the generated crates' files, formatted.
//! 7. [`pipeline`]: the stages in order, written once.
//! 8. [`coverage`], [`diff`]: reports on what the pipeline produced (coverage, header-diff).
//! 9. [`commands`]: one module per `cargo xtask` subcommand.

pub mod clang;
pub mod commands;
pub mod coverage;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod fetch;
pub mod history;
pub mod model;
pub mod pipeline;
pub mod plan;
pub mod rules;
pub mod workspace;
