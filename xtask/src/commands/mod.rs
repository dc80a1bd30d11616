//! One module per `cargo xtask` subcommand: each reads its inputs, runs the pipeline as far
//! as it needs, and writes or prints the result.

pub mod api;
pub mod bench;
pub mod bundle;
pub mod coverage;
pub mod dist;
pub mod fuzz;
pub mod header_diff;
pub mod history;
pub mod mock_lib;
pub mod model;
pub mod regen;
pub mod release;
pub mod update_header;
pub mod wheel;
