//! `libcuda.so.1`, the CUDA driver API of nvmlkit-mock: a standard ELF filter of
//! `libnvml_mock.so` (`build.rs`), whose exports answer every function of `cuda.h` (the mock's
//! README, "The CUDA mock"). This library holds the symbols, for the link editor (`-lcuda`)
//! and for `dlsym`; the dynamic linker resolves each to the mock's, so NVML and CUDA share one
//! engine in a process.

/// One exported symbol per function of `cuda.h`; never run (the filter's symbols resolve to
/// the mock's), each answers `CUDA_ERROR_UNKNOWN` all the same.
macro_rules! symbols {
    ($($name:ident),* $(,)?) => {
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> u32 {
                999
            }
        )*
    };
}

#[rustfmt::skip] // written by the generator (prettyplease)
#[allow(non_snake_case)]
mod generated {
    pub mod symbols;
}
