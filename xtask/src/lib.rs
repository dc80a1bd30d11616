//! The NVML binding generator behind `cargo xtask`.
//!
//! The house, bottom to top (each layer uses only the ones below it):
//! - [`diag`], [`workspace`] and [`fetch`]: diagnostics, paths, and what is fetched with pip
//!   (headers, libclang) into the cache.
//! - The stages: [`clang`] parses `nvml.h` into the plain-data [`model`]; [`rules`] applies
//!   `gen-config/nvml.yaml`; [`plan`] decides how every function is wrapped; [`emit`] writes
//!   formatted Rust. [`history`] is the function history that the mock's emitter reads.
//! - [`pipeline`]: the stages in order, written once.
//! - Reports on the pipeline's output: [`diff`] (header-diff) and [`coverage`].
//! - [`commands`]: one module per `cargo xtask` subcommand.

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
