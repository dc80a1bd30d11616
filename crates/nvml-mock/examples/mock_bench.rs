//! How fast the mock answers: a simple getter's cost per call, the same getter through a stub
//! library whose functions return at once (the cost of any call into a shared library), the
//! 8-GPU `h100` profile's `nvmlInit` + `nvmlShutdown`, a client session of a thousand
//! calls (init, enumerate, read, shutdown), the first `nvmlInit` of a process for every
//! built-in profile (each in a process of its own), an `nvml-mock ctl set` on the `h100`
//! while client processes poll every GPU, and the CUDA mock's `cuDeviceGetAttribute` (the
//! NVML getters' budget, 100 ns, is its target). Run with
//! `cargo build --release -p nvmlkit-mock && cargo run --release -p nvmlkit-mock --example mock_bench`
//! (the first builds the `nvml-mock` program the `ctl` figure runs).
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

/// `mock_bench --first-init`: this process's first `nvmlInit` (of `NVML_MOCK_PROFILE`), in ms.
fn first_init(lib: &NvmlLib) -> Result<(), Box<dyn std::error::Error>> {
    let init = lib.nvmlInit_v2()?;
    let t = Instant::now();
    // SAFETY: the function takes no arguments.
    let rc = unsafe { init() };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if rc != NVML_SUCCESS {
        return Err(format!("nvmlInit_v2 answered {rc}").into());
    }
    println!("{ms}");
    Ok(())
}

/// `mock_bench --poll`: two threads call a getter on every GPU until the input ends.
fn poll(lib: &'static NvmlLib) -> Result<(), Box<dyn std::error::Error>> {
    let (init, by_index, power) =
        (lib.nvmlInit_v2()?, lib.nvmlDeviceGetHandleByIndex_v2()?, lib.nvmlDeviceGetPowerUsage()?);
    // SAFETY: the functions are called with their prototypes and pointers valid for the call.
    unsafe {
        assert_eq!(init(), NVML_SUCCESS);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut mw = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        for i in 0..8 {
                            let mut d = std::ptr::null_mut();
                            by_index(i, &mut d);
                            power(d, &mut mw);
                        }
                    }
                })
            })
            .collect();
        println!("polling");
        let _ = std::io::stdin().lines().count();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in threads {
            let _ = t.join();
        }
    }
    Ok(())
}

/// The first `nvmlInit` of a process for each built-in profile: the median and the fastest of
/// `runs` processes each.
fn first_inits(exe: &Path, runs: usize) -> Result<(), Box<dyn std::error::Error>> {
    println!("first nvmlInit of a process, median of {runs} processes (fastest):");
    for profile in nvml_mock::testing::builtin_profiles() {
        let mut times = Vec::new();
        for _ in 0..runs {
            let out = std::process::Command::new(exe).arg("--first-init").env("NVML_MOCK_PROFILE", profile).output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            times.push(
                text.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("{profile}: {text}{}", String::from_utf8_lossy(&out.stderr)))?,
            );
        }
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        println!("  {profile}: {:.2} ms ({best:.2} ms)", median(times));
    }
    Ok(())
}

