//! Gives the mock the soname of the real library, so programs linked against it with
//! `-lnvidia-ml` (and `-Wl,-z,now`) load it as `libnvidia-ml.so.1`.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libnvidia-ml.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
