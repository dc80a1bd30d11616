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
    /// - [`Error::NoPermission`] if the user doesn't have permission to perform this operation
    /// - [`Error::InvalidArgument`] if the device is invalid
    /// - [`Error::GpuIsLost`] if the target GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::NotSupported`] if this query is not supported by the device
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
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device is invalid
    /// - [`Error::NotSupported`] if the device does not support this feature
    /// - [`Error::NotFound`] if sample entries are not found
    /// - [`Error::GpuIsLost`] if the target GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::InsufficientSize`] if the list keeps growing while it is fetched
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
