//! Clients of the CUDA mock: a C program linked with `-lcuda -lnvidia-ml -Wl,-z,now` (the
//! driver's codes for bad input, `cuGetProcAddress`, contexts, memory seen by NVML in the same
//! process and, in a session, by another process until the allocating one exits), and NVIDIA's
//! cuda-bindings against every built-in profile, compared with pynvml
//! (`tests/cuda_bindings.py`; skipped when it is not installed, unless
//! `NVML_MOCK_REQUIRE_CUDA_BINDINGS` is set, as CI sets it).
//!
//! Each runs in processes of its own, loading the libraries from a directory where they have
//! the driver's names (`libcuda.so.1`, `libnvidia-ml.so.1`) beside `libnvml_mock.so`, as a user
//! would put them on `LD_LIBRARY_PATH`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nvml_mock::testing::{builtin_profiles, have_python_module, CLEARED_ENV};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A directory where the built libraries have the driver's names: `libcuda.so.1` and
/// `libcuda.so` (this package's library), `libnvidia-ml.so.1` and `libnvidia-ml.so`, and
/// `libnvml_mock.so` itself, which `libcuda.so.1` filters.
fn lib_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("the test binary's directory");
    let find = |file: &str| {
        [deps.join(file), deps.join("..").join(file)]
            .into_iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{file} is not built next to {}", deps.display()))
    };
    let (cuda, nvml) = (find("libcuda_mock.so"), find("libnvml_mock.so"));
    let dir = std::env::temp_dir().join(format!("nvmlkit-cuda-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory for the libraries");
    for (link, target) in [
        ("libcuda.so.1", &cuda),
        ("libcuda.so", &cuda),
        ("libnvml_mock.so", &nvml),
        ("libnvidia-ml.so.1", &nvml),
        ("libnvidia-ml.so", &nvml),
    ] {
        std::os::unix::fs::symlink(target, dir.join(link)).expect("a link to a library");
    }
    dir
}

fn command(program: &Path, lib: &Path) -> Command {
    let mut c = Command::new(program);
    for var in CLEARED_ENV {
        c.env_remove(var);
    }
    c.env_remove("CUDA_VISIBLE_DEVICES").env_remove("CUDA_DEVICE_ORDER").env("LD_LIBRARY_PATH", lib);
    c
}

/// `-I` of the newest vendored header of `dir` (`cuda-headers`, `nvml-headers`).
fn header(dir: &str) -> String {
    let base = root().join(dir);
    let newest = std::fs::read_dir(&base)
        .expect("the vendored headers")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("provenance.yaml").is_file())
        .max()
        .expect("a vendored header");
    format!("-I{}", newest.display())
}

/// The include flag for the NVML mock's C helpers (`check.h`, `guard.h`), which these clients share.
fn mock_c_dir() -> String {
    format!("-I{}", root().join("crates/nvml-mock/tests/c").display())
}

