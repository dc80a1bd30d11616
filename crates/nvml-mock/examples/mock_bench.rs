//! How fast the mock answers: a simple getter's cost per call, and a client session of a
//! thousand calls (init, enumerate, read, shutdown). Run with
//! `cargo run --release -p nvmlkit-mock --example mock_bench`.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use nvml_sys::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // target/<profile>/examples/mock_bench → target/<profile>/deps/libnvml_mock.so, which cargo
    // rebuilds as a dependency of the example.
    let exe = std::env::current_exe()?;
    let lib_path =
        exe.parent().and_then(Path::parent).map(|d| d.join("deps/libnvml_mock.so")).ok_or("no target dir")?;
    let lib = NvmlLib::open_path(&lib_path)?;
    let (init, shutdown) = (lib.nvmlInit_v2()?, lib.nvmlShutdown()?);
    let (by_index, power, clock, name) = (
        lib.nvmlDeviceGetHandleByIndex_v2()?,
        lib.nvmlDeviceGetPowerUsage()?,
        lib.nvmlDeviceGetClockInfo()?,
        lib.nvmlDeviceGetName()?,
    );
    // SAFETY: every pointer passed below is valid for the call it is passed to.
    unsafe {
        assert_eq!(init(), NVML_SUCCESS);
        let mut dev = std::ptr::null_mut();
        assert_eq!(by_index(0, &mut dev), NVML_SUCCESS);
        let mut mw = 0;
        let n = 1_000_000;
        let t = Instant::now();
        for _ in 0..n {
            black_box(power(black_box(dev), &mut mw));
        }
        let per_call = t.elapsed().as_nanos() as f64 / n as f64;
        assert_eq!(shutdown(), NVML_SUCCESS);
        println!("simple getter (nvmlDeviceGetPowerUsage): {per_call:.0} ns per call");

        let sessions = 200;
        let t = Instant::now();
        for _ in 0..sessions {
            assert_eq!(init(), NVML_SUCCESS);
            let mut calls = 1;
            let mut buf = [0 as std::ffi::c_char; 96];
            while calls < 999 {
                let mut d = std::ptr::null_mut();
                by_index(calls % 8, &mut d);
                power(d, &mut mw);
                clock(d, NVML_CLOCK_SM, &mut mw);
                name(d, buf.as_mut_ptr(), 96);
                calls += 4;
            }
            assert_eq!(shutdown(), NVML_SUCCESS);
        }
        let per_session = t.elapsed().as_secs_f64() * 1e3 / sessions as f64;
        println!("client session of 1000 calls (init .. shutdown): {per_session:.3} ms");
    }
    Ok(())
}
