//! Field values: several readings of a device in one call, each with its own answer, each field
//! sent by the running driver's number for it.

use nvml_sys as sys;

use crate::ffi;
use crate::raw::FromRaw;
use crate::{Device, Error, FieldId, FieldValue};

impl Device<'_> {
    /// Reads the fields `ids` at once: one answer per id, in the same order, each the field's
    /// value or the error the library gave for that field (a field the device does not have
    /// is `Err(Error::NotSupported)`, say, while the others still answer).
    ///
    /// Field ids mean what [`FieldId`]'s constants say (the numbers of the nvml.h this crate
    /// was generated from), on every driver: NVIDIA renumbered some between releases (251 is
    /// `NVML_FI_PWR_SMOOTHING_ENABLED` on R570 and from 580.82, but a clock-event field on R575
    /// and 580.65), so each is sent by the running driver's number for it
    /// ([`crate::Nvml::field_numbering`], read once at init from the driver's version), and the
    /// answer's [`FieldValue::field_id`] is the id asked for. A field the driver's nvml.h
    /// lacks is `Err(Error::FieldNotInDriver(id))` without asking the driver; an id
    /// [`FieldId`] does not name is sent as it is. When the driver's version cannot be read or
    /// parsed, the numbering of this crate's header is used.
    ///
    /// Calls `nvmlDeviceGetFieldValues` with a scope of 0 for each field; see
    /// [`Device::scoped_field_values`] for fields that need one (an NVLink counter's link).
    ///
    /// # Errors
    ///
    /// The call as a whole: [`Error::InvalidArgument`] if the device is invalid,
    /// [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetFieldValues`,
    /// [`Error::InvalidArgument`] for more than 2³¹ − 1 ids. Per field:
    /// [`Error::FieldNotInDriver`] for a field the running driver does not have, else the
    /// library's answer for it.
    #[doc(alias = "nvmlDeviceGetFieldValues")]
    pub fn field_values(&self, ids: &[FieldId]) -> Result<Vec<Result<FieldValue, Error>>, Error> {
        let scoped: Vec<(FieldId, u32)> = ids.iter().map(|&id| (id, 0)).collect();
        self.scoped_field_values(&scoped)
    }

    /// [`Device::field_values`] with a scope per field: `(id, scope)`, the scope being what
    /// the field's documentation says (the link of an NVLink counter, ...). Each id is sent by
    /// the running driver's number, as [`Device::field_values`] says.
    ///
    /// # Errors
    ///
    /// As [`Device::field_values`]: [`Error::InvalidArgument`], [`Error::FunctionNotFound`]
    /// for the call, [`Error::FieldNotInDriver`] for a field the driver does not have.
    #[doc(alias = "nvmlDeviceGetFieldValues")]
    pub fn scoped_field_values(&self, fields: &[(FieldId, u32)]) -> Result<Vec<Result<FieldValue, Error>>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetFieldValues()?;
        let numbering = self.nvml.fields();
        let mut raw: Vec<sys::nvmlFieldValue_t> = fields
            .iter()
            .filter_map(|&(id, scope)| {
                let driver_id = numbering.to_driver(id.0)?;
                Some(sys::nvmlFieldValue_t { fieldId: driver_id, scopeId: scope, ..Default::default() })
            })
            .collect();
        // Every field the driver lacks: nothing to ask.
        if !raw.is_empty() {
            ffi::check(call!(sym(self.raw, ffi::length(raw.len(), 1)?, raw.as_mut_ptr())))?;
        }
        let mut answers = raw.iter();
        Ok(fields
            .iter()
            .map(|&(id, _)| {
                if numbering.to_driver(id.0).is_none() {
                    return Err(Error::FieldNotInDriver(id.0));
                }
                let r = answers.next().ok_or(Error::Implausible("a field value the library did not answer"))?;
                if let Some(e) = Error::from_code(r.nvmlReturn) {
                    return Err(e);
                }
                let mut v = FieldValue::from_raw(r);
                // The id asked for, not the one in the driver's answer: the header lists the
                // record's outputs (value, valueType, timestamp, latencyUsec, nvmlReturn), and a
                // library that clears the record before filling it answers no id at all.
                v.field_id = id;
                Ok(v)
            })
            .collect())
    }
}
