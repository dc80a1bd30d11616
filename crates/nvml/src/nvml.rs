//! The library's lifetime: loading, `nvmlInit`, and `nvmlShutdown` when the last user is gone.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use nvml_sys as sys;

use crate::{Error, InitFlags};

/// The loaded library between `nvmlInit` and `nvmlShutdown`.
pub(crate) struct Inner {
    lib: sys::NvmlLib,
    /// How the running driver numbers the field ids, read once at init.
    fields: sys::FieldNumbering,
    /// `nvmlShutdown` ran already ([`Nvml::shutdown`]).
    shut_down: bool,
}

impl Inner {
    /// `nvmlShutdown`, once: its answer, or `FunctionNotFound` for a library without it.
    fn shut_down(&mut self) -> Result<(), Error> {
        if std::mem::replace(&mut self.shut_down, true) {
            return Ok(());
        }
        let shutdown = self.lib.nvmlShutdown()?;
        crate::ffi::check(call!(shutdown()))
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // A library without `nvmlShutdown` (or one that fails it) is left as it is: drop must
        // not fail.
        let _ = self.shut_down();
    }
}

/// The initialised libraries, oldest first, for `Error`'s `Display` (`nvmlErrorString`). Dead
/// entries are dropped at each `init`, so the list stays as long as the number of live ones.
static LIVE: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

/// `nvmlErrorString(code)` from the most recently initialised library that is still alive.
pub(crate) fn current_error_string(code: sys::nvmlReturn_t) -> Option<String> {
    let inner = LIVE.lock().ok()?.iter().rev().find_map(Weak::upgrade)?;
    crate::ffi::error_string(&inner.lib, code)
}

/// How a handle reaches its library: borrowing an `Nvml` for `'n`, or owning a reference to it.
///
/// Either way it holds the library's `Arc`, so that a call costs one load to reach the
/// function table (a getter is a few loads and the call; an enum of `&Arc` and `Arc` cost a
/// branch and a load more). A borrowed one holds a copy of the borrowed `Arc` that never
/// counts and is never dropped; an owned one holds a count, released on drop.
#[derive(Clone)]
pub(crate) struct NvmlRef<'n> {
    arc: ArcRef,
    _borrow: PhantomData<&'n Arc<Inner>>,
}

/// The `Arc` of an [`NvmlRef`], counted (owned) or not (borrowed). Its `Drop` lives here, on a
/// type without the borrow's lifetime, so that a borrowing handle, like a reference, need not
/// outlive its `Nvml` only to be dropped.
struct ArcRef {
    arc: ManuallyDrop<Arc<Inner>>,
    owned: bool,
}

impl<'n> NvmlRef<'n> {
    /// A handle's reference that borrows `arc` for `'n`.
    #[inline]
    fn borrowed(arc: &'n Arc<Inner>) -> NvmlRef<'n> {
        // SAFETY: the copy shares `arc`'s allocation without a count of its own. The allocation
        // lives while `arc` does, at least for `'n`, which the `PhantomData` borrows it for (so
        // nobody can drop or mutate it meanwhile); the copy is used only through this
        // `NvmlRef<'n>` and its clones, and never dropped (`ArcRef` drops only an owned one).
        let copy = unsafe { std::ptr::read(arc) };
        NvmlRef { arc: ArcRef { arc: ManuallyDrop::new(copy), owned: false }, _borrow: PhantomData }
    }

    /// A handle's reference that owns one count of `arc`.
    #[inline]
    fn owned(arc: Arc<Inner>) -> NvmlRef<'static> {
        NvmlRef { arc: ArcRef { arc: ManuallyDrop::new(arc), owned: true }, _borrow: PhantomData }
    }

    #[inline]
    pub(crate) fn lib(&self) -> &sys::NvmlLib {
        &self.arc.arc.lib
    }

    /// How the running driver numbers the field ids.
    #[inline]
    pub(crate) fn fields(&self) -> sys::FieldNumbering {
        self.arc.arc.fields
    }

    pub(crate) fn into_owned(self) -> NvmlRef<'static> {
        NvmlRef::owned(Arc::clone(&self.arc.arc))
    }

    pub(crate) fn to_nvml(&self) -> Nvml {
        Nvml { inner: Arc::clone(&self.arc.arc) }
    }
}

impl Clone for ArcRef {
    #[inline]
    fn clone(&self) -> Self {
        if self.owned {
            ArcRef { arc: ManuallyDrop::new(Arc::clone(&self.arc)), owned: true }
        } else {
            // SAFETY: as in `NvmlRef::borrowed`: `self` is an uncounted copy valid for the
            // borrow of the `NvmlRef` that holds it, and so is this copy, which its clone of
            // that `NvmlRef` holds; it is never dropped either.
            let copy = unsafe { std::ptr::read(&*self.arc) };
            ArcRef { arc: ManuallyDrop::new(copy), owned: false }
        }
    }
}

impl Drop for ArcRef {
    #[inline]
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: an owned `ArcRef` holds one count of its `Arc`, released here once;
            // `self.arc` is not used after this.
            unsafe { ManuallyDrop::drop(&mut self.arc) }
        }
    }
}

/// An initialised NVML library. Cloning is cheap and shares it; `nvmlShutdown` runs when the
/// last clone and the last owned handle are dropped.
///
/// ```no_run
/// let nvml = nvml::Nvml::init()?;
/// for i in 0..nvml.device_count()? {
///     let gpu = nvml.device_by_index(i)?;
///     println!("{i}: {} {}", gpu.name()?, gpu.uuid()?);
/// }
/// # Ok::<(), nvml::Error>(())
/// ```
#[derive(Clone)]
pub struct Nvml {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Nvml {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvml").field("library", &self.inner.lib.path()).finish()
    }
}

