//! How fast the mock answers: a simple getter's cost per call, the same getter through a stub
//! library whose functions return at once (the cost of any call into a shared library), the
//! 8-GPU `h100` profile's `nvmlInit` + `nvmlShutdown`, and a client session of a thousand
//! calls (init, enumerate, read, shutdown). Run with
//! `cargo run --release -p nvmlkit-mock --example mock_bench`.
//!
//! Each figure is the median of many rounds (and the fastest round beside it), so that a
//! machine busy with other work shows in the spread rather than in the figure.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use nvml_sys::*;

/// Rounds of each measurement.
const ROUNDS: usize = 31;

/// The time per call of `calls` calls of `f`, in nanoseconds.
fn per_call(calls: u32, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..calls {
        f();
    }
    t.elapsed().as_nanos() as f64 / f64::from(calls)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median and the fastest of `rounds` runs of `f`, each timed and divided by `per`.
fn measure(rounds: usize, per: f64, mut f: impl FnMut()) -> (f64, f64) {
    let times: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64 / per
        })
        .collect();
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    (median(times), best)
}

/// A library exporting `nvmlDeviceGetPowerUsage` that writes 0 and returns `NVML_SUCCESS`,
/// compiled with the C compiler (`$CC`, else `cc`) into `dir`.
fn stub_library(dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (source, lib) = (dir.join("stub.c"), dir.join("libnvml_stub.so"));
    let code =
        "int nvmlDeviceGetPowerUsage(void *device, unsigned int *power) { (void)device; *power = 0; return 0; }\n";
    std::fs::write(&source, code).map_err(|e| format!("{}: {e}", source.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = std::process::Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&source)
        .output()
        .map_err(|e| format!("could not run the C compiler `{cc}`: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{cc}` failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(lib)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The profile measured: set before the library reads it, at its first nvmlInit.
    std::env::set_var("NVML_MOCK_PROFILE", "h100");
    // target/<profile>/examples/mock_bench → target/<profile>/deps/libnvml_mock.so, which cargo
    // rebuilds as a dependency of the example.
    let exe = std::env::current_exe()?;
    let target = exe.parent().and_then(Path::parent).ok_or("no target dir")?;
    let lib = NvmlLib::open_path(target.join("deps/libnvml_mock.so"))?;
    let (init, shutdown) = (lib.nvmlInit_v2()?, lib.nvmlShutdown()?);
    let (by_index, power, clock, name) = (
        lib.nvmlDeviceGetHandleByIndex_v2()?,
        lib.nvmlDeviceGetPowerUsage()?,
        lib.nvmlDeviceGetClockInfo()?,
        lib.nvmlDeviceGetName()?,
    );
    let calls = 100_000u32;
    let mut mw = 0;
    // SAFETY: every pointer passed below is valid for the call it is passed to, and the
    // functions are those of the header's prototypes.
    unsafe {
        let t = Instant::now();
        assert_eq!(init(), NVML_SUCCESS);
        let first_init = t.elapsed().as_secs_f64() * 1e3;
        let mut dev = std::ptr::null_mut();
        assert_eq!(by_index(0, &mut dev), NVML_SUCCESS);
        // The mock's getter and the stub's, in alternating rounds: the ratio is the median of
        // the rounds' ratios, which a machine's drift hits alike.
        let stub = stub_library(&target.join("mock_bench_stub"));
        let stub = match &stub {
            Ok(path) => Some(NvmlLib::open_path(path)?),
            Err(e) => {
                println!("the stub library could not be built ({e}): no ratio");
                None
            }
        };
        let stub_power = stub.as_ref().map(|s| s.nvmlDeviceGetPowerUsage()).transpose()?;
        let mut rounds = Vec::new();
        for round in 0..=ROUNDS {
            let mock_ns = per_call(calls, || {
                black_box(power(black_box(dev), &mut mw));
            });
            let stub_ns = stub_power.map(|f| {
                per_call(calls, || {
                    black_box(f(black_box(dev), &mut mw));
                })
            });
            if round > 0 {
                rounds.push((mock_ns, stub_ns));
            }
        }
        assert_eq!(shutdown(), NVML_SUCCESS);
        println!("first nvmlInit of the process (reads and resolves the h100 profile): {first_init:.2} ms");
        let getter = median(rounds.iter().map(|r| r.0).collect());
        let best = rounds.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        println!("simple getter (nvmlDeviceGetPowerUsage): {getter:.0} ns per call (fastest round {best:.0} ns)");
        if stub_power.is_some() {
            let floor = median(rounds.iter().filter_map(|r| r.1).collect());
            let ratio = median(rounds.iter().filter_map(|r| Some(r.0 / r.1?)).collect());
            println!(
                "the same getter through a stub library that returns at once: {floor:.1} ns per call; the mock takes {ratio:.0}x that"
            );
        }

        let cycles = 200;
        let (lifecycle, lifecycle_best) = measure(ROUNDS, cycles as f64, || {
            for _ in 0..cycles {
                assert_eq!(init(), NVML_SUCCESS);
                assert_eq!(shutdown(), NVML_SUCCESS);
            }
        });
        println!(
            "nvmlInit + nvmlShutdown of the 8-GPU h100 profile: {:.3} ms (fastest round {:.3} ms)",
            lifecycle / 1e6,
            lifecycle_best / 1e6
        );

        let sessions = 20;
        let (session, session_best) = measure(ROUNDS, sessions as f64, || {
            for _ in 0..sessions {
                // 1 + 2 + 249 * 4 + 1 calls.
                assert_eq!(init(), NVML_SUCCESS);
                let mut d = std::ptr::null_mut();
                by_index(0, &mut d);
                power(d, &mut mw);
                let mut buf = [0 as std::ffi::c_char; 96];
                for i in 0..249 {
                    by_index(i % 8, &mut d);
                    power(d, &mut mw);
                    clock(d, NVML_CLOCK_SM, &mut mw);
                    name(d, buf.as_mut_ptr(), 96);
                }
                assert_eq!(shutdown(), NVML_SUCCESS);
            }
        });
        println!(
            "client session of 1000 calls (init .. shutdown): {:.3} ms (fastest round {:.3} ms)",
            session / 1e6,
            session_best / 1e6
        );
    }
    Ok(())
}
