//! The generated files of the `basic` fixture, mounted where nvml-sys keeps its own.

#[path = "../../../fixtures/basic/expected/sys/consts.rs"]
pub mod consts;
#[path = "../../../fixtures/basic/expected/sys/functions.rs"]
pub mod functions;
#[path = "../../../fixtures/basic/expected/sys/layout.rs"]
mod layout;
#[path = "../../../fixtures/basic/expected/sys/types.rs"]
pub mod types;
