//! Field values: several readings of a device in one call, each with its own answer.

use nvml_sys as sys;

use crate::ffi;
use crate::{Device, Error, FieldId, FieldValue};

impl Device<'_> {
    /// Reads the fields `ids` at once: one answer per id, in the same order, each the field's
    /// value or the error the library gave for that field (a field the device does not have
    /// is `Err(Error::NotSupported)`, say, while the others still answer).
    ///
    /// Calls `nvmlDeviceGetFieldValues` with a scope of 0 for each field; see
    /// [`Device::scoped_field_values`] for fields that need one (an NVLink counter's link).
    ///
    /// # Errors
    ///
    /// The call as a whole: [`Error::InvalidArgument`] if the device is invalid,
    /// [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetFieldValues`,
    /// [`Error::InvalidArgument`] for more ids than a C `int` counts.
    #[doc(alias = "nvmlDeviceGetFieldValues")]
    pub fn field_values(&self, ids: &[FieldId]) -> Result<Vec<Result<FieldValue, Error>>, Error> {
        let scoped: Vec<(FieldId, u32)> = ids.iter().map(|&id| (id, 0)).collect();
        self.scoped_field_values(&scoped)
    }

    /// [`Device::field_values`] with a scope per field: `(id, scope)`, the scope being what
    /// the field's documentation says (the link of an NVLink counter, ...).
    ///
    /// # Errors
    ///
    /// As [`Device::field_values`].
    #[doc(alias = "nvmlDeviceGetFieldValues")]
    pub fn scoped_field_values(&self, fields: &[(FieldId, u32)]) -> Result<Vec<Result<FieldValue, Error>>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetFieldValues()?;
        let mut raw: Vec<sys::nvmlFieldValue_t> = fields
            .iter()
            .map(|&(id, scope)| sys::nvmlFieldValue_t { fieldId: id.0, scopeId: scope, ..Default::default() })
            .collect();
        ffi::check(call!(sym(self.raw, ffi::length(raw.len(), 1)?, raw.as_mut_ptr())))?;
        Ok(raw
            .iter()
            .map(|r| match Error::from_code(r.nvmlReturn) {
                None => Ok(FieldValue::from(r)),
                Some(e) => Err(e),
            })
            .collect())
    }
}
