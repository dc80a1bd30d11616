//! Helpers shared by the generator's integration tests.
#![allow(dead_code)] // Each test file uses its own subset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use xtask::fetch::headers::{self, Provenance};
use xtask::workspace::project_root;

/// `tests/fixtures/<case>`.
pub fn fixture(case: &str) -> PathBuf {
    project_root().join("tests/fixtures").join(case)
}

/// A fresh empty directory under the target dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `xtask` binary with `args`.
pub fn xtask<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).output().unwrap()
}

/// Whether `UPDATE_GOLDEN` asks for expected files to be rewritten.
pub fn updating_goldens() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some()
}

/// Compares `actual` with the golden file `path`, or rewrites it under `UPDATE_GOLDEN=1`.
/// Returns the path when they differ.
pub fn check_golden(path: &Path, actual: &str) -> Option<String> {
    if updating_goldens() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(path).ok().map(|s| s.replace("\r\n", "\n"));
    (expected.as_deref() != Some(actual)).then(|| path.display().to_string())
}

/// Whether the opt-in tests that fetch every published header with pip should run.
pub fn corpus_enabled(test: &str) -> bool {
    let on = std::env::var_os("NVML_CORPUS").is_some_and(|v| !v.is_empty() && v != "0");
    if !on {
        eprintln!("{test}: skipped; set NVML_CORPUS=1 to run it (it fetches headers with pip)");
    }
    on
}

/// Builds a wheel shaped like NVIDIA's (`nvidia/cu13/include/nvml.h`, a licence in the
/// dist-info, a RECORD with each file's sha256) holding `header` as version `version` of
/// nvidia-nvml-dev.
pub fn wheel(dir: &Path, header: &Path, version: &str) {
    build_wheel(dir, header, version, false);
}

/// [`wheel`], with a RECORD whose hash of the header is wrong when `corrupt`: as a download
/// cut short or altered on the way would look.
pub fn build_wheel(dir: &Path, header: &Path, version: &str, corrupt: bool) {
    let script = r#"
import base64, hashlib, sys, zipfile
out_dir, header, version, corrupt = sys.argv[1:5]
info = f"nvidia_nvml_dev-{version}.dist-info"
files = {
    "nvidia/cu13/include/nvml.h": open(header, "rb").read(),
    f"{info}/METADATA": f"Metadata-Version: 2.1\nName: nvidia-nvml-dev\nVersion: {version}\n".encode(),
    f"{info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-manylinux2014_x86_64\n",
    f"{info}/licenses/License.txt": b"A test licence.\n",
}
def digest(name, data):
    if corrupt == "1" and name.endswith("nvml.h"):
        data = data + b" "
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
record = "".join(f"{n},sha256={digest(n, d)},{len(d)}\n" for n, d in files.items()) + f"{info}/RECORD,,\n"
with zipfile.ZipFile(f"{out_dir}/nvidia_nvml_dev-{version}-py3-none-manylinux2014_x86_64.whl", "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr(f"{info}/RECORD", record)
"#;
    let flag = if corrupt { "1" } else { "0" };
    let status =
        Command::new("python3").arg("-c").arg(script).arg(dir).arg(header).arg(version).arg(flag).status().unwrap();
    assert!(status.success());
}

/// A scratch workspace with rules, a corpus list and 98.0.1 vendored; and a wheel directory
/// with 99.0.1 and 99.0.2 (both the new side of `diff-api`).
pub fn header_workspace(name: &str) -> (PathBuf, PathBuf) {
    let root = scratch(name);
    let case = fixture("diff-api");
    std::fs::create_dir_all(root.join("gen-config")).unwrap();
    // The fixture's rules, and the directions a user adds after the diff reports that the new
    // header documents four functions' parameters nowhere.
    let rules = std::fs::read_to_string(case.join("rules.yaml")).unwrap();
    let directions = "directions:\n  nvmlDeviceGetFan.fan: out\n  nvmlDeviceGetPower.power: out\n  \
                      nvmlDeviceGetStats.statistics: out\n  nvmlDeviceGetTemp.temp: out\n";
    std::fs::write(root.join("gen-config/nvml.yaml"), format!("{rules}\n{directions}")).unwrap();
    let old = root.join("nvml-headers/98.0.1");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::copy(case.join("old.h"), old.join("nvml.h")).unwrap();
    let sha256 = headers::sha256_hex(&std::fs::read(old.join("nvml.h")).unwrap());
    let prov = Provenance {
        package: "nvidia-nvml-dev".into(),
        version: "98.0.1".into(),
        file: "nvidia/cu13/include/nvml.h".into(),
        sha256,
    };
    let corpus = format!("# Test corpus.\n98.0.1 nvidia-nvml-dev {}\n", prov.sha256);
    std::fs::write(old.join("provenance.yaml"), prov.to_yaml()).unwrap();
    std::fs::write(root.join(headers::CORPUS_FILE), corpus).unwrap();
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    for v in ["99.0.1", "99.0.2"] {
        wheel(&wheels, &case.join("new.h"), v);
    }
    (root, wheels)
}
