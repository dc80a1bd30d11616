//! A `libnvidia-ml.so.1` that emulates one driver: it exports exactly the functions that
//! driver has (`has` in `src/driver.rs`), so that a client which looks a symbol up before it
//! calls it (`dlsym`, Python's `ctypes`) sees what it would see on that driver, and it tells
//! the mock which driver it is (`nvmlInit` fails when the profile runs another one).
//!
//! The library is a small forwarder compiled with the C compiler `cc` (`$CC`): each symbol is a
//! jump through a table that a constructor fills from the mock, `libnvml_mock.so`, loaded from
//! the forwarder's own directory (the `$ORIGIN` of the forwarder, found with `dladdr`), so the
//! directory is self-contained and can be moved. No function's signature is needed: the jump
//! leaves the caller's registers and stack as they are. x86-64 and AArch64 Linux.
//!
//! Beside it goes `libcuda.so.1`, an ELF filter of the same mock (as `crates/cuda-mock`
//! builds it) that tells the mock the driver too: the CUDA driver API of that driver.
//!
//! `cargo xtask mock-lib --driver 525.147.05 --out DIR` runs [`write()`] (through the
//! `nvml-mock lib`); the tests' `testing::driver_lib_dir` runs the same code for a
//! profile's driver.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::driver::{self, Version};

/// The mock's name in the directory, next to the forwarder that loads it.
pub const MOCK_FILE: &str = "libnvml_mock.so";

/// The forwarder's C source, kept in the directory (and the sign that the directory is
/// complete: it is written last).
pub const SOURCE_FILE: &str = "forwarder.c";

/// Functions that are not in the header, exported by every forwarder: the test hook that
/// delivers an event, and the export table `nvidia-smi` needs (`engine/internal.rs`).
const MOCK_HOOKS: &[&str] = &["nvmlMockInjectEvent", "nvmlInternalGetExportTable"];

/// Writes into `dir` (created if need be) a library for driver `version` (`525.147.05`):
/// `dir/libnvidia-ml.so.1` exporting that driver's functions, `libnvidia-ml.so` (a link to
/// it), a copy of the mock `mock` as `libnvml_mock.so`, `libcuda.so.1` (a filter of it, with
/// `libcuda.so`), and the two libraries' sources.
///
/// # Errors
///
/// A version that does not parse or whose branch the published headers do not know (`known`
/// in `src/driver.rs`), a mock that is not a file, a missing or failing C compiler, a file
/// that cannot be written, or a target that is neither x86-64 nor AArch64.
pub fn write(dir: &Path, version: &str, mock: &Path) -> Result<(), String> {
    write_to(dir, version, Mock::Copy(mock))
}

/// Where a forwarder finds the mock.
#[derive(Clone, Copy, Debug)]
pub enum Mock<'a> {
    /// A copy of this file, made beside the forwarder as `libnvml_mock.so`.
    Copy(&'a Path),
    /// This path, relative to the forwarder's own directory (`../libnvml_mock.so`), which must
    /// hold the mock already: one mock shared by the forwarders of a tree (the wheel and the
    /// release archive, `cargo xtask wheel`), which can still be moved as a whole.
    At(&'a str),
}

/// [`write`](fn@write), with the mock where `mock` says.
///
/// # Errors
///
/// As [`write`](fn@write), and a relative path that is absolute, holds characters other than
/// letters, digits, `.`, `_`, `-` and `/`, or names no file.
pub fn write_to(dir: &Path, version: &str, mock: Mock) -> Result<(), String> {
    let version = driver::known(version)?;
    build(dir, Some(&version), &BTreeSet::new(), &BTreeSet::new(), mock)
}

/// The mock beside this program, where cargo builds both (or in its `deps/`), or in the
/// `lib/` beside the program's `bin/`, where the wheel and the release archive install both.
///
/// # Errors
///
/// None of them is a file.
pub fn default_mock() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the path of this program: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let installed = dir.parent().map(|up| up.join("lib").join(MOCK_FILE));
    [Some(dir.join(MOCK_FILE)), Some(dir.join("deps").join(MOCK_FILE)), installed]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no {MOCK_FILE} next to {} to check the profile with: pass --mock PATH, or --no-verify",
                exe.display()
            )
        })
}

