//! The engine as the generated `Api` trait: the functions written by hand, listed once by
//! area (the macro below implements them and names them in [`HAND_WRITTEN`]), and the answers
//! from the profile's values that every other getter reads through [`Api::answer`].

use core::ffi::*;

use nvml_sys::*;

use super::{device, ecc, events, fields, gpm, mig, nvlink, perf, processes, system, vgpu, Engine};
use crate::answer::{Entry, Object, Val};
use crate::generated::api::{delegate, Api};

/// The functions the engine implements by hand, by the module that does. `$then` receives
/// the list: `delegate` implements the `Api` methods, `names` lists them.
macro_rules! hand_written {
    ($then:ident) => {
        $then! {
            // Initialisation, errors, system.
            system::nvmlInit, system::nvmlInit_v2, system::nvmlInitWithFlags, system::nvmlShutdown, system::nvmlErrorString,
            system::nvmlSystemGetDriverVersion, system::nvmlSystemGetNVMLVersion, system::nvmlSystemGetDriverBranch,
            system::nvmlSystemGetCudaDriverVersion, system::nvmlSystemGetCudaDriverVersion_v2, system::nvmlSystemGetProcessName,
            system::nvmlSystemGetCPER_v1, system::nvmlSystemGetTopologyGpuSet, system::nvmlSystemGetHicVersion,
            system::nvmlUnitGetCount, system::nvmlUnitGetHandleByIndex, system::nvmlUnitGetDevices,
            // Enumeration, identity, PCI, topology.
            device::nvmlDeviceGetCount, device::nvmlDeviceGetCount_v2, device::nvmlDeviceGetHandleByIndex,
            device::nvmlDeviceGetHandleByIndex_v2, device::nvmlDeviceGetHandleByUUID, device::nvmlDeviceGetHandleByUUIDV,
            device::nvmlDeviceGetHandleBySerial, device::nvmlDeviceGetHandleByPciBusId, device::nvmlDeviceGetHandleByPciBusId_v2,
            device::nvmlDeviceGetIndex, device::nvmlDeviceGetName, device::nvmlDeviceGetUUID, device::nvmlDeviceGetSerial,
            device::nvmlDeviceGetBrand, device::nvmlDeviceValidateInforom, device::nvmlDeviceGetPgpuMetadataString, device::nvmlDeviceGetBoardId, device::nvmlDeviceGetMinorNumber, device::nvmlDeviceGetNumaNodeId,
            device::nvmlDeviceGetPciInfo, device::nvmlDeviceGetPciInfo_v2, device::nvmlDeviceGetPciInfo_v3, device::nvmlDeviceGetPciInfoExt,
            device::nvmlDeviceGetTopologyCommonAncestor, device::nvmlDeviceGetTopologyNearestGpus, device::nvmlDeviceGetP2PStatus,
            device::nvmlDeviceOnSameBoard, device::nvmlDeviceGetCpuAffinity, device::nvmlDeviceGetCpuAffinityWithinScope,
            device::nvmlDeviceGetMemoryAffinity,
            // Memory, clocks, power, thermal, utilisation, modes.
            perf::nvmlDeviceGetMemoryInfo, perf::nvmlDeviceGetMemoryInfo_v2, perf::nvmlDeviceGetBAR1MemoryInfo,
            perf::nvmlDeviceGetMemoryLimits_v1, perf::nvmlDeviceSetMemoryLimits_v1, perf::nvmlDeviceGetClockInfo,
            perf::nvmlDeviceGetMaxClockInfo, perf::nvmlDeviceGetClock, perf::nvmlDeviceGetMaxCustomerBoostClock,
            perf::nvmlDeviceGetApplicationsClock, perf::nvmlDeviceGetDefaultApplicationsClock, perf::nvmlDeviceSetApplicationsClocks,
            perf::nvmlDeviceResetApplicationsClocks, perf::nvmlDeviceGetSupportedMemoryClocks, perf::nvmlDeviceGetSupportedGraphicsClocks,
            perf::nvmlDeviceGetPowerUsage, perf::nvmlDeviceGetPowerManagementLimit, perf::nvmlDeviceGetEnforcedPowerLimit,
            perf::nvmlDeviceGetPowerManagementLimitConstraints, perf::nvmlDeviceSetPowerManagementLimit,
            perf::nvmlDeviceGetTotalEnergyConsumption, perf::nvmlDeviceGetPerformanceState, perf::nvmlDeviceGetPowerState,
            perf::nvmlDeviceGetSupportedPerformanceStates, perf::nvmlDeviceGetMinMaxClockOfPState, perf::nvmlDeviceGetDynamicPstatesInfo,
            perf::nvmlDeviceGetThermalSettings, perf::nvmlDeviceGetTemperature, perf::nvmlDeviceGetTemperatureV,
            perf::nvmlDeviceGetNumFans, perf::nvmlDeviceGetFanSpeed, perf::nvmlDeviceGetFanSpeed_v2, perf::nvmlDeviceGetUtilizationRates,
            perf::nvmlDeviceGetEncoderUtilization, perf::nvmlDeviceGetDecoderUtilization, perf::nvmlDeviceGetSamples,
            perf::nvmlDeviceGetComputeMode, perf::nvmlDeviceSetComputeMode, perf::nvmlDeviceGetPersistenceMode,
            perf::nvmlDeviceSetPersistenceMode,
            // ECC, retired pages, remapped rows.
            ecc::nvmlDeviceGetEccMode, ecc::nvmlDeviceGetTotalEccErrors, ecc::nvmlDeviceGetMemoryErrorCounter,
            ecc::nvmlDeviceGetDetailedEccErrors, ecc::nvmlDeviceGetRetiredPages, ecc::nvmlDeviceGetRetiredPages_v2,
            ecc::nvmlDeviceGetRetiredPagesPendingStatus, ecc::nvmlDeviceGetRemappedRows, ecc::nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts,
            // NVLink.
            nvlink::nvmlDeviceGetNvLinkState, nvlink::nvmlDeviceGetNvLinkVersion, nvlink::nvmlDeviceGetNvLinkRemotePciInfo,
            nvlink::nvmlDeviceGetNvLinkRemotePciInfo_v2,
            // Processes.
            processes::nvmlDeviceGetComputeRunningProcesses, processes::nvmlDeviceGetComputeRunningProcesses_v2,
            processes::nvmlDeviceGetComputeRunningProcesses_v3, processes::nvmlDeviceGetGraphicsRunningProcesses,
            processes::nvmlDeviceGetGraphicsRunningProcesses_v2, processes::nvmlDeviceGetGraphicsRunningProcesses_v3,
            processes::nvmlDeviceGetMPSComputeRunningProcesses, processes::nvmlDeviceGetMPSComputeRunningProcesses_v2,
            processes::nvmlDeviceGetMPSComputeRunningProcesses_v3, processes::nvmlDeviceGetRunningProcessDetailList,
            processes::nvmlDeviceGetProcessesUtilizationInfo, processes::nvmlDeviceGetProcessUtilization,
            // Field values.
            fields::nvmlDeviceGetFieldValues,
            // MIG.
            mig::nvmlDeviceGetMigMode, mig::nvmlDeviceGetMaxMigDeviceCount, mig::nvmlDeviceGetGpuInstanceProfileInfo,
            mig::nvmlDeviceGetGpuInstanceProfileInfoV, mig::nvmlDeviceGetGpuInstanceProfileInfoByIdV, mig::nvmlDeviceGetGpuInstances,
            mig::nvmlDeviceGetGpuInstanceById, mig::nvmlDeviceGetGpuInstancePossiblePlacements,
            mig::nvmlDeviceGetGpuInstancePossiblePlacements_v2, mig::nvmlDeviceGetGpuInstanceRemainingCapacity,
            mig::nvmlGpuInstanceGetInfo, mig::nvmlGpuInstanceGetComputeInstanceProfileInfo,
            mig::nvmlGpuInstanceGetComputeInstanceProfileInfoV, mig::nvmlGpuInstanceGetComputeInstances,
            mig::nvmlGpuInstanceGetComputeInstanceById, mig::nvmlGpuInstanceGetComputeInstancePossiblePlacements,
            mig::nvmlGpuInstanceGetComputeInstanceRemainingCapacity, mig::nvmlComputeInstanceGetInfo, mig::nvmlComputeInstanceGetInfo_v2,
            mig::nvmlDeviceGetMigDeviceHandleByIndex, mig::nvmlDeviceIsMigDeviceHandle, mig::nvmlDeviceGetDeviceHandleFromMigDeviceHandle,
            mig::nvmlDeviceGetGpuInstanceId, mig::nvmlDeviceGetComputeInstanceId, mig::nvmlDeviceGetAttributes, mig::nvmlDeviceGetAttributes_v2,
            // Events.
            events::nvmlEventSetCreate, events::nvmlDeviceGetSupportedEventTypes, events::nvmlDeviceRegisterEvents,
            events::nvmlEventSetWait, events::nvmlEventSetWait_v2, events::nvmlEventSetFree, events::nvmlSystemEventSetCreate,
            events::nvmlSystemRegisterEvents, events::nvmlSystemEventSetWait, events::nvmlSystemEventSetFree,
            // GPM.
            gpm::nvmlGpmSampleAlloc, gpm::nvmlGpmSampleFree, gpm::nvmlGpmSampleGet, gpm::nvmlGpmMigSampleGet, gpm::nvmlGpmMetricsGet,
            // vGPU and video sessions.
            vgpu::nvmlDeviceGetActiveVgpus, vgpu::nvmlDeviceGetEncoderStats, vgpu::nvmlVgpuInstanceGetEncoderStats,
            vgpu::nvmlDeviceGetCreatableVgpus, vgpu::nvmlDeviceGetVgpuTypeSupportedPlacements,
            vgpu::nvmlDeviceGetVgpuTypeCreatablePlacements, vgpu::nvmlDeviceGetVgpuUtilization,
            vgpu::nvmlDeviceGetVgpuInstancesUtilizationInfo, vgpu::nvmlDeviceGetVgpuProcessesUtilizationInfo,
            vgpu::nvmlVgpuInstanceGetMetadata, vgpu::nvmlDeviceGetVgpuMetadata, vgpu::nvmlGetVgpuCompatibility,
        }
    };
}

