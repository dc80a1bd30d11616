//! Process lists whose array sits inside a versioned record.

use nvml_sys as sys;

use crate::ffi;
use crate::raw::FromRaw;
use crate::{Device, Error, ProcessDetail, ProcessMode, ProcessUtilizationInfo};

impl Device<'_> {
    /// The processes running on the device in `mode` (compute, graphics, MPS or all), with
    /// their memory use, MIG instance ids (`0xFFFFFFFF` without MIG) and confidential-compute
    /// protected memory.
    ///
    /// Calls `nvmlDeviceGetRunningProcessDetailList` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InsufficientSize`] if `plist`->numprocArrayEntries indicates that the `plist`->procArray is too small `plist`->numprocArrayEntries will contain minimal amount of space necessary for the call to complete
    /// - [`Error::NoPermission`] if the user doesn't have permission to perform this operation
    /// - [`Error::InvalidArgument`] if `device` is invalid, `plist` is NULL, `plist`->version is invalid, `plist`->mode is invalid,
    /// - [`Error::GpuIsLost`] if the target GPU has fallen off the bus or is otherwise inaccessible
    /// - [`Error::NotSupported`] if this query is not supported by `device`
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetRunningProcessDetailList` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetRunningProcessDetailList")]
    pub fn running_process_detail_list(&self, mode: ProcessMode) -> Result<Vec<ProcessDetail>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetRunningProcessDetailList()?;
        let list: Vec<sys::nvmlProcessDetail_v1_t> = ffi::fill_in_record(
            |count, ptr| sys::nvmlProcessDetailList_t {
                version: sys::nvmlProcessDetailList_v1,
                mode: mode.0,
                numProcArrayEntries: count,
                procArray: ptr,
            },
            |r| r.numProcArrayEntries,
            |r| call!(sym(self.raw, r)),
        )?;
        Ok(list.iter().map(ProcessDetail::from_raw).collect())
    }

    /// Per-process utilisation (SM, memory, encoder, decoder, JPEG, OFA) from the samples
    /// newer than `last_seen_time_stamp` (CPU microseconds; 0 for every sample the driver
    /// keeps).
    ///
    /// Calls `nvmlDeviceGetProcessesUtilizationInfo` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] If the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] If `device` is invalid, or `procesesUtilInfo` is NULL
    /// - [`Error::NotSupported`] If the device does not support this feature
    /// - [`Error::NotFound`] If sample entries are not found
    /// - [`Error::GpuIsLost`] If the target GPU has fallen off the bus or is otherwise inaccessible
    /// - [`Error::ArgumentVersionMismatch`] If the version of `procesesUtilInfo` is invalid
    /// - [`Error::InsufficientSize`] If `procesesUtilInfo`->procUtilArray is NULL, or the buffer size of procesesUtilInfo->procUtilArray is too small. The caller should check the minimul array size from the returned procesesUtilInfo->processSamplesCount, and call the function again with a buffer no smaller than procesesUtilInfo->processSamplesCount * sizeof(nvmlProcessUtilizationInfo_t)
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetProcessesUtilizationInfo` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetProcessesUtilizationInfo")]
    pub fn processes_utilization_info(&self, last_seen_time_stamp: u64) -> Result<Vec<ProcessUtilizationInfo>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetProcessesUtilizationInfo()?;
        let list: Vec<sys::nvmlProcessUtilizationInfo_v1_t> = ffi::fill_in_record(
            |count, ptr| sys::nvmlProcessesUtilizationInfo_t {
                version: sys::nvmlProcessesUtilizationInfo_v1,
                processSamplesCount: count,
                lastSeenTimeStamp: last_seen_time_stamp,
                procUtilArray: ptr,
            },
            |r| r.processSamplesCount,
            |r| call!(sym(self.raw, r)),
        )?;
        Ok(list.iter().map(ProcessUtilizationInfo::from_raw).collect())
    }
}
