//! Code written against nvmlkit 0.1.0 still builds: the crate's examples and its README's
//! programs as they stood at the 0.1.0 entry's commit (`4c8bc9f`, copied unchanged under
//! `tests/v0_1/`; the crate had no PORTING.md then), and a use of each 0.1.0 signature that
//! has changed since (`tests/v0_1/signatures.rs`), compiled here as modules. A signature that
//! could not be kept is listed as a break in CHANGELOG.md instead (and left out there).
//!
//! Deprecation is allowed, since CI denies warnings: every other warning is an error here, so
//! this builds with deprecation warnings only. `cargo build -p nvmlkit --tests` with the
//! `allow` removed lists them.

#![deny(warnings)]
#![allow(deprecated)]
// The programs' `main`s are not called: building them is the test.
#![allow(dead_code)]
// Clippy's advice on the programs as they were is beside the point.
#![allow(clippy::all)]

#[path = "v0_1/bench/main.rs"]
mod bench;
#[path = "v0_1/readme_migration.rs"]
mod readme_migration;
#[path = "v0_1/readme_quick_start.rs"]
mod readme_quick_start;
#[path = "v0_1/smi.rs"]
mod smi;
#[path = "v0_1/uuids.rs"]
mod uuids;
