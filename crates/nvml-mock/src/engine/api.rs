//! The engine as the generated answers see it ([`Answer`]): the profile's values that every
//! getter answered from data reads. The functions the engine implements by hand are listed
//! in `gen-config/mock.yaml`, and `generated/dispatch/` makes them the engine's `Api`
//! methods.

use nvml_sys::*;

use super::{Engine, System};
use crate::answer::{function_name, Answer, Entry, Object, Val};

impl Answer for Engine {
    fn unimplemented(&self, function: &'static str) -> nvmlReturn_t {
        self.report_unimplemented(function)
    }

    fn answer(
        &self,
        id: usize,
        object: Object,
        selectors: &[i64],
        write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
    ) -> nvmlReturn_t {
        self.current(|sys| match sys {
            Some(sys) => self.answer_on(sys, id, object, selectors, write),
            None => NVML_ERROR_UNINITIALIZED,
        })
    }

    fn knows_version(&self, constant: &'static str) -> bool {
        // Before init the call answers UNINITIALIZED anyway.
        self.current(|sys| sys.map_or(true, |sys| sys.knows_version(constant)))
    }
}

impl Engine {
    fn answer_on(
        &self,
        sys: &System,
        id: usize,
        object: Object,
        selectors: &[i64],
        write: &mut dyn FnMut(&[Val]) -> Result<(), nvmlReturn_t>,
    ) -> nvmlReturn_t {
        let function = function_name(id);
        // The system's and a GPU's entries are in their tables; other objects' by name.
        let entry = match sys.table_of(object).and_then(|t| t.row(id)) {
            Some(row) => row.entry.as_deref(),
            None => {
                if sys.entries(object).is_none() {
                    // Not one of our handles (or an object without values, such as a unit).
                    return match object {
                        Object::Unit(_) => self.unimplemented(function),
                        // nvml.h: 0 is an invalid instance, another id one that is not running.
                        Object::VgpuInstance(id) if id != 0 => NVML_ERROR_NOT_FOUND,
                        _ => NVML_ERROR_INVALID_ARGUMENT,
                    };
                }
                sys.entry(function, object)
            }
        };
        if let Some(v) = sys.live(function, object, selectors) {
            return crate::ffi::code(write(&v));
        }
        match entry.map(|e| e.select(selectors)) {
            Some(Some(Entry::Values(v))) => crate::ffi::code(write(v)),
            Some(Some(Entry::Error { code, .. })) => *code,
            // A selector value the profile does not list.
            Some(Some(Entry::Select { .. }) | None) => NVML_ERROR_NOT_SUPPORTED,
            None => self.unimplemented(function),
        }
    }
}