/// `nvml-mock ctl set` on the `h100` while two client processes of the session poll every GPU
/// with two threads each: the median and the slowest of `runs` commands.
fn ctl_latency(exe: &Path, program: &Path, runs: usize) -> Result<(), Box<dyn std::error::Error>> {
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("mock-bench-{}", std::process::id()));
    let session = "bench";
    let with_session = |cmd: &mut Command| {
        cmd.env("NVML_MOCK_PROFILE", "h100").env("NVML_MOCK_SESSION", session).env("NVML_MOCK_RUNTIME_DIR", &dir);
    };
    let mut clients = Vec::new();
    for _ in 0..2 {
        let mut cmd = Command::new(exe);
        cmd.arg("--poll").stdin(Stdio::piped()).stdout(Stdio::piped());
        with_session(&mut cmd);
        let mut child = cmd.spawn()?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().ok_or("no output")?), &mut line)?;
        if line.trim() != "polling" {
            return Err(format!("a client did not start: {line}").into());
        }
        clients.push(child);
    }
    let mut times = Vec::new();
    for i in 0..runs {
        let mut cmd = Command::new(program);
        cmd.args(["ctl", "set", &(i % 8).to_string(), "power.usage_mw", &(200_000 + i).to_string()]);
        with_session(&mut cmd);
        let t = Instant::now();
        let out = cmd.output()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if !out.status.success() {
            return Err(format!("ctl failed: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
    }
    for mut c in clients {
        drop(c.stdin.take());
        let _ = c.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
    let slowest = times.iter().copied().fold(0.0, f64::max);
    println!(
        "nvml-mock ctl set on the 8-GPU h100, two client processes polling: {:.1} ms (slowest of {runs}: {slowest:.1} ms)",
        median(times)
    );
    Ok(())
}

/// The CUDA mock's `cuDeviceGetAttribute` (of the library at `path`, after `cuInit`): the
/// median and the fastest of [`ROUNDS`] rounds, ns per call.
fn cuda_attribute(path: &Path) -> Result<(f64, f64), String> {
    use std::ffi::{c_int, c_uint, c_void, CString};
    let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: `dlopen` of the mock (loaded already) with a NUL-terminated path; `dlsym` with
    // NUL-terminated names; the symbols are the mock's exports of cuda.h's `cuInit` and
    // `cuDeviceGetAttribute`, called with their prototypes and a valid out-pointer.
    unsafe {
        let lib = libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW);
        if lib.is_null() {
            return Err(format!("cannot open {}", path.display()));
        }
        let sym = |name: &str| {
            let n = CString::new(name).unwrap_or_default();
            let p = libc::dlsym(lib, n.as_ptr());
            (!p.is_null()).then_some(p).ok_or(format!("{name} is not exported"))
        };
        let init: extern "C" fn(c_uint) -> c_uint = std::mem::transmute::<*mut c_void, _>(sym("cuInit")?);
        let attribute: extern "C" fn(*mut c_int, c_int, c_int) -> c_uint =
            std::mem::transmute::<*mut c_void, _>(sym("cuDeviceGetAttribute")?);
        if init(0) != 0 {
            return Err("cuInit failed".into());
        }
        let mut v: c_int = 0;
        // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
        if attribute(&mut v, 16, 0) != 0 || v <= 0 {
            return Err(format!("cuDeviceGetAttribute answered {v}"));
        }
        let calls = 100_000u32;
        let rounds: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                per_call(calls, || {
                    black_box(attribute(&mut v, black_box(16), black_box(0)));
                })
            })
            .collect();
        let best = rounds.iter().copied().fold(f64::INFINITY, f64::min);
        Ok((median(rounds), best))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // target/<profile>/examples/mock_bench → target/<profile>/deps/libnvml_mock.so, which cargo
    // rebuilds as a dependency of the example.
    let exe = std::env::current_exe()?;
    let target = exe.parent().and_then(Path::parent).ok_or("no target dir")?;
    let mode = std::env::args().nth(1);
    if mode.is_some() {
        let lib: &'static NvmlLib = Box::leak(Box::new(NvmlLib::open_path(target.join("deps/libnvml_mock.so"))?));
        return match mode.as_deref() {
            Some("--first-init") => first_init(lib),
            Some("--poll") => poll(lib),
            _ => Err("usage: mock_bench [--first-init | --poll]".into()),
        };
    }
    first_inits(&exe, 7)?;
    let program = target.join("nvml-mock");
    if program.is_file() {
        ctl_latency(&exe, &program, 21)?;
    } else {
        println!("{} is not built (cargo build --release -p nvmlkit-mock): no ctl figure", program.display());
    }
    // The profile measured: set before the library reads it, at its first nvmlInit.
    std::env::set_var("NVML_MOCK_PROFILE", "h100");
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
    match cuda_attribute(&target.join("deps/libnvml_mock.so")) {
        Ok((ns, best)) => println!(
            "CUDA: cuDeviceGetAttribute of the h100: {ns:.1} ns per call (fastest round {best:.1} ns; target 100 ns)"
        ),
        Err(e) => println!("CUDA: no cuDeviceGetAttribute figure: {e}"),
    }
    Ok(())
}
