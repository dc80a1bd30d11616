//! System event sets (created and used through request records), the cursor over CPER records
//! (`Nvml::cper_next` is generated), the driver branch (a record sized by a string length), and the parts of
//! a CUDA driver version (function-like macros of the header).

use nvml_sys as sys;

use crate::ffi;
use crate::raw::FromRaw;
use crate::{Error, Nvml, SystemEventData, SystemEventSet, SystemEventTypes};

/// The major number of a CUDA driver version as [`Nvml::cuda_driver_version`] answers it
/// (`13000` is 13.0): nvml.h's `NVML_CUDA_DRIVER_VERSION_MAJOR`.
#[doc(alias = "NVML_CUDA_DRIVER_VERSION_MAJOR")]
pub fn cuda_driver_version_major(version: i32) -> i32 {
    version / 1000
}

/// The minor number of a CUDA driver version as [`Nvml::cuda_driver_version`] answers it
/// (`12020` is 12.2): nvml.h's `NVML_CUDA_DRIVER_VERSION_MINOR`.
#[doc(alias = "NVML_CUDA_DRIVER_VERSION_MINOR")]
pub fn cuda_driver_version_minor(version: i32) -> i32 {
    version % 1000 / 10
}

impl Nvml {
    /// The driver branch, e.g. `r580_00`.
    ///
    /// Calls `nvmlSystemGetDriverBranch` (its `length` is the capacity of the record's
    /// string, not a count of records).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlSystemGetDriverBranch` (a driver older than the function)
    #[doc(alias = "nvmlSystemGetDriverBranch")]
    pub fn driver_branch(&self) -> Result<String, Error> {
        let sym = self.lib().nvmlSystemGetDriverBranch()?;
        let mut r =
            sys::nvmlSystemDriverBranchInfo_t { version: sys::nvmlSystemDriverBranchInfo_v1, ..Default::default() };
        let capacity = r.branch.len() as std::ffi::c_uint;
        ffi::check(call!(sym(&mut r, capacity)))?;
        Ok(ffi::string_from(&r.branch))
    }