/// `tests/c/NAME.c` compiled into `lib` with `flags`, linked with the libraries there.
fn compile(lib: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let exe = lib.join(name);
    let out = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
        .arg(root().join(format!("crates/cuda-mock/tests/c/{name}.c")))
        .args(flags)
        .args(["-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .args(["-lcuda", "-lnvidia-ml", "-Wl,-z,now"])
        .output()
        .expect("the C compiler `cc` ($CC)");
    assert!(out.status.success(), "{name}.c does not compile:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// The C client, compiled against the vendored `cuda.h` and `nvml.h`.
fn client(lib: &Path) -> PathBuf {
    // The deprecated functions (cuDeviceComputeCapability) are the driver's too.
    compile(
        lib,
        "client",
        &[&header("cuda-headers"), &header("nvml-headers"), &mock_c_dir(), "-DCUDA_ENABLE_DEPRECATED"],
    )
}

/// The functions the mock's `libcuda.so.1` answers (not with `CUDA_ERROR_NOT_SUPPORTED`), each
/// with whether a parameter is a pointer, from the generated exports: an export of a function
/// of `gen-config/cuda.yaml` hands its call to `cuda::<module>::<function>`.
fn answered_functions() -> Vec<(String, bool)> {
    let dir = root().join("crates/nvml-mock/src/generated/cuda/exports");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the generated exports").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("an exports file");
        for item in text.split("pub unsafe extern \"C\" fn ").skip(1) {
            let name = item.split('(').next().unwrap_or_default().trim().to_string();
            let Some((params, rest)) = item.split_once(") -> CUresult") else { continue };
            let body = rest.split("#[no_mangle]").next().unwrap_or_default();
            if body.contains(&format!("::{name}(")) && !body.contains("unsupported(") {
                out.push((name, params.contains("*mut") || params.contains("*const")));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_cuda_mock_touches_no_byte_outside_a_callers_buffer() {
    let lib = lib_dir("guard");
    // Every name is the symbol it spells: the legacy `cuDeviceTotalMem` takes 32 bits.
    let exe = compile(
        lib.as_path(),
        "guard_pages",
        &[&header("cuda-headers"), &mock_c_dir(), "-D__CUDA_API_VERSION_INTERNAL"],
    );
    let answered = answered_functions();
    assert!(answered.len() > 40, "the exports answer {} functions: {answered:?}", answered.len());
    for profile in ["h100", "a100", "b200", "t4", "l40s-vgpu"] {
        let out = command(&exe, &lib).env("NVML_MOCK_PROFILE", profile).output().expect("the harness");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("ok (0 failures)"),
            "{profile}:\n{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let called: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("CALLED ")).collect();
        let missing: Vec<&str> =
            answered.iter().filter(|(f, ptr)| *ptr && !called.contains(&f.as_str())).map(|(f, _)| f.as_str()).collect();
        assert!(missing.is_empty(), "{profile}: functions with a pointer the harness does not call: {missing:?}");
        let devices = text.lines().find_map(|l| l.strip_prefix("DEVICES ")).unwrap_or("?");
        eprintln!(
            "{profile}: {} functions with pointers called on {devices} devices, no byte touched outside",
            called.len()
        );
    }
}

#[test]
fn a_c_client_linked_with_lcuda_gets_the_drivers_codes_and_nvml_sees_its_memory() {
    let lib = lib_dir("check");
    let exe = client(&lib);
    let needed = Command::new("readelf").arg("-d").arg(&exe).output();
    if let Ok(o) = needed {
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("[libcuda.so.1]"), "the client needs libcuda.so.1:\n{text}");
    }
    for profile in ["h100", "t4", "a100-r525"] {
        let out = command(&exe, &lib).arg("check").env("NVML_MOCK_PROFILE", profile).output().expect("the client");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("ok (0 failures)"),
            "{profile}:\n{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `(used bytes, [(pid, bytes)])` of GPU 0 that a new process of the session reads in NVML.
fn report(exe: &Path, lib: &Path, env: &[(&str, &str)]) -> (u64, Vec<(u32, u64)>) {
    let out = command(exe, lib).arg("report").envs(env.iter().copied()).output().expect("the client");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "report:\n{text}");
    let mut used = None;
    let mut procs = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["used", n] => used = n.parse().ok(),
            ["process", pid, bytes] => procs.push((pid.parse().expect("a pid"), bytes.parse().expect("bytes"))),
            _ => {}
        }
    }
    (used.expect("the used memory"), procs)
}

#[test]
fn a_cuda_allocation_shows_in_another_process_of_the_session_until_its_process_exits() {
    let lib = lib_dir("session");
    let exe = client(&lib);
    let runtime = lib.join("runtime");
    let runtime_s = runtime.display().to_string();
    let env = [
        ("NVML_MOCK_PROFILE", "h100"),
        ("NVML_MOCK_SESSION", "cuda-memory"),
        ("NVML_MOCK_RUNTIME_DIR", runtime_s.as_str()),
    ];
    let (used0, procs0) = report(&exe, &lib, &env);

    let mut holder = command(&exe, &lib)
        .args(["hold", "3072"])
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the holding client");
    let mut line = String::new();
    BufReader::new(holder.stdout.take().expect("its stdout")).read_line(&mut line).expect("its first line");
    let pid: u32 =
        line.strip_prefix("held ").and_then(|p| p.trim().parse().ok()).unwrap_or_else(|| panic!("holder: {line}"));

    let (used1, procs1) = report(&exe, &lib, &env);
    assert_eq!(used1 - used0, 3072 << 20, "NVML's used memory with the allocation");
    assert!(procs1.contains(&(pid, 3072 << 20)), "the holder {pid} among {procs1:?}");
    assert_eq!(procs1.len(), procs0.len() + 1);

    // A process outside the session sees nothing of it.
    let (used_alone, _) = report(&exe, &lib, &[("NVML_MOCK_PROFILE", "h100")]);
    assert_eq!(used_alone, used0);

    drop(holder.stdin.take().map(|mut s| s.flush()));
    assert!(holder.wait().expect("the holder's exit").success());
    let (used2, procs2) = report(&exe, &lib, &env);
    assert_eq!((used2, procs2), (used0, procs0), "the memory goes with its process");
}

#[test]
fn cuda_bindings_sees_the_gpus_pynvml_sees_on_every_profile() {
    let require = "NVML_MOCK_REQUIRE_CUDA_BINDINGS";
    if !have_python_module("cuda.bindings.driver", require, "pip install cuda-bindings")
        || !have_python_module("pynvml", require, "pip install nvidia-ml-py")
    {
        return;
    }
    let lib = lib_dir("bindings");
    let script = root().join("crates/cuda-mock/tests/cuda_bindings.py");
    for profile in builtin_profiles() {
        let out = command(Path::new("python3"), &lib)
            .arg(&script)
            .arg("check")
            .env("NVML_MOCK_PROFILE", profile)
            .output()
            .expect("python3");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.trim_end().ends_with("ok"), "{profile}:\n{text}");
        eprintln!("{profile}: {} CUDA devices as NVML shows them", text.lines().filter(|l| l.contains(" sm_")).count());
    }
}

/// What a `watch` client prints for one line of its stdin: the lines up to `end`.
fn look(stdin: &mut impl Write, stdout: &mut impl BufRead) -> Vec<String> {
    writeln!(stdin, "look").expect("the watcher's stdin");
    stdin.flush().expect("the watcher's stdin");
    let mut out = Vec::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).expect("the watcher's output") == 0 {
            panic!("the watcher stopped: {out:?}");
        }
        if line.trim() == "end" {
            return out;
        }
        out.push(line.trim().to_string());
    }
}

#[test]
fn ctl_changes_reach_cuda_in_a_running_process() {
    let lib = lib_dir("ctl");
    let exe = client(&lib);
    let runtime = lib.join("runtime");
    // `ctl` below runs in this process and finds the session by this variable, as the clients do.
    std::env::set_var("NVML_MOCK_RUNTIME_DIR", &runtime);
    let runtime_s = runtime.display().to_string();
    let env = [
        ("NVML_MOCK_PROFILE", "h100"),
        ("NVML_MOCK_SESSION", "cuda-ctl"),
        ("NVML_MOCK_RUNTIME_DIR", runtime_s.as_str()),
    ];
    let mut watcher = command(&exe, &lib)
        .arg("watch")
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the watching client");
    let mut stdin = watcher.stdin.take().expect("its stdin");
    let mut stdout = BufReader::new(watcher.stdout.take().expect("its stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("its first line");
    assert_eq!(first.trim(), "ready");
    let before = look(&mut stdin, &mut stdout);
    assert_eq!(before[0], "device 0 name 0 NVIDIA H100 80GB HBM3 attribute 0", "{before:?}");
    let total: u64 = before[2].split_whitespace().nth(2).and_then(|t| t.parse().ok()).expect("a total");

    // The CUDA devices of this profile are its GPUs in PCI order: device 0 is GPU 0.
    nvml_mock::testing::ctl("cuda-ctl", &["set", "0", "nvmlDeviceGetName", "NVIDIA H100 renamed"]).expect("ctl set");
    nvml_mock::testing::ctl("cuda-ctl", &["set", "0", "memory.used", "10737418240"]).expect("ctl set");
    nvml_mock::testing::ctl("cuda-ctl", &["lost", "1"]).expect("ctl lost");
    let after = look(&mut stdin, &mut stdout);
    assert_eq!(after[0], "device 0 name 0 NVIDIA H100 renamed attribute 0", "{after:?}");
    assert_eq!(after[1], "device 1 name 999 - attribute 999", "a lost GPU: {after:?}");
    let free: u64 = after[2].split_whitespace().nth(1).and_then(|t| t.parse().ok()).expect("free memory");
    assert!(free <= total - (10 << 30), "CUDA's free memory follows NVML's used memory: {after:?}");

    // `ctl error` of a CUDA function, for one call across the session.
    let said = nvml_mock::testing::ctl(
        "cuda-ctl",
        &["error", "0", "cuDeviceGetAttribute", "CUDA_ERROR_ECC_UNCORRECTABLE", "--times", "1"],
    );
    assert_eq!(said.as_deref(), Ok("GPU 0: cuDeviceGetAttribute answers CUDA_ERROR_ECC_UNCORRECTABLE for 1 calls"));
    let bad = nvml_mock::testing::ctl("cuda-ctl", &["error", "0", "cuDeviceGetAttribute", "NVML_ERROR_UNKNOWN"]);
    assert!(bad.is_err_and(|e| e.contains("is not a CUDA error code")));
    let once = look(&mut stdin, &mut stdout);
    assert_eq!(once[0], "device 0 name 0 NVIDIA H100 renamed attribute 214", "{once:?}");
    let then = look(&mut stdin, &mut stdout);
    assert_eq!(then[0], "device 0 name 0 NVIDIA H100 renamed attribute 0", "{then:?}");

    nvml_mock::testing::ctl("cuda-ctl", &["reset"]).expect("ctl reset");
    let reset = look(&mut stdin, &mut stdout);
    assert_eq!(reset[..2], before[..2], "as the profile says again: {reset:?}");
    drop(stdin);
    assert!(watcher.wait().expect("the watcher's exit").success());
}

/// Every `cuda` subtree of a profile's YAML, with its path.
fn cuda_views(yaml: &str) -> Vec<(String, serde_yaml::Value)> {
    fn walk(v: &serde_yaml::Value, path: &str, out: &mut Vec<(String, serde_yaml::Value)>) {
        match v {
            serde_yaml::Value::Mapping(m) => {
                for (k, v) in m {
                    let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_string);
                    let here = format!("{path}/{key}");
                    if key == "cuda" {
                        out.push((here, v.clone()));
                    } else {
                        walk(v, &here, out);
                    }
                }
            }
            serde_yaml::Value::Sequence(s) => {
                s.iter().enumerate().for_each(|(i, v)| walk(v, &format!("{path}[{i}]"), out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_yaml::from_str(yaml).expect("a profile"), "", &mut out);
    out
}

/// Child of the round trip: captures the libraries of `lib` (the NVML mock under `NVML_MOCK_PROFILE`)
/// into `out`.
fn capture_into(lib: &Path, out: &Path) {
    let opts = nvml_mock::capture::Options {
        library: Some(lib.join("libnvidia-ml.so.1")),
        cuda_library: Some(lib.join("libcuda.so.1")),
        mock: Some(lib.join("libnvml_mock.so")),
        name: "captured".to_string(),
        keep_ids: true,
        no_verify: true,
        no_probes: true,
        ..Default::default()
    };
    let captured = nvml_mock::capture::capture(&opts).unwrap_or_else(|e| panic!("capture: {e}"));
    assert!(captured.report.iter().any(|l| l.starts_with("recorded the CUDA view")), "{:?}", captured.report);
    std::fs::write(out, captured.yaml).expect("the captured profile");
}

#[test]
fn a_capture_records_the_cuda_view_and_the_replay_answers_it_exactly() {
    const OUT: &str = "NVMLKIT_CUDA_CAPTURE_OUT";
    const LIB: &str = "NVMLKIT_CUDA_CAPTURE_LIB";
    if std::env::var_os(nvml_mock::testing::CHILD_ENV).is_some() {
        let (lib, out) = (std::env::var_os(LIB).expect("the libraries"), std::env::var_os(OUT).expect("the output"));
        capture_into(Path::new(&lib), Path::new(&out));
        return;
    }
    let lib = lib_dir("capture");
    let run = |profile: &Path, out: &Path| {
        let exe = std::env::current_exe().expect("this test binary");
        let status = command(&exe, &lib)
            .args(["--exact", "a_capture_records_the_cuda_view_and_the_replay_answers_it_exactly", "--nocapture"])
            .env(nvml_mock::testing::CHILD_ENV, "1")
            .env("NVML_MOCK_PROFILE", profile)
            .env(LIB, &lib)
            .env(OUT, out)
            .status()
            .expect("the capturing child");
        assert!(status.success(), "the capture of {} failed", profile.display());
        std::fs::read_to_string(out).expect("the captured profile")
    };
    // The machine: the mock's h100. Its recorded L2 size is then changed, so that the replay is
    // seen to answer the recording rather than derive the figure again.
    let first = run(Path::new("h100"), &lib.join("first.yaml"));
    let l2 = "L2_CACHE_SIZE: 52428800";
    assert!(first.contains(l2), "the capture holds the attributes:\n{}", &first[..first.len().min(3000)]);
    let edited = first.replace(l2, "L2_CACHE_SIZE: 12345");
    let profile = lib.join("edited.yaml");
    std::fs::write(&profile, &edited).expect("the edited profile");
    let second = run(&profile, &lib.join("second.yaml"));
    let (recorded, replayed) = (cuda_views(&edited), cuda_views(&second));
    assert!(!recorded.is_empty());
    let count = |v: &[(String, serde_yaml::Value)]| {
        v.iter().filter_map(|(_, v)| v.get("attributes")?.as_mapping().map(|m| m.len())).max().unwrap_or(0)
    };
    assert!(count(&recorded) > 150, "every attribute is recorded: {}", count(&recorded));
    let differ: Vec<String> = recorded
        .iter()
        .zip(&replayed)
        .flat_map(|((p, a), (q, b))| {
            let keys = |v: &serde_yaml::Value| {
                v.as_mapping().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default()
            };
            let mut out: Vec<String> = keys(a)
                .into_iter()
                .filter(|k| a.get(k) != b.get(k) && k.as_str() != Some("attributes"))
                .map(|k| format!("{p} {k:?}: {:?} / {q}: {:?}", a.get(&k), b.get(&k)))
                .collect();
            if let (Some(x), Some(y)) =
                (a.get("attributes").and_then(|v| v.as_mapping()), b.get("attributes").and_then(|v| v.as_mapping()))
            {
                out.extend(
                    x.iter()
                        .filter(|(k, v)| y.get(*k) != Some(*v))
                        .map(|(k, v)| format!("{p} {k:?}: {v:?} / {:?}", y.get(k))),
                );
            }
            out
        })
        .collect();
    assert!(
        differ.is_empty() && recorded.len() == replayed.len(),
        "the replay's CUDA view differs from the recording:\n{}",
        differ.join("\n")
    );
}

#[test]
fn the_library_of_a_driver_has_its_libcuda_and_refuses_another_drivers_profile() {
    let lib = lib_dir("driver");
    let exe = client(&lib);
    let driver = nvml_mock::testing::driver_lib_dir(&lib, "a100-r525").expect("the library of driver 525");
    assert!(driver.join("libcuda.so.1").is_file(), "mock-lib writes libcuda.so.1 beside libnvidia-ml.so.1");
    let out = command(&exe, &driver).arg("check").env("NVML_MOCK_PROFILE", "a100-r525").output().expect("the client");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("ok (0 failures)"),
        "driver 525:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A profile of another driver: the library and the kernel module differ.
    let out = command(&exe, &driver).arg("init").env("NVML_MOCK_PROFILE", "h100").output().expect("the client");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim(),
        "cuInit 803",
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