/// The names of the built-in profiles, in order.
pub fn builtin_profiles() -> impl Iterator<Item = &'static str> {
    crate::profile::BUILTIN.iter().map(|(name, _)| *name)
}

/// The driver a profile (a built-in name or a profile file) runs, `None` for none, and its
/// number of GPUs: what chooses the library a client of the profile loads.
///
/// # Errors
///
/// A profile that does not load (an unknown name's error lists the built-in ones).
pub fn profile_summary(profile: &str) -> Result<(Option<String>, usize), String> {
    let p = crate::profile::load(profile)?;
    Ok((p.driver.map(|v| v.to_string()), p.devices.len()))
}

/// Writes into `dir` a library that exports every function and names no driver: the plain mock
/// (every symbol of the newest header, whatever the profile's driver), as a small forwarder.
///
/// # Errors
///
/// As [`write_to`], less the version.
pub fn write_plain_to(dir: &Path, mock: Mock) -> Result<(), String> {
    build(dir, None, &BTreeSet::new(), &BTreeSet::new(), mock)
}

/// Writes into `dir` a library of the driver a profile runs (a built-in name or a profile
/// file): that driver's functions, those its library exports beyond the history
/// (`system.exports.extra`, as a capture records), less those the profile says it lacks
/// (`missing_functions`, `system.exports.missing`). Returns the driver version (`""` for a
/// profile that names none: every function).
///
/// # Errors
///
/// As [`write`](fn@write), and a profile that does not load.
pub fn write_for_profile(dir: &Path, profile: &str, mock: &Path) -> Result<String, String> {
    write_for_profile_to(dir, profile, Mock::Copy(mock))
}

/// [`write_for_profile`], with the mock where `mock` says.
///
/// # Errors
///
/// As [`write_to`].
pub fn write_for_profile_to(dir: &Path, profile: &str, mock: Mock) -> Result<String, String> {
    let p = crate::profile::load(profile)?;
    let absent: BTreeSet<String> = p.missing_functions.iter().cloned().collect();
    let extra: BTreeSet<String> = p.exports_extra.iter().cloned().collect();
    build(dir, p.driver.as_ref(), &absent, &extra, mock)?;
    Ok(p.driver.map(|v| v.to_string()).unwrap_or_default())
}

