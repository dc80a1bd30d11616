//! The generated files of the `basic` fixture, mounted where nvml-sys keeps its own.

#[path = "../../../fixtures/basic/expected/consts.rs"]
pub mod consts;
#[path = "../../../fixtures/basic/expected/functions.rs"]
pub mod functions;
#[path = "../../../fixtures/basic/expected/layout.rs"]
mod layout;
#[path = "../../../fixtures/basic/expected/types.rs"]
pub mod types;
