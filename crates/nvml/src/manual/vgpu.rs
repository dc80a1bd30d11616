//! vGPU lists whose array sits inside a versioned record beside other outputs (the placements'
//! slot size, the utilisation samples' value type), the pGPU metadata string, and the
//! variable-size migration metadata.

use std::ffi::c_char;

use nvml_sys as sys;

use crate::ffi;
use crate::raw::FromRaw;
use crate::{
    Device, Error, GpuInstance, Nvml, ValueType, VgpuInstance, VgpuInstanceUtilizationInfo, VgpuMetadata,
    VgpuPgpuCompatibility, VgpuPgpuMetadata, VgpuTypeId,
};

/// The placements of a vGPU type: where on the GPU an instance of it can start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VgpuPlacements {
    /// The number of slots an instance of the type occupies.
    pub placement_size: u32,
    /// The placement ids.
    pub placement_ids: Vec<u32>,
}

/// A device placement query (`call`) for `mode` (`NVML_VGPU_PGPU_*_MODE`): size query and
/// fill with the v2 record, or the v1 record once the library rejects v2.
fn placements(
    mode: u32,
    mut call: impl FnMut(&mut sys::nvmlVgpuPlacementList_t) -> sys::nvmlReturn_t,
) -> Result<VgpuPlacements, Error> {
    let (mut placement_size, mut v1_only) = (0, false);
    let ids = ffi::fill_in_record(
        |count, ptr| sys::nvmlVgpuPlacementList_t {
            version: sys::nvmlVgpuPlacementList_v2,
            placementSize: 0,
            count,
            placementIds: ptr,
            mode,
        },
        |r| r.count,
        |r| {
            if v1_only {
                r.version = sys::nvmlVgpuPlacementList_v1;
            }
            // What the record says before the library writes into it: the retry below must
            // not pass on a capacity the library overwrote.
            let (capacity, ids) = (r.count, r.placementIds);
            let mut code = call(r);
            // A driver that only knows the first layout (no `mode`, which it then ignores).
            if code == sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH && !v1_only {
                v1_only = true;
                *r = sys::nvmlVgpuPlacementList_t {
                    version: sys::nvmlVgpuPlacementList_v1,
                    placementSize: 0,
                    count: capacity,
                    placementIds: ids,
                    mode,
                };
                code = call(r);
            }
            placement_size = r.placementSize;
            code
        },
    )?;
    Ok(VgpuPlacements { placement_size, placement_ids: ids })
}

