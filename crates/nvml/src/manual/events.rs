//! The raw context payload of the most recent event of an event set.

use std::ffi::{c_uchar, c_void};

use nvml_sys as sys;

use crate::ffi;
use crate::{Error, EventSet};

impl EventSet<'_> {
    /// The raw payload of context record `index` of the event that
    /// [`EventSet::wait_v3`] returned last (see `context_count` and `context_info` for
    /// how many there are and how to read them).
    ///
    /// Calls `nvmlEventSetGetContextData_v1` (size query, then fill).
    pub fn context_data(&self, index: u32) -> Result<Vec<u8>, Error> {
        let sym = self.nvml.lib().nvmlEventSetGetContextData_v1()?;
        ffi::fill_in_record(
            |size, ptr: *mut c_uchar| sys::nvmlEventSetGetContextData_v1_t {
                data: ptr as *mut c_void,
                index,
                dataSize: size,
            },
            |r| r.dataSize,
            |r| call!(sym(self.raw, r)),
        )
    }
}
