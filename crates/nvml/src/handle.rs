//! Handle types. `handles!` and `id_handles!` are invoked by the generated `handles.rs` with
//! the handle list of the rules; what a handle is and does is written here.

use std::fmt;
use std::marker::PhantomData;

/// A handle found inside a record (e.g. the device of an event), not yet tied to an
/// [`Nvml`](crate::Nvml). Turn it into a handle type with that type's `from_raw_handle`.
pub struct RawHandle<T> {
    ptr: *mut T,
    _marker: PhantomData<T>,
}

impl<T> RawHandle<T> {
    pub(crate) fn new(ptr: *mut T) -> Self {
        RawHandle { ptr, _marker: PhantomData }
    }

    /// The pointer, as the library gave it.
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// Whether the library left the field empty.
    pub fn is_null(&self) -> bool {
        self.ptr.is_null()
    }
}

impl<T> Default for RawHandle<T> {
    fn default() -> Self {
        RawHandle::new(std::ptr::null_mut())
    }
}

impl<T> Clone for RawHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RawHandle<T> {}

impl<T> PartialEq for RawHandle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ptr == other.ptr
    }
}

impl<T> Eq for RawHandle<T> {}

impl<T> fmt::Debug for RawHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawHandle({:p})", self.ptr)
    }
}

// SAFETY: a raw handle is an identifier the library hands out; this type never dereferences
// it, and NVML accepts its handles from any thread.
unsafe impl<T> Send for RawHandle<T> {}
// SAFETY: as above; shared access only copies the pointer value.
unsafe impl<T> Sync for RawHandle<T> {}

/// Opaque-pointer handle types: `Name(raw typedef, opaque struct)`.
macro_rules! handles {
    ($( $(#[$doc:meta])* $name:ident($raw:ty, $tag:ty) );* $(;)?) => {$(
        $(#[$doc])*
        ///
        /// Borrows the [`Nvml`](crate::Nvml) it came from (`'n`); [`Self::into_owned`] gives a
        /// `'static` handle that keeps the library loaded instead, to store in structs or move
        /// across threads.
        #[derive(Clone)]
        pub struct $name<'n> {
            pub(crate) raw: $raw,
            pub(crate) nvml: crate::nvml::NvmlRef<'n>,
        }

        impl<'n> $name<'n> {
            #[allow(dead_code)]
            pub(crate) fn wrap(raw: $raw, nvml: crate::nvml::NvmlRef<'n>) -> Self {
                $name { raw, nvml }
            }

            /// The raw handle, for calls through [`nvml_sys`](crate::sys).
            pub fn as_raw(&self) -> $raw {
                self.raw
            }

            /// This handle, keeping the library loaded rather than borrowing the `Nvml`.
            pub fn into_owned(self) -> $name<'static> {
                $name { raw: self.raw, nvml: self.nvml.into_owned() }
            }

            /// The `Nvml` this handle belongs to.
            pub fn nvml(&self) -> crate::Nvml {
                self.nvml.to_nvml()
            }

            /// A handle found in a record returned by the same library.
            pub fn from_raw_handle(nvml: &'n crate::Nvml, raw: crate::RawHandle<$tag>) -> Self {
                $name { raw: raw.as_ptr(), nvml: nvml.nref() }
            }
        }

        impl PartialEq for $name<'_> {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }

        impl Eq for $name<'_> {}

        impl std::hash::Hash for $name<'_> {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                (self.raw as usize).hash(h)
            }
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:p})", stringify!($name), self.raw)
            }
        }

        // SAFETY: NVML handles are process-wide identifiers that NVML accepts from any thread
        // (the library is thread-safe); the `Nvml` reference they carry is Send + Sync.
        unsafe impl Send for $name<'_> {}
        // SAFETY: as above; shared access only reads the pointer value.
        unsafe impl Sync for $name<'_> {}
    )*};
}

/// Integer-id handle types: `Name(raw typedef)`.
macro_rules! id_handles {
    ($( $(#[$doc:meta])* $name:ident($raw:ty) );* $(;)?) => {$(
        $(#[$doc])*
        ///
        /// Borrows the [`Nvml`](crate::Nvml) it came from; see [`Self::into_owned`].
        #[derive(Clone)]
        pub struct $name<'n> {
            pub(crate) raw: $raw,
            pub(crate) nvml: crate::nvml::NvmlRef<'n>,
        }

        impl<'n> $name<'n> {
            #[allow(dead_code)]
            pub(crate) fn wrap(raw: $raw, nvml: crate::nvml::NvmlRef<'n>) -> Self {
                $name { raw, nvml }
            }

            /// The id.
            pub fn as_raw(&self) -> $raw {
                self.raw
            }

            /// This handle, keeping the library loaded rather than borrowing the `Nvml`.
            pub fn into_owned(self) -> $name<'static> {
                $name { raw: self.raw, nvml: self.nvml.into_owned() }
            }

            /// A handle for an id the same library reported.
            pub fn from_id(nvml: &'n crate::Nvml, id: $raw) -> Self {
                $name { raw: id, nvml: nvml.nref() }
            }
        }

        impl PartialEq for $name<'_> {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }

        impl Eq for $name<'_> {}

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.raw)
            }
        }
    )*};
}