    /// A new system event set, for GPU driver bind/unbind events. It is freed when dropped;
    /// [`SystemEventSet::free`] returns the library's answer instead.
    ///
    /// Calls `nvmlSystemEventSetCreate`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::ArgumentVersionMismatch`] for unsupported version
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlSystemEventSetCreate` (a driver older than the function)
    #[doc(alias = "nvmlSystemEventSetCreate")]
    pub fn system_event_set_create(&self) -> Result<SystemEventSet<'_>, Error> {
        let sym = self.lib().nvmlSystemEventSetCreate()?;
        let mut r = sys::nvmlSystemEventSetCreateRequest_t {
            version: sys::nvmlSystemEventSetCreateRequest_v1,
            set: std::ptr::null_mut(),
        };
        ffi::check(call!(sym(&mut r)))?;
        if r.set.is_null() {
            return Err(Error::Unknown(sys::NVML_ERROR_UNKNOWN));
        }
        Ok(SystemEventSet::wrap(r.set, self.nref()))
    }
}

/// Where an iteration over CPER records stands ([`Nvml::cper_next`]).
#[derive(Clone, Copy)]
pub struct CperCursor {
    raw: sys::nvmlCPERCursor_v1_t,
}

impl CperCursor {
    /// A cursor at the first record of the types in `type_mask` (a mask of
    /// `nvmlCPERType_t` values), of the GPU with `uuid` or of every source (`None`).
    pub fn new(type_mask: u32, uuid: Option<&str>) -> CperCursor {
        let mut raw = sys::nvmlCPERCursor_v1_t {
            cperTypeMask: type_mask,
            handle: sys::NVML_CPER_CURSOR_HANDLE_INIT,
            ..Default::default()
        };
        ffi::set_string(&mut raw.uuid, uuid.unwrap_or(""));
        CperCursor { raw }
    }

    /// Starts the iteration again.
    pub fn rewind(&mut self) {
        self.raw.handle = sys::NVML_CPER_CURSOR_HANDLE_INIT;
    }
}

/// A new cursor at the first record of every type and source.
impl Default for CperCursor {
    fn default() -> Self {
        CperCursor::new(0, None)
    }
}

/// The cursor as [`Nvml::cper_next`] sends it.
impl crate::raw::ToRaw<sys::nvmlCPERCursor_v1_t> for CperCursor {
    fn to_raw(&self) -> sys::nvmlCPERCursor_v1_t {
        self.raw
    }
}

/// The cursor as the library moved it.
impl crate::raw::FromRaw<sys::nvmlCPERCursor_v1_t> for CperCursor {
    fn from_raw(raw: &sys::nvmlCPERCursor_v1_t) -> Self {
        CperCursor { raw: *raw }
    }
}

impl std::fmt::Debug for CperCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CperCursor")
            .field("type_mask", &self.raw.cperTypeMask)
            .field("uuid", &ffi::string_from(&self.raw.uuid))
            .field("handle", &self.raw.handle)
            .finish()
    }
}

impl SystemEventSet<'_> {
    /// Records the events of `types` in this set.
    ///
    /// Calls `nvmlSystemRegisterEvents`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::ArgumentVersionMismatch`] for unsupported version
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlSystemRegisterEvents` (a driver older than the function)
    #[doc(alias = "nvmlSystemRegisterEvents")]
    pub fn register(&self, types: SystemEventTypes) -> Result<(), Error> {
        let sym = self.nvml.lib().nvmlSystemRegisterEvents()?;
        let mut r = sys::nvmlSystemRegisterEventRequest_t {
            version: sys::nvmlSystemRegisterEventRequest_v1,
            eventTypes: types.bits() as _,
            set: self.raw,
        };
        ffi::check(call!(sym(&mut r)))
    }

    /// Waits up to `timeout_ms` (0: do not wait) for events and returns at most `max_events`
    /// of them; none within the timeout is [`Error::Timeout`].
    ///
    /// Calls `nvmlSystemEventSetWait`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::ArgumentVersionMismatch`] for unsupported version
    /// - [`Error::Timeout`] if no event notification after timeoutms
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlSystemEventSetWait` (a driver older than the function)
    #[doc(alias = "nvmlSystemEventSetWait")]
    pub fn wait(&self, timeout_ms: u32, max_events: u32) -> Result<Vec<SystemEventData>, Error> {
        let sym = self.nvml.lib().nvmlSystemEventSetWait()?;
        let mut data = vec![sys::nvmlSystemEventData_v1_t::default(); ffi::checked_len(max_events as usize)?];
        let mut r = sys::nvmlSystemEventSetWaitRequest_t {
            version: sys::nvmlSystemEventSetWaitRequest_v1,
            timeoutms: timeout_ms,
            set: self.raw,
            data: data.as_mut_ptr(),
            dataSize: max_events,
            numEvent: 0,
        };
        ffi::check(call!(sym(&mut r)))?;
        data.truncate(r.numEvent as usize);
        Ok(data.iter().map(SystemEventData::from_raw).collect())
    }

    /// Frees the set now and returns the library's answer (dropping it frees it too, without
    /// one).
    ///
    /// Calls `nvmlSystemEventSetFree`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::ArgumentVersionMismatch`] for unsupported version
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlSystemEventSetFree` (a driver older than the function)
    #[doc(alias = "nvmlSystemEventSetFree")]
    pub fn free(mut self) -> Result<(), Error> {
        let raw = self.release_raw();
        ffi::check(Self::free_raw(self.nvml.lib(), raw))
    }

    /// Frees `raw` with `nvmlSystemEventSetFree`, which takes a request record (for `Drop`).
    pub(crate) fn free_raw(lib: &sys::NvmlLib, raw: sys::nvmlSystemEventSet_t) -> sys::nvmlReturn_t {
        let Ok(sym) = lib.nvmlSystemEventSetFree() else { return sys::NVML_ERROR_FUNCTION_NOT_FOUND };
        let mut r = sys::nvmlSystemEventSetFreeRequest_t { version: sys::nvmlSystemEventSetFreeRequest_v1, set: raw };
        call!(sym(&mut r))
    }
}
