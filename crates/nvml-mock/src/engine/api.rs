//! The engine as the generated answers see it ([`Answer`]): the profile's values that every
//! getter answered from data reads. The functions the engine implements by hand are listed
//! in `gen-config/mock.yaml`, and `generated/dispatch/` makes them the engine's `Api`
//! methods.

use nvml_sys::*;

use super::Engine;
use crate::answer::{Answer, Entry, Object, Val};

impl Answer for Engine {
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
        if let Some(v) = sys.live(function, object, selectors) {
            return crate::ffi::code(write(&v));
        }
        match sys.entry(function, object).map(|e| e.select(selectors)) {
            Some(Some(Entry::Values(v))) => crate::ffi::code(write(v)),
            Some(Some(Entry::Error { code, .. })) => *code,
            // A selector value the profile does not list.
            Some(Some(Entry::Select { .. }) | None) => NVML_ERROR_NOT_SUPPORTED,
            None => self.unimplemented(function),
        }
    }

    fn knows_version(&self, constant: &'static str) -> bool {
        // Before init the call answers UNINITIALIZED anyway.
        self.sys().map_or(true, |sys| sys.knows_version(constant))
    }
}
