//! The pGPU metadata string and the variable-size vGPU migration metadata.

use std::ffi::c_char;

use nvml_sys as sys;

use crate::ffi;
use crate::raw::FromRaw;
use crate::{Device, Error, Nvml, VgpuInstance, VgpuMetadata, VgpuPgpuCompatibility, VgpuPgpuMetadata};

impl<'n> Device<'n> {
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
