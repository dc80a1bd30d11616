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

/// `Debug` of an opaque-pointer handle type: its name and raw pointer (`EventSet(0x…)`).
/// `Device` has its own, by UUID, in `manual/device.rs`.
macro_rules! handle_debug {
    (Device) => {};
    ($name:ident) => {
        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:p})", stringify!($name), self.raw)
            }
        }
    };
}

/// What every opaque-pointer handle type has: the struct, `wrap`, `as_raw`, `nvml`, equality,
/// hashing, `Debug` (by `handle_debug!`), `Send` and `Sync`.
macro_rules! handle_common {
    ($(#[$doc:meta])* $name:ident($raw:ty)) => {
        $(#[$doc])*
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

            /// The `Nvml` this handle belongs to.
            pub fn nvml(&self) -> crate::Nvml {
                self.nvml.to_nvml()
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

        handle_debug!($name);

        // SAFETY: NVML handles are process-wide identifiers that NVML accepts from any thread
        // (the library is thread-safe); the `Nvml` reference they carry is Send + Sync.
        unsafe impl Send for $name<'_> {}
        // SAFETY: as above; shared access only reads the pointer value.
        unsafe impl Sync for $name<'_> {}
    };
}

/// Handles of objects the library owns (devices, units): `Name(raw typedef, opaque struct)`.
/// They can be copied freely.
macro_rules! handles {
    ($( $(#[$doc:meta])* $name:ident($raw:ty, $tag:ty) );* $(;)?) => {$(
        handle_common! {
            $(#[$doc])*
            ///
            /// Borrows the [`Nvml`](crate::Nvml) it came from (`'n`); [`Self::into_owned`] gives a
            /// `'static` handle that keeps the library loaded instead, to store in structs or move
            /// across threads.
            #[derive(Clone)]
            $name($raw)
        }

        unowned_handle_ctors!($name, $tag);
    )*};
}

/// `into_owned` and `from_raw_handle` of a handle type with no `Drop`.
macro_rules! unowned_handle_ctors {
    ($name:ident, $tag:ty) => {
        impl<'n> $name<'n> {
            /// This handle, keeping the library loaded rather than borrowing the `Nvml`.
            pub fn into_owned(self) -> $name<'static> {
                $name { raw: self.raw, nvml: self.nvml.into_owned() }
            }

            /// A handle found in a record returned by the same library.
            pub fn from_raw_handle(nvml: &'n crate::Nvml, raw: crate::RawHandle<$tag>) -> Self {
                $name { raw: raw.as_ptr(), nvml: nvml.nref() }
            }
        }
    };
}

/// Handles of driver objects that outlive the process (GPU and compute instances): not
/// `Clone`, and never destroyed on drop; only the method that destroys the object, which takes
/// the handle by value, does.
macro_rules! destroyable_handles {
    ($( $(#[$doc:meta])* $name:ident($raw:ty, $tag:ty) );* $(;)?) => {$(
        handle_common! {
            $(#[$doc])*
            ///
            /// Not `Clone`: destroying the object consumes its handle. Borrows the
            /// [`Nvml`](crate::Nvml) it came from (`'n`); see [`Self::into_owned`].
            $name($raw)
        }

        unowned_handle_ctors!($name, $tag);

        impl<'n> $name<'n> {
            /// The raw handle, for the method that destroys the object.
            #[allow(dead_code)]
            pub(crate) fn release_raw(&mut self) -> $raw {
                self.raw
            }
        }
    )*};
}

/// Handles of objects the process allocates (event sets, GPM samples): not `Clone`, and freed
/// when dropped, by `Self::free_raw` (generated, or hand-written where the free function takes
/// a request record); `free` reports the library's answer instead.
macro_rules! owned_handles {
    ($( $(#[$doc:meta])* $name:ident($raw:ty, $tag:ty) );* $(;)?) => {$(
        handle_common! {
            $(#[$doc])*
            ///
            /// Owned: not `Clone`, and freed when dropped (`free` returns the library's answer
            /// instead). Borrows the [`Nvml`](crate::Nvml) it came from (`'n`); see
            /// [`Self::into_owned`].
            $name($raw)
        }

        impl<'n> $name<'n> {
            /// This handle, keeping the library loaded rather than borrowing the `Nvml`.
            pub fn into_owned(mut self) -> $name<'static> {
                let raw = self.release_raw();
                $name { raw, nvml: self.nvml.clone().into_owned() }
            }

            /// Takes the raw handle out, leaving nothing to free on drop.
            pub(crate) fn release_raw(&mut self) -> $raw {
                std::mem::replace(&mut self.raw, std::ptr::null_mut())
            }
        }

        impl Drop for $name<'_> {
            fn drop(&mut self) {
                let raw = self.release_raw();
                if !raw.is_null() {
                    // Drop cannot report the library's answer; `free` does.
                    let _ = Self::free_raw(self.nvml.lib(), raw);
                }
            }
        }
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
