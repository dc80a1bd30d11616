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
