//! Hand-written wrappers for the functions whose shape the generator does not cover: records
//! that hold pointers to caller-allocated buffers beside other pointers, records of variable
//! size, and handles created through request records (a list inside a record whose other fields
//! are inputs, outputs or an opaque in/out cursor is generated, `Role::RecordList` of the plan;
//! the cursor's type, `CperCursor`, is here). Each function here has a `manual` rule in
//! `gen-config/nvml.yaml` that names its file, so `cargo xtask coverage` counts it and the
//! generator leaves it alone.
//!
//! They follow the generated methods' conventions: lists use NVML's two-call protocol
//! through [`ffi::fill_list`] (size query, fill, bounded retry when the list grows), records
//! get their `version` filled in, and a function the library lacks is
//! [`Error::FunctionNotFound`](crate::Error::FunctionNotFound).

mod device;
mod events;
mod fields;
mod gpm;
mod system;
mod vgpu;

pub use device::{MemoryLimits, NvlinkTelemetry, NvlinkTelemetryRequest};
pub use events::Event;
pub use gpm::GpmMetric;
pub use system::{cuda_driver_version_major, cuda_driver_version_minor, CperCursor};
pub use vgpu::{MetadataBlob, PgpuMetadataBlob, VgpuMetadataBlob};

/// `serde::Serialize` for a hand-written data type, field by field (no derive: the crate's
/// build graph has no proc macros). A field given as `name => expr` is serialized as `expr`.
#[cfg(feature = "serde")]
macro_rules! serialize_struct {
    ($t:ty { $($f:ident $(=> $e:expr)?),* $(,)? }) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut st = s.serialize_struct(stringify!($t), [$(stringify!($f)),*].len())?;
                $(st.serialize_field(stringify!($f), &serialize_struct!(@field self, $f $(, $e)?))?;)*
                st.end()
            }
        }
    };
    (@field $self:ident, $f:ident) => { $self.$f };
    (@field $self:ident, $f:ident, $e:expr) => { ($e)($self) };
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::*;

    serialize_struct!(MemoryLimits { soft_limit, hard_limit, current_used });
    serialize_struct!(NvlinkTelemetryRequest { link_id, sample_type });
    serialize_struct!(NvlinkTelemetry { request, samples => |t: &NvlinkTelemetry| t.samples.as_ref().ok().cloned() });
    serialize_struct!(GpmMetric { id, value => |m: &GpmMetric| m.value.as_ref().ok().copied(), short_name, long_name, unit });
}