/// The library in `dir` for driver `version` (`None`: every function), also without the
/// functions of `absent`; the mock is copied next to it, or found where [`Mock::At`] says.
/// Built once: a directory whose source, library and mock are those this call would write is
/// left as it is, so tests that run at once (threads or processes) can share one.
pub(crate) fn build(
    dir: &Path,
    version: Option<&Version>,
    absent: &BTreeSet<String>,
    extra: &BTreeSet<String>,
    mock: Mock,
) -> Result<(), String> {
    let mock_file = match mock {
        Mock::Copy(mock) if !mock.is_file() => {
            return Err(format!("the mock {} is not a file (build it: `cargo build -p nvmlkit-mock`)", mock.display()))
        }
        Mock::Copy(_) => MOCK_FILE,
        Mock::At(rel) => {
            let plain = rel.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b));
            if rel.is_empty() || rel.starts_with('/') || !plain {
                return Err(format!(
                    "`{rel}`: the mock's path must be relative to the library's directory, of letters, digits, `.`, `_`, `-` and `/`"
                ));
            }
            // Resolved by its words, since `dir` need not exist yet.
            let mut at = dir.to_path_buf();
            for part in Path::new(rel).components() {
                match part {
                    std::path::Component::ParentDir => {
                        at.pop();
                    }
                    std::path::Component::Normal(name) => at.push(name),
                    _ => {}
                }
            }
            if !at.is_file() {
                return Err(format!("the mock {} ({rel} from {}) is not a file", at.display(), dir.display()));
            }
            rel
        }
    };
    let mut names: Vec<&str> = crate::generated::names::FUNCTIONS
        .iter()
        .copied()
        .filter(|f| (version.map_or(true, |v| driver::has(v, f)) || extra.contains(*f)) && !absent.contains(*f))
        .collect();
    names.extend(MOCK_HOOKS);
    let text = source(&names, version, mock_file)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let unique = format!("{}-{}", std::process::id(), BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let (source, lib) = (dir.join(SOURCE_FILE), dir.join("libnvidia-ml.so.1"));
    // Each file is written under a name of its own and renamed into place, the source last:
    // a source equal to this one means the library beside it is complete.
    if let Mock::Copy(mock) = mock {
        copy_if_changed(mock, &dir.join(MOCK_FILE), &unique)?;
    }
    build_cuda(dir, version, mock_file, &unique)?;
    if std::fs::read_to_string(&source).ok().as_deref() != Some(text.as_str()) || !lib.is_file() {
        // Compiled in a fresh directory of the caller's own, then copied in: the compiler
        // never writes into DIR, which may be a shared place.
        compile(&text, SOURCE_FILE, &lib, &["-shared", "-fPIC", "-O1", "-Wl,-soname,libnvidia-ml.so.1"], &unique)?;
        crate::private::replace(&source, text.as_bytes(), 0o644)?;
    }
    // `libnvidia-ml.so` → `libnvidia-ml.so.1`; anything else found there (planted, or left
    // by hand) is replaced by a link made under a name of its own and renamed into place.
    let link = dir.join("libnvidia-ml.so");
    if std::fs::read_link(&link).is_ok_and(|to| to == Path::new("libnvidia-ml.so.1")) {
        return Ok(());
    }
    let tmp_link = dir.join(format!("libnvidia-ml.so.{unique}.link"));
    std::os::unix::fs::symlink("libnvidia-ml.so.1", &tmp_link).map_err(|e| format!("{}: {e}", tmp_link.display()))?;
    std::fs::rename(&tmp_link, &link).map_err(|e| {
        let _ = std::fs::remove_file(&tmp_link);
        format!("{}: {e}", link.display())
    })
}

/// The C source of the directory's `libcuda.so.1`, kept beside it.
pub const CUDA_SOURCE_FILE: &str = "cuda-filter.c";

/// Compiles `cc` with `args` and `source`'s text into `lib`, in a fresh directory of the
/// caller's own, then copies the library into place.
fn compile(source_text: &str, file: &str, lib: &Path, args: &[&str], unique: &str) -> Result<(), String> {
    let build = crate::private::TempDir::new("nvml-mock-lib")?;
    let (tmp_source, tmp_lib) = (build.path().join(file), build.path().join("lib.so"));
    std::fs::write(&tmp_source, source_text).map_err(|e| format!("{}: {e}", tmp_source.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc).args(args).arg("-o").arg(&tmp_lib).arg(&tmp_source).arg("-ldl").output();
    match out {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            return Err(format!("`{cc}` could not build {}:\n{}", lib.display(), String::from_utf8_lossy(&out.stderr)))
        }
        Err(e) => return Err(format!("could not run the C compiler `{cc}` (install one, or set $CC): {e}")),
    }
    copy_if_changed(&tmp_lib, lib, unique)
}

