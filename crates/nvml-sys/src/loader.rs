//! Opening the NVML library at run time and resolving its symbols on first use.

use std::error::Error;
use std::ffi::{c_void, OsStr};
use std::fmt;
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicPtr, Ordering};

use super::generated::SYMBOLS;

/// Environment variable that, when set, names the library to load instead of the defaults.
pub const LIBRARY_PATH_ENV: &str = "NVML_LIBRARY_PATH";

/// Library names tried in order by [`NvmlLib::open`].
#[cfg(not(windows))]
pub const DEFAULT_LIBRARY_NAMES: &[&str] = &["libnvidia-ml.so.1", "libnvidia-ml.so"];
/// Library names tried in order by [`NvmlLib::open`].
#[cfg(windows)]
pub const DEFAULT_LIBRARY_NAMES: &[&str] = &["nvml.dll"];

/// Slot value for a symbol looked up and not found (no real symbol lives at address 1).
const MISSING: *mut c_void = NonNull::<u8>::dangling().as_ptr().cast();

/// A loaded NVML library: the function table of `nvml.h`, resolved lazily.
///
/// Opening costs one `dlopen`; each function costs one `dlsym` the first time it is used and
/// an atomic load after that. `NvmlLib` is `Send + Sync`: NVML itself is thread-safe.
pub struct NvmlLib {
    lib: libloading::Library,
    path: PathBuf,
    /// One per entry of `SYMBOLS`: null until looked up, then the address or `MISSING`. Held
    /// in the struct (not boxed) and sized by `SYMBOLS`, so that a call loads its slot at a
    /// fixed offset with no bounds check.
    slots: [AtomicPtr<c_void>; SYMBOLS.len()],
}

impl fmt::Debug for NvmlLib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NvmlLib").field("path", &self.path).finish_non_exhaustive()
    }
}

impl NvmlLib {
    /// Opens the library named by `NVML_LIBRARY_PATH` if that is set, else the first of
    /// [`DEFAULT_LIBRARY_NAMES`] the dynamic loader finds.
    pub fn open() -> Result<NvmlLib, LoadError> {
        if let Some(path) = std::env::var_os(LIBRARY_PATH_ENV).filter(|p| !p.is_empty()) {
            return NvmlLib::open_path(path).map_err(|mut e| {
                e.from_env = true;
                e
            });
        }
        let mut attempts = Vec::new();
        for name in DEFAULT_LIBRARY_NAMES {
            match NvmlLib::open_path(name) {
                Ok(lib) => return Ok(lib),
                Err(e) => attempts.extend(e.attempts),
            }
        }
        Err(LoadError { attempts, from_env: false })
    }

    /// Opens the library at `path` (a file name is searched for by the dynamic loader).
    pub fn open_path(path: impl AsRef<OsStr>) -> Result<NvmlLib, LoadError> {
        let path = path.as_ref();
        // SAFETY: loading a shared library runs its initialisers. NVML's (and the mock's)
        // have no preconditions; the caller chose the library, which is the contract of any
        // dynamic loading.
        match unsafe { libloading::Library::new(path) } {
            Ok(lib) => Ok(NvmlLib {
                lib,
                path: PathBuf::from(path),
                slots: [const { AtomicPtr::new(ptr::null_mut()) }; SYMBOLS.len()],
            }),
            Err(e) => Err(LoadError { attempts: vec![(PathBuf::from(path), e.to_string())], from_env: false }),
        }
    }

    /// The path or name the library was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying library, for symbols newer than the header this crate was built from.
    pub fn library(&self) -> &libloading::Library {
        &self.lib
    }

    /// Whether the library exports `symbol`, one of [`SYMBOLS`].
    pub fn has_symbol(&self, symbol: &str) -> bool {
        SYMBOLS.iter().position(|s| *s == symbol).is_some_and(|slot| self.symbol(slot).is_ok())
    }

    /// The address of `SYMBOLS[slot]`, looked up on first use.
    #[inline]
    pub(crate) fn symbol(&self, slot: usize) -> Result<*mut c_void, MissingSymbol> {
        let p = self.slots[slot].load(Ordering::Acquire);
        // One comparison on the fast path: null (not looked up) is 0 and `MISSING` is 1.
        if (p as usize) <= MISSING as usize {
            return self.unresolved(slot, p);
        }
        Ok(p)
    }

    /// `symbol` for a slot not looked up yet (null) or looked up and missing.
    #[cold]
    fn unresolved(&self, slot: usize, p: *mut c_void) -> Result<*mut c_void, MissingSymbol> {
        if p.is_null() {
            return self.lookup(slot);
        }
        Err(MissingSymbol::new(std::slice::from_ref(&SYMBOLS[slot])))
    }

    #[cold]
    fn lookup(&self, slot: usize) -> Result<*mut c_void, MissingSymbol> {
        let name = SYMBOLS[slot];
        // SAFETY: the symbol is read as an untyped address and never called here; it is only
        // turned into a function pointer by `resolve`, with the prototype from nvml.h.
        let found = unsafe { self.lib.get::<*mut c_void>(name.as_bytes()) }.ok().map(|s| *s).filter(|p| !p.is_null());
        self.slots[slot].store(found.unwrap_or(MISSING), Ordering::Release);
        found.ok_or(MissingSymbol::new(std::slice::from_ref(&SYMBOLS[slot])))
    }

    /// `SYMBOLS[slot]` as the function-pointer type `F`. Only the generated accessors call
    /// this, each with the `PFN_` type of its own slot.
    #[inline]
    pub(crate) fn resolve<F: Copy>(&self, slot: usize) -> Result<F, MissingSymbol> {
        const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
        let p = self.symbol(slot)?;
        // SAFETY: `p` is the non-null address of the exported function `SYMBOLS[slot]`, and
        // the generated caller passes as `F` the `unsafe extern "C" fn` type of that
        // function's prototype in nvml.h, which has the size of a pointer (checked above).
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }
}

/// The library could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Each path tried, with the loader's reason for refusing it.
    pub attempts: Vec<(PathBuf, String)>,
    /// Whether the path came from `NVML_LIBRARY_PATH`.
    pub from_env: bool,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not load the NVML library")?;
        if self.from_env {
            write!(f, " named by {LIBRARY_PATH_ENV}")?;
        }
        write!(f, "; tried")?;
        for (i, (path, why)) in self.attempts.iter().enumerate() {
            write!(f, "{} {} ({why})", if i == 0 { "" } else { ";" }, path.display())?;
        }
        if !self.from_env {
            write!(f, ". Is the NVIDIA driver installed? Set {LIBRARY_PATH_ENV} to load another library")?;
        }
        Ok(())
    }
}

impl Error for LoadError {}

/// The loaded library does not export a function (or any version of a family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingSymbol {
    tried: &'static [&'static str],
}

impl MissingSymbol {
    /// A missing symbol, or a family of which no version was found (newest first).
    pub const fn new(tried: &'static [&'static str]) -> MissingSymbol {
        MissingSymbol { tried }
    }

    /// The symbol asked for: the newest version, for a family.
    pub fn symbol(&self) -> &'static str {
        self.tried.first().copied().unwrap_or("")
    }

    /// Every symbol that was looked up.
    pub fn tried(&self) -> &'static [&'static str] {
        self.tried
    }
}

impl fmt::Display for MissingSymbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tried {
            [one] => write!(f, "the NVML library does not export `{one}` (it predates that function?)"),
            many => write!(f, "the NVML library exports none of `{}`", many.join("`, `")),
        }
    }
}

impl Error for MissingSymbol {}
