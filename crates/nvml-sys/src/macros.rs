//! Macros the generated files invoke, written by hand so that behaviour lives in one place
//! (and every `unsafe` block here carries its justification).

/// `Default` as all-zero bytes, for records of integers, floats, arrays, raw pointers and
/// unions of those. The generator only invokes it for records without function pointers.
macro_rules! zeroed_default {
    ($($t:ident),* $(,)?) => {$(
        impl Default for $t {
            fn default() -> Self {
                // SAFETY: the generator invokes this only for plain C records whose fields are
                // integers, floats, arrays, raw pointers or records of those (no references,
                // no function pointers), for which all-zero bytes are a valid value.
                unsafe { core::mem::zeroed() }
            }
        }
    )*};
}

/// `Debug` for records that hold a union, whose active field cannot be known.
macro_rules! opaque_debug {
    ($($t:ident),* $(,)?) => {$(
        impl core::fmt::Debug for $t {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($t)).finish_non_exhaustive()
            }
        }
    )*};
}

/// The function table of one area of the header: for each function, the type of its pointer
/// and an accessor on `NvmlLib` that resolves it on first use. An entry reads
/// `slot: PFN_name = fn name(parameter types) -> return type;`, its doc comment and
/// attributes before it; `slot` is the function's index in `SYMBOLS`.
macro_rules! functions {
    ($($(#[$attr:meta])* $slot:literal: $pfn:ident = fn $name:ident($($arg:ty),* $(,)?) -> $ret:ty;)*) => {
        $(
            #[doc = concat!("Pointer to `", stringify!($name), "`.")]
            pub type $pfn = unsafe extern "C" fn($($arg),*) -> $ret;
        )*
        impl NvmlLib {
            $(
                $(#[$attr])*
                ///
                /// Resolved on first use; `Err` if the loaded library does not export it.
                #[inline]
                pub fn $name(&self) -> Result<$pfn, MissingSymbol> {
                    self.resolve::<$pfn>($slot)
                }
            )*
        }
    };
}
