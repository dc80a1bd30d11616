//! The goldens of `tests/fixtures/basic`, in nvml-sys's module layout.

#[macro_use]
#[path = "../../../crates/nvml-sys/src/macros.rs"]
mod macros;
#[path = "../../../crates/nvml-sys/src/loader.rs"]
pub mod loader;
#[rustfmt::skip] // the generator's goldens, laid out by prettyplease
pub mod generated;

pub use generated::{consts::*, functions::*, types::*};
pub use loader::{MissingSymbol, NvmlLib};
