//! Makes the library `libcuda.so.1` (its soname, so programs linked with `-lcuda` load it by
//! that name) and a standard ELF filter of `libnvml_mock.so`, which the dynamic linker looks
//! for beside it (`$ORIGIN`): every symbol looked up in it resolves to that library's, so a
//! process that loads both has one mock, whose NVML counts what its CUDA does. Without
//! `libnvml_mock.so` beside it, it does not load (the dynamic linker names the file).

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libcuda.so.1");
        println!("cargo:rustc-link-arg-cdylib=-Wl,--filter,libnvml_mock.so");
        println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,$ORIGIN");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
