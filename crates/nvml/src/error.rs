//! `Error`'s behaviour; its variants are generated (`generated/error.rs`), a variant per
//! `nvmlReturn_t` value of the header. `nvmlErrorString` is reached through `Display`.

use std::fmt;

use nvml_sys::MissingSymbol;

pub use crate::generated::error::Error;

impl fmt::Display for Error {
    /// `nvmlErrorString` of the loaded library when one is alive, else nvml.h's description;
    /// a missing library or symbol says what was tried.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LibraryNotFound(Some(e)) => return write!(f, "{e}"),
            Error::Implausible(what) => return write!(f, "an implausible answer from the library: {what}"),
            Error::FieldNotInDriver(id) => {
                return write!(
                    f,
                    "the running driver's nvml.h has no field id {id} of this crate (a driver older than the field?)"
                )
            }
            Error::FunctionNotFound(Some(symbol)) => {
                return write!(
                    f,
                    "the loaded NVML library does not export `{symbol}` (a driver older than this function?)"
                )
            }
            _ => {}
        }
        match crate::nvml::current_error_string(self.code()) {
            Some(s) => write!(f, "{s} (NVML error {})", self.code()),
            None => write!(f, "{} (NVML error {})", self.description(), self.code()),
        }
    }
}

impl std::error::Error for Error {}

impl From<MissingSymbol> for Error {
    fn from(m: MissingSymbol) -> Error {
        Error::FunctionNotFound(Some(m.symbol()))
    }
}