/// `dir/libcuda.so.1` (and `libcuda.so`, a link to it) for driver `version`: an ELF filter of
/// the mock beside it, as `crates/cuda-mock` builds it (every symbol of `cuda.h` resolves to
/// the mock's), whose constructor also tells the mock the driver, so a client that loads only
/// CUDA runs the driver's CUDA version (what NVML's `nvmlSystemGetCudaDriverVersion` answers,
/// and `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` from `cuInit` when the profile runs another driver).
fn build_cuda(dir: &Path, version: Option<&Version>, mock_file: &str, unique: &str) -> Result<(), String> {
    let mut c = String::from(
        "// A libcuda.so.1 that is an ELF filter of the mock beside it: the dynamic linker resolves its\n\
         // symbols (every function of cuda.h) to the mock's. Written by nvmlkit-mock\n\
         // (`cargo xtask mock-lib`); built with `cc -shared -fPIC -Wl,--filter,libnvml_mock.so`.\n\
         #define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
    );
    match version {
        Some(v) => c.push_str(&format!("static const char *const cudamock_driver = \"{v}\";\n\n")),
        None => c.push_str("static const char *const cudamock_driver = 0;\n\n"),
    }
    c.push_str(concat!(
        "__attribute__((constructor)) static void cudamock_load(void) {\n",
        "    Dl_info self;\n",
        "    char real[4096], path[4200];\n",
        "    if (!cudamock_driver || !dladdr((void *)&cudamock_load, &self) || !self.dli_fname) return;\n",
        "    const char *me = realpath(self.dli_fname, real) ? real : self.dli_fname;\n",
        "    const char *slash = strrchr(me, '/');\n",
        "    snprintf(path, sizeof path, \"%.*s{MOCK}\", slash ? (int)(slash - me) + 1 : 0, me);\n",
        "    void *mock = dlopen(path, RTLD_NOW | RTLD_LOCAL);\n",
        "    int (*set)(const char *) = mock ? (int (*)(const char *))dlsym(mock, \"nvmlMockSetDriverLibrary\") : 0;\n",
        "    int code = set ? set(cudamock_driver) : -1;\n",
        "    if (code != 0)\n",
        "        fprintf(stderr, \"nvml-mock: the mock did not take driver %s (%d): it follows its profile's driver\\n\", cudamock_driver, code);\n",
        "}\n\n",
        "// For the link editor and dlsym: never run (the filter's symbols resolve to the mock's).\n",
    ).replace("{MOCK}", mock_file).as_str());
    for f in crate::generated::cuda::names::FUNCTIONS {
        c.push_str(&format!("int {f}(void) {{ return 999; }}\n"));
    }
    let (source, lib) = (dir.join(CUDA_SOURCE_FILE), dir.join("libcuda.so.1"));
    if std::fs::read_to_string(&source).ok().as_deref() != Some(c.as_str()) || !lib.is_file() {
        // The filtee by its file name, found through the run path: the forwarder's directory,
        // or the one `mock_file` names relative to it.
        let (up, name) = mock_file.rsplit_once('/').unwrap_or(("", mock_file));
        let filter = format!("-Wl,--filter,{name}");
        let rpath = if up.is_empty() { "-Wl,-rpath,$ORIGIN".to_string() } else { format!("-Wl,-rpath,$ORIGIN/{up}") };
        let args = ["-shared", "-fPIC", "-O1", "-Wl,-soname,libcuda.so.1", filter.as_str(), rpath.as_str()];
        compile(&c, CUDA_SOURCE_FILE, &lib, &args, unique)?;
        crate::private::replace(&source, c.as_bytes(), 0o644)?;
    }
    let link = dir.join("libcuda.so");
    if !std::fs::read_link(&link).is_ok_and(|to| to == Path::new("libcuda.so.1")) {
        let tmp_link = dir.join(format!("libcuda.so.{unique}.link"));
        std::os::unix::fs::symlink("libcuda.so.1", &tmp_link).map_err(|e| format!("{}: {e}", tmp_link.display()))?;
        std::fs::rename(&tmp_link, &link).map_err(|e| {
            let _ = std::fs::remove_file(&tmp_link);
            format!("{}: {e}", link.display())
        })?;
    }
    Ok(())
}