/// `["nvmlInit", ...]` from the list.
macro_rules! names {
    ($($m:ident :: $f:ident),* $(,)?) => { &[$(stringify!($f)),*] };
}

/// The functions the engine implements by hand: a profile can give them only an error.
pub const HAND_WRITTEN: &[&str] = hand_written!(names);

impl Api for Engine {
    fn unimplemented(&self, function: &'static str) -> nvmlReturn_t {
        self.report_unimplemented(function)
    }

    fn answer(
        &self,
        function: &'static str,
        object: Object,
        selectors: &[i64],
        write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
    ) -> nvmlReturn_t {
        let Ok(sys) = self.sys() else { return NVML_ERROR_UNINITIALIZED };
        if sys.entries(object).is_none() {
            // Not one of our handles (or an object without values, such as a unit).
            return match object {
                Object::Unit(_) => self.unimplemented(function),
                // nvml.h: 0 is an invalid instance, another id one that is not running.
                Object::VgpuInstance(id) if id != 0 => NVML_ERROR_NOT_FOUND,
                _ => NVML_ERROR_INVALID_ARGUMENT,
            };
        }
        match sys.entry(function, object).map(|e| e.select(selectors)) {
            Some(Some(Entry::Values(v))) => super::ffi::code(write(v)),
            Some(Some(Entry::Error { code, .. })) => *code,
            // A selector value the profile does not list.
            Some(Some(Entry::Select { .. }) | None) => NVML_ERROR_NOT_SUPPORTED,
            None => self.unimplemented(function),
        }
    }

    hand_written!(delegate);
}