impl Nvml {
    /// Loads the library (`NVML_LIBRARY_PATH` if set, else `libnvidia-ml.so.1`, then
    /// `libnvidia-ml.so`) and initialises it with `nvmlInit`.
    ///
    /// # Errors
    ///
    /// As [`Builder::init`].
    #[doc(alias = "nvmlInit_v2")]
    #[doc(alias = "nvmlInit")]
    pub fn init() -> Result<Nvml, Error> {
        Nvml::builder().init()
    }

    /// Options for loading and initialising.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// The raw function table, for what the safe API does not cover.
    pub fn lib(&self) -> &sys::NvmlLib {
        &self.inner.lib
    }

    /// How the running driver numbers the `NVML_FI_*` field ids: the numbering of the
    /// published nvml.h of its release, chosen at init from `nvmlSystemGetDriverVersion` (see
    /// [`sys::FieldNumbering::for_driver`]). A driver version that does not parse, or a library
    /// without `nvmlSystemGetDriverVersion`, gets the numbering of the header this crate was
    /// generated from ([`sys::FieldNumbering::newest`]). [`crate::Device::field_values`] sends
    /// each field by it.
    pub fn field_numbering(&self) -> sys::FieldNumbering {
        self.inner.fields
    }

    pub(crate) fn nref(&self) -> NvmlRef<'_> {
        NvmlRef::borrowed(&self.inner)
    }

    /// Shuts the library down now (`nvmlShutdown`) and returns its answer, when this is its
    /// last user: no clone of this `Nvml` and no owned handle (`into_owned`) is left.
    /// Otherwise nothing is shut down: this reference goes, the answer is
    /// [`Error::InUse`], and the library shuts down when its last user is dropped. Dropping an
    /// `Nvml` shuts down the same way, without an answer.
    ///
    /// # Errors
    ///
    /// [`Error::InUse`] while other users remain; [`Error::FunctionNotFound`] for a library
    /// without `nvmlShutdown`; else what `nvmlShutdown` answers (e.g.
    /// [`Error::Uninitialized`]).
    #[doc(alias = "nvmlShutdown")]
    pub fn shutdown(self) -> Result<(), Error> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => inner.shut_down(),
            Err(_) => Err(Error::InUse),
        }
    }
}

/// The field numbering of the initialised library's driver (`nvmlSystemGetDriverVersion`); the
/// newest when it cannot say or says something that is not a driver version.
fn driver_field_numbering(lib: &sys::NvmlLib) -> sys::FieldNumbering {
    let Ok(get) = lib.nvmlSystemGetDriverVersion() else {
        return sys::FieldNumbering::newest();
    };
    let mut buf = [0 as std::ffi::c_char; sys::NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as usize];
    if call!(get(buf.as_mut_ptr(), buf.len() as std::ffi::c_uint)) != sys::NVML_SUCCESS {
        return sys::FieldNumbering::newest();
    }
    sys::FieldNumbering::for_driver(&crate::ffi::string_from(&buf)).unwrap_or_default()
}

/// Where to load the library from and how to initialise it.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    path: Option<PathBuf>,
    flags: Option<InitFlags>,
}

impl Builder {
    /// Loads this file (or name, searched by the dynamic loader) instead of the defaults.
    pub fn library_path(mut self, path: impl Into<PathBuf>) -> Builder {
        self.path = Some(path.into());
        self
    }

    /// Initialises with `nvmlInitWithFlags(flags)` instead of `nvmlInit`.
    pub fn flags(mut self, flags: InitFlags) -> Builder {
        self.flags = Some(flags);
        self
    }

    /// Loads and initialises, then reads the driver's version (`nvmlSystemGetDriverVersion`)
    /// once, for [`Nvml::field_numbering`].
    ///
    /// # Errors
    ///
    /// [`Error::LibraryNotFound`] listing every path tried when no library can be loaded;
    /// [`Error::FunctionNotFound`] for a library without `nvmlInit_v2`/`nvmlInit` (or
    /// `nvmlInitWithFlags`); else what initialisation answers ([`Error::DriverNotLoaded`]
    /// without a running driver, [`Error::NoPermission`], [`Error::Unknown`]).
    #[doc(alias = "nvmlInit_v2")]
    #[doc(alias = "nvmlInit")]
    #[doc(alias = "nvmlInitWithFlags")]
    #[doc(alias = "nvmlSystemGetDriverVersion")]
    pub fn init(self) -> Result<Nvml, Error> {
        let opened = match &self.path {
            Some(p) => sys::NvmlLib::open_path(p),
            None => sys::NvmlLib::open(),
        };
        let lib = opened.map_err(|e| Error::LibraryNotFound(Some(Arc::new(e))))?;
        let code = match self.flags {
            Some(flags) => {
                let f = lib.nvmlInitWithFlags()?;
                call!(f(flags.bits()))
            }
            None => match lib.nvmlInit_newest()? {
                sys::nvmlInit_versions::nvmlInit_v2(f) => call!(f()),
                sys::nvmlInit_versions::nvmlInit(f) => call!(f()),
            },
        };
        // On failure `lib` is dropped without `nvmlShutdown`: there is nothing to shut down.
        crate::ffi::check(code)?;
        let fields = driver_field_numbering(&lib);
        let inner = Arc::new(Inner { lib, fields, shut_down: false });
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|w| w.strong_count() > 0);
            live.push(Arc::downgrade(&inner));
        }
        Ok(Nvml { inner })
    }
}