/// Copies `from` to `to` unless `to` already holds the same bytes, through a file named after
/// `unique` renamed into place.
fn copy_if_changed(from: &Path, to: &Path, unique: &str) -> Result<(), String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let bytes = read(from)?;
    if to.is_file() && read(to)? == bytes {
        return Ok(());
    }
    let tmp: PathBuf = to.with_extension(format!("so.{unique}"));
    crate::private::write_new(&tmp, &bytes, 0o755)?;
    std::fs::rename(&tmp, to).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", to.display())
    })
}

/// The forwarder's C source: it exports `names`, each a jump through a table that a
/// constructor fills from the mock (`mock_file`, relative to the forwarder's directory), and
/// tells the mock the driver `version`.
fn source(names: &[&str], version: Option<&Version>, mock_file: &str) -> Result<String, String> {
    let jump = if cfg!(target_arch = "x86_64") {
        "jmp *nvmlmock_targets+{offset}(%rip)"
    } else if cfg!(target_arch = "aarch64") {
        "adrp x16, nvmlmock_targets+{offset}\\n ldr x16, [x16, #:lo12:nvmlmock_targets+{offset}]\\n br x16"
    } else {
        return Err("a library of one driver's symbols: only x86-64 and AArch64 Linux are supported".to_string());
    };
    let mut c = String::new();
    match version {
        Some(v) => c.push_str(&format!(
            "// A libnvidia-ml.so.1 that emulates NVIDIA driver {v}: it exports the {} functions of that driver\n",
            names.len()
        )),
        None => c.push_str(&format!("// A libnvidia-ml.so.1 that exports {} functions,\n", names.len())),
    }
    c.push_str(&format!(
        "// each a jump to the function of the same name in the mock, {mock_file}, loaded from this library's\n\
         // directory. Written by nvmlkit-mock (`cargo xtask mock-lib`); built with `cc -shared -fPIC`.\n"
    ));
    c.push_str(
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
    );
    c.push_str(&format!("__attribute__((visibility(\"hidden\"))) void *nvmlmock_targets[{}];\n", names.len()));
    c.push_str("static const char *const nvmlmock_names[] = {\n");
    for n in names {
        c.push_str(&format!("    \"{n}\",\n"));
    }
    c.push_str("};\n");
    match version {
        Some(v) => c.push_str(&format!("static const char *const nvmlmock_driver = \"{v}\";\n\n")),
        None => c.push_str("static const char *const nvmlmock_driver = 0;\n\n"),
    }
    let body = concat!(
        "// What a function answers when the mock cannot be loaded: NVML_ERROR_LIBRARY_NOT_FOUND\n",
        "// (nvmlErrorString: a message). The host is never crashed.\n",
        "static int nvmlmock_unavailable(void) { return 12; }\n",
        "static const char *nvmlmock_unavailable_string(void) { return \"nvml-mock: the mock could not be loaded\"; }\n\n",
        "static void nvmlmock_fallback(size_t i) {\n",
        "    nvmlmock_targets[i] = strcmp(nvmlmock_names[i], \"nvmlErrorString\") == 0\n",
        "        ? (void *)nvmlmock_unavailable_string : (void *)nvmlmock_unavailable;\n",
        "}\n\n",
        "__attribute__((constructor)) static void nvmlmock_load(void) {\n",
        "    const size_t count = sizeof nvmlmock_names / sizeof *nvmlmock_names;\n",
        "    static const char mock_file[] = \"{MOCK}\";\n",
        "    char path[4096];\n",
        "    void *mock = 0;\n",
        "    Dl_info self;\n",
        "    // This library's directory, links resolved (a link to it elsewhere, the usual way to\n",
        "    // install it, loads it under the link's name): the mock is beside the file itself.\n",
        "    if (dladdr((void *)&nvmlmock_load, &self) && self.dli_fname) {\n",
        "        char real[4096];\n",
        "        const char *me = realpath(self.dli_fname, real) ? real : self.dli_fname;\n",
        "        const char *slash = strrchr(me, '/');\n",
        "        size_t dir = slash ? (size_t)(slash - me) + 1 : 0;\n",
        "        if (dir + 2 + sizeof mock_file <= sizeof path) {\n",
        "            if (dir) memcpy(path, me, dir); else { memcpy(path, \"./\", 2); dir = 2; }\n",
        "            memcpy(path + dir, mock_file, sizeof mock_file);\n",
        "            mock = dlopen(path, RTLD_NOW | RTLD_LOCAL);\n",
        "        }\n",
        "    }\n",
        "    if (!mock) {\n",
        "        const char *why = dlerror();\n",
        "        fprintf(stderr, \"nvml-mock: cannot load %s beside this libnvidia-ml.so.1 (%s); every function answers NVML_ERROR_LIBRARY_NOT_FOUND\\n\", mock_file, why ? why : \"its directory is unknown\");\n",
        "        for (size_t i = 0; i < count; i++) nvmlmock_fallback(i);\n",
        "        return;\n",
        "    }\n",
        "    for (size_t i = 0; i < count; i++) {\n",
        "        nvmlmock_targets[i] = dlsym(mock, nvmlmock_names[i]);\n",
        "        if (!nvmlmock_targets[i]) {\n",
        "            fprintf(stderr, \"nvml-mock: the mock has no %s (an older copy?); it answers NVML_ERROR_LIBRARY_NOT_FOUND\\n\", nvmlmock_names[i]);\n",
        "            nvmlmock_fallback(i);\n",
        "        }\n",
        "    }\n",
        "    if (nvmlmock_driver) {\n",
        "        int (*set)(const char *) = (int (*)(const char *))dlsym(mock, \"nvmlMockSetDriverLibrary\");\n",
        "        int code = set ? set(nvmlmock_driver) : -1;\n",
        "        if (code != 0)\n",
        "            fprintf(stderr, \"nvml-mock: the mock did not take driver %s (%d): it follows its profile's driver\\n\", nvmlmock_driver, code);\n",
        "    }\n",
        "}\n\n",
    );
    c.push_str(&body.replace("{MOCK}", mock_file));
    for (i, n) in names.iter().enumerate() {
        let body = jump.replace("{offset}", &(i * 8).to_string());
        c.push_str(&format!(
            "__asm__(\".text\\n .globl {n}\\n .type {n}, @function\\n{n}:\\n {body}\\n .size {n}, .-{n}\\n\");\n"
        ));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_exports_the_drivers_functions_and_names_the_driver() {
        let v = Version::parse("525.147.05").unwrap();
        let text = source(&["nvmlInit_v2", "nvmlDeviceGetTemperature"], Some(&v), MOCK_FILE).unwrap();
        assert!(text.contains("static const char *const nvmlmock_driver = \"525.147.05\";"), "{text}");
        assert!(text.contains(".globl nvmlDeviceGetTemperature\\n"), "{text}");
        assert!(!text.contains("nvmlDeviceGetTemperatureV"), "{text}");
        // No path: the mock is found beside the library.
        assert!(!text.contains("/target/"), "{text}");
    }

    #[test]
    fn bad_versions_and_missing_mocks_are_errors_that_say_so() {
        let dir = std::env::temp_dir().join(format!("nvml-mock-driver-lib-{}", std::process::id()));
        let e = write(&dir, "525", Path::new("/nonexistent")).unwrap_err();
        assert!(e.contains("`525` is not a driver version such as 525.147.05"), "{e}");
        let e = write(&dir, "999.1.2", Path::new("/nonexistent")).unwrap_err();
        assert!(e.contains("branch 999 is not a branch of the published headers"), "{e}");
        let e = write(&dir, "525.147.05", Path::new("/nonexistent/libnvml_mock.so")).unwrap_err();
        assert!(e.contains("/nonexistent/libnvml_mock.so is not a file"), "{e}");
        assert!(!dir.exists(), "nothing is written on an error");
    }
}
