//! The raw context payload of the most recent event of an event set, and registering every
//! event a device supports.

use std::ffi::{c_uchar, c_void};

use nvml_sys as sys;

use crate::ffi;
use crate::{Device, Error, EventData, EventSet, EventTypes};

impl Device<'_> {
    /// Registers in `set` every event type the device supports, and returns them: the mask
    /// `nvmlDeviceGetSupportedEventTypes` reports, with the bits this crate does not name (a
    /// newer driver's) kept. This is "all events" on any driver, where
    /// [`EventTypes::ALL`] is the newest header's `nvmlEventTypeAll` (65439), whose bits an
    /// older driver does not know: its `nvmlEventTypeAll` was 415 up to R555 and 16287 on
    /// R560, and registering a bit a driver does not support fails.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device or `set` is invalid
    /// - [`Error::NotSupported`] if the platform does not support events
    /// - [`Error::GpuIsLost`] if the GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no
    ///   `nvmlDeviceGetSupportedEventTypes` or `nvmlDeviceRegisterEvents`
    #[doc(alias = "nvmlDeviceGetSupportedEventTypes")]
    #[doc(alias = "nvmlDeviceRegisterEvents")]
    pub fn register_supported_events(&self, set: &EventSet<'_>) -> Result<EventTypes, Error> {
        let supported = self.supported_event_types()?;
        self.register_events(supported, set)?;
        Ok(supported)
    }
}

impl<'n> EventSet<'n> {
    /// The device `event` (an answer of [`EventSet::wait`]) happened on, as a handle of the
    /// library this set belongs to.
    pub fn device_of(&self, event: &EventData) -> Device<'n> {
        Device::wrap(event.device.as_ptr(), self.nvml.clone())
    }

    /// The raw payload of context record `index` of the event that
    /// [`EventSet::wait_structured`] returned last (see `context_count` and `context_info` for
    /// how many there are and how to read them).
    ///
    /// Calls `nvmlEventSetGetContextData_v1` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if arguments are invalid
    /// - [`Error::NotFound`] if no event has been returned by `nvmlEventSetWait_v3`
    /// - [`Error::InsufficientSize`] if the payload keeps growing while it is fetched
    /// - [`Error::NotSupported`] if this API is not available on the platform, or driver
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlEventSetGetContextData_v1` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlEventSetGetContextData_v1")]
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
