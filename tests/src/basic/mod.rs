//! The goldens of `tests/fixtures/basic`, in nvml-sys's module layout.

#[macro_use]
#[path = "../../../crates/nvml-sys/src/macros.rs"]
mod macros;
#[path = "../../../crates/nvml-sys/src/loader.rs"]
pub mod loader;
// The generator's goldens, laid out by prettyplease, mounted where nvml-sys keeps its own.
#[rustfmt::skip]
#[path = "../../fixtures/basic/expected/sys/mod.rs"]
pub mod generated;

pub use generated::*;
pub use loader::{MissingSymbol, NvmlLib};