impl<'n> Device<'n> {
    /// The placements the device supports for `vgpu_type`; `mode` is
    /// `sys::NVML_VGPU_PGPU_HETEROGENEOUS_MODE` (the default) or
    /// `sys::NVML_VGPU_PGPU_HOMOGENEOUS_MODE`.
    ///
    /// Calls `nvmlDeviceGetVgpuTypeSupportedPlacements` (size query, then fill); a driver
    /// that only knows `nvmlVgpuPlacementList_v1` gets that layout and ignores `mode`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device or `vgpu_type` is invalid
    /// - [`Error::NotSupported`] if the device or `vgpu_type` is not supported
    /// - [`Error::NoPermission`] if user doesn't have permission to perform the operation
    /// - [`Error::InsufficientSize`] if the list keeps growing while it is fetched
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetVgpuTypeSupportedPlacements` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetVgpuTypeSupportedPlacements")]
    pub fn vgpu_type_supported_placements(
        &self,
        vgpu_type: &VgpuTypeId<'_>,
        mode: u32,
    ) -> Result<VgpuPlacements, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetVgpuTypeSupportedPlacements()?;
        placements(mode, |r| call!(sym(self.raw, vgpu_type.raw, r)))
    }

    /// The placements at which an instance of `vgpu_type` can be created now; `mode` as for
    /// [`Device::vgpu_type_supported_placements`].
    ///
    /// Calls `nvmlDeviceGetVgpuTypeCreatablePlacements` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device or `vgpu_type` is invalid
    /// - [`Error::NotSupported`] if MIG is enabled, or the device or `vgpu_type` is not supported
    /// - [`Error::NoPermission`] if user doesn't have permission to perform the operation
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetVgpuTypeCreatablePlacements` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetVgpuTypeCreatablePlacements")]
    pub fn vgpu_type_creatable_placements(
        &self,
        vgpu_type: &VgpuTypeId<'_>,
        mode: u32,
    ) -> Result<VgpuPlacements, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetVgpuTypeCreatablePlacements()?;
        placements(mode, |r| call!(sym(self.raw, vgpu_type.raw, r)))
    }

    /// Utilisation of the device's vGPU instances from the samples newer than
    /// `last_seen_time_stamp` (CPU microseconds; 0 for every sample the driver keeps).
    ///
    /// Calls `nvmlDeviceGetVgpuInstancesUtilizationInfo` (size query, then fill); each value
    /// is typed by the value type the driver returns with it.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device is invalid
    /// - [`Error::NotSupported`] if vGPU is not supported by the device
    /// - [`Error::GpuIsLost`] if the target GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::InsufficientSize`] if the list keeps growing while it is fetched
    /// - [`Error::NotFound`] if sample entries are not found
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetVgpuInstancesUtilizationInfo` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetVgpuInstancesUtilizationInfo")]
    pub fn vgpu_instances_utilization_info(
        &self,
        last_seen_time_stamp: u64,
    ) -> Result<Vec<VgpuInstanceUtilizationInfo>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetVgpuInstancesUtilizationInfo()?;
        let mut value_type = ValueType::UNSIGNED_INT;
        let list: Vec<sys::nvmlVgpuInstanceUtilizationInfo_v1_t> = ffi::fill_in_record(
            |count, ptr| sys::nvmlVgpuInstancesUtilizationInfo_t {
                version: sys::nvmlVgpuInstancesUtilizationInfo_v1,
                sampleValType: 0,
                vgpuInstanceCount: count,
                lastSeenTimeStamp: last_seen_time_stamp,
                vgpuUtilArray: ptr,
            },
            |r| r.vgpuInstanceCount,
            |r| {
                let code = call!(sym(self.raw, r));
                value_type = ValueType(r.sampleValType);
                code
            },
        )?;
        Ok(list.iter().map(|s| VgpuInstanceUtilizationInfo::from_raw_typed(s, value_type)).collect())
    }

    /// The properties of the physical GPU as an ASCII string, for vGPU migration
    /// compatibility checks.
    ///
    /// Calls `nvmlDeviceGetPgpuMetadataString` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::InsufficientSize`] if the metadata keeps growing while it is fetched
    /// - [`Error::NotSupported`] if vGPU is not supported by the system
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetPgpuMetadataString` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetPgpuMetadataString")]
    pub fn pgpu_metadata_string(&self) -> Result<String, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetPgpuMetadataString()?;
        let buf = ffi::fill_list(0 as c_char, |size, ptr| call!(sym(self.raw, ptr, size)))?;
        Ok(ffi::string_from(&buf))
    }
}

impl<'n> GpuInstance<'n> {
    /// The placements at which an instance of `vgpu_type` can be created in this GPU
    /// instance now.
    ///
    /// Calls `nvmlGpuInstanceGetVgpuTypeCreatablePlacements` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the GPU instance or its id is invalid
    /// - [`Error::InsufficientSize`] if the list keeps growing while it is fetched
    /// - [`Error::NotSupported`] if not on a vGPU host, an unsupported GPU, or vGPU heterogeneous mode is not enabled
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlGpuInstanceGetVgpuTypeCreatablePlacements` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlGpuInstanceGetVgpuTypeCreatablePlacements")]
    pub fn vgpu_type_creatable_placements(&self, vgpu_type: &VgpuTypeId<'_>) -> Result<VgpuPlacements, Error> {
        let sym = self.nvml.lib().nvmlGpuInstanceGetVgpuTypeCreatablePlacements()?;
        let mut placement_size = 0;
        let ids = ffi::fill_in_record(
            |count, ptr| sys::nvmlVgpuCreatablePlacementInfo_t {
                version: sys::nvmlVgpuCreatablePlacementInfo_v1,
                vgpuTypeId: vgpu_type.raw,
                count,
                placementIds: ptr,
                placementSize: 0,
            },
            |r| r.count,
            |r| {
                let code = call!(sym(self.raw, r));
                placement_size = r.placementSize;
                code
            },
        )?;
        Ok(VgpuPlacements { placement_size, placement_ids: ids })
    }
}

/// vGPU migration metadata as the driver returned it: a record with variable-length opaque
/// data, kept as bytes so that it can be stored or sent to another host and checked there
/// with [`Nvml::vgpu_compatibility`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataBlob<T> {
    bytes: Vec<u8>,
    record: std::marker::PhantomData<T>,
}

/// A vGPU instance's metadata ([`VgpuInstance::metadata`]).
pub type VgpuMetadataBlob = MetadataBlob<sys::nvmlVgpuMetadata_t>;
/// A physical GPU's vGPU metadata ([`Device::vgpu_metadata`]).
pub type PgpuMetadataBlob = MetadataBlob<sys::nvmlVgpuPgpuMetadata_t>;

impl<T> MetadataBlob<T> {
    /// Metadata bytes as [`MetadataBlob::as_bytes`] gave them (on this or another host).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        MetadataBlob { bytes, record: std::marker::PhantomData }
    }

    /// The metadata's bytes, the record and its opaque data, as the library wrote them: what
    /// [`MetadataBlob::from_bytes`] takes back.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl VgpuMetadataBlob {
    /// The fixed part: versions, guest state, driver versions.
    pub fn record(&self) -> VgpuMetadata {
        VgpuMetadata::from_raw(&ffi::record_prefix::<sys::nvmlVgpuMetadata_t>(&self.bytes))
    }
}

impl PgpuMetadataBlob {
    /// The fixed part: versions, host driver version, supported vGPU range.
    pub fn record(&self) -> VgpuPgpuMetadata {
        VgpuPgpuMetadata::from_raw(&ffi::record_prefix::<sys::nvmlVgpuPgpuMetadata_t>(&self.bytes))
    }
}

impl Device<'_> {
    /// The physical GPU's vGPU metadata, for [`Nvml::vgpu_compatibility`].
    ///
    /// Calls `nvmlDeviceGetVgpuMetadata` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::InsufficientSize`] if the metadata keeps growing while it is fetched
    /// - [`Error::NotSupported`] vGPU is not supported by the system
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetVgpuMetadata` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlDeviceGetVgpuMetadata")]
    pub fn vgpu_metadata(&self) -> Result<PgpuMetadataBlob, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetVgpuMetadata()?;
        let bytes = ffi::fill_record_bytes(|ptr, size| call!(sym(self.raw, ptr.cast(), size)))?;
        Ok(MetadataBlob::from_bytes(bytes))
    }
}

impl VgpuInstance<'_> {
    /// The vGPU instance's metadata, for [`Nvml::vgpu_compatibility`] on a migration target.
    ///
    /// Calls `nvmlVgpuInstanceGetMetadata` (size query, then fill).
    ///
    /// # Errors
    ///
    /// - [`Error::InsufficientSize`] if the metadata keeps growing while it is fetched
    /// - [`Error::NotFound`] if the vGPU instance does not match a valid active vGPU instance on the system
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlVgpuInstanceGetMetadata` (a driver older than the function)
    /// - [`Error::Implausible`] if the library answers a count no real list has
    #[doc(alias = "nvmlVgpuInstanceGetMetadata")]
    pub fn metadata(&self) -> Result<VgpuMetadataBlob, Error> {
        let sym = self.nvml.lib().nvmlVgpuInstanceGetMetadata()?;
        let bytes = ffi::fill_record_bytes(|ptr, size| call!(sym(self.raw, ptr.cast(), size)))?;
        Ok(MetadataBlob::from_bytes(bytes))
    }
}

impl Nvml {
    /// Whether a VM with vGPU metadata `vgpu` can run on the physical GPU with metadata
    /// `pgpu`, and what limits it.
    ///
    /// Calls `nvmlGetVgpuCompatibility`.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidArgument`] if `vgpu` or `pgpu` is not metadata the library reads
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlGetVgpuCompatibility` (a driver older than the function)
    #[doc(alias = "nvmlGetVgpuCompatibility")]
    pub fn vgpu_compatibility(
        &self,
        vgpu: &VgpuMetadataBlob,
        pgpu: &PgpuMetadataBlob,
    ) -> Result<VgpuPgpuCompatibility, Error> {
        let sym = self.lib().nvmlGetVgpuCompatibility()?;
        let (mut v, mut p) = (ffi::aligned_words(&vgpu.bytes), ffi::aligned_words(&pgpu.bytes));
        // The library reads at least the fixed parts.
        v.resize(v.len().max(std::mem::size_of::<sys::nvmlVgpuMetadata_t>().div_ceil(8)), 0);
        p.resize(p.len().max(std::mem::size_of::<sys::nvmlVgpuPgpuMetadata_t>().div_ceil(8)), 0);
        let mut out = sys::nvmlVgpuPgpuCompatibility_t::default();
        ffi::check(call!(sym(v.as_mut_ptr().cast(), p.as_mut_ptr().cast(), &mut out)))?;
        Ok(VgpuPgpuCompatibility::from_raw(&out))
    }
}
