"""The wheel holds what it should and nothing more, as .ci/check-packages checks the crates:
prints its files and fails on a file outside the expected set, on a missing license, program,
library or profile, on a license copy that differs from the workspace root's, on a RECORD
hash that does not match, and on a platform tag other than the one auditwheel derives (when
auditwheel is given).

    python3 packaging/tests/wheel_files.py WHEEL [AUDITWHEEL]
"""

import base64
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
wheel = sys.argv[1]
z = zipfile.ZipFile(wheel)
names = z.namelist()
m = re.match(r"nvmlkit_mock-([^-]+)-py3-none-(manylinux_2_\d+_(x86_64|aarch64))\.whl$", os.path.basename(wheel))
errors = []
if not m:
    sys.exit(f"{wheel}: not named nvmlkit_mock-VERSION-py3-none-manylinux_2_N_ARCH.whl")
version, tag = m.group(1), m.group(2)
info = f"nvmlkit_mock-{version}.dist-info"
data = "nvmlkit_mock/_data"

# Every file the wheel may hold (`*` matches `/` too, as in .ci/check-packages).
expected = [
    "nvmlkit_mock/__init__.py", "nvmlkit_mock/__main__.py", "nvmlkit_mock/pytest_plugin.py",
    f"{data}/manifest.json", f"{data}/bin/nvml-mock",
    f"{data}/lib/libnvml_mock.so", f"{data}/lib/libnvidia-ml.so.1", f"{data}/lib/libnvidia-ml.so",
    f"{data}/lib/driver-*/libnvidia-ml.so.1", f"{data}/lib/driver-*/libnvidia-ml.so",
    f"{data}/lib/profile-*/libnvidia-ml.so.1", f"{data}/lib/profile-*/libnvidia-ml.so",
    f"{data}/lib/libcuda.so.1", f"{data}/lib/libcuda.so",
    f"{data}/lib/driver-*/libcuda.so.1", f"{data}/lib/driver-*/libcuda.so",
    f"{data}/lib/profile-*/libcuda.so.1", f"{data}/lib/profile-*/libcuda.so",
    f"{data}/profiles/*.yaml",
    f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD", f"{info}/entry_points.txt",
    f"{info}/licenses/LICENSE-MIT", f"{info}/licenses/LICENSE-APACHE",
]
manifest = json.loads(z.read(f"{data}/manifest.json"))
# The libraries of xtask's bundle::LIBRARIES, as the manifest lists them.
expected += [f"{data}/lib/{lib}" for lib in manifest["libraries"]]
print(f"== {os.path.basename(wheel)} ({len(names)} files)")
for n in names:
    print(n)
    if not any(fnmatch.fnmatchcase(n, p) for p in expected):
        errors.append(f"the wheel holds {n}, which is not in its expected contents (packaging/tests/wheel_files.py)")

required = [p for p in expected if "*" not in p]
required += [f"{data}/{d}/libnvidia-ml.so.1" for d in manifest["drivers"].values()]
required += [f"{data}/{p['lib']}/libnvidia-ml.so.1" for p in manifest["profiles"].values()]
required += [f"{data}/{d}/libcuda.so.1" for d in manifest["drivers"].values()]
required += [f"{data}/lib/{lib}" for lib in manifest["libraries"]]
required += [f"{data}/profiles/{p}.yaml" for p in manifest["profiles"]]
for r in required:
    if r not in names:
        errors.append(f"the wheel lacks {r}")
if manifest["version"] != version.replace("rc", "-rc.") and manifest["version"] != version:
    errors.append(f"the manifest's version {manifest['version']} is not the wheel's {version}")

for license in ("LICENSE-MIT", "LICENSE-APACHE"):
    with open(os.path.join(ROOT, license), "rb") as f:
        if f"{info}/licenses/{license}" in names and z.read(f"{info}/licenses/{license}") != f.read():
            errors.append(f"the wheel's {license} differs from ./{license}")
meta = z.read(f"{info}/METADATA").decode()
for line in ("License-File: LICENSE-MIT", "License-File: LICENSE-APACHE", "Name: nvmlkit-mock", f"Version: {version}"):
    if line not in meta.splitlines():
        errors.append(f"METADATA has no line `{line}`")
if f"Tag: py3-none-{tag}" not in z.read(f"{info}/WHEEL").decode().splitlines():
    errors.append(f"WHEEL does not name the tag py3-none-{tag}")
if "[pytest11]\nnvml_mock = nvmlkit_mock.pytest_plugin" not in z.read(f"{info}/entry_points.txt").decode():
    errors.append("entry_points.txt has no pytest11 entry for the plugin")

records = {}
for line in z.read(f"{info}/RECORD").decode().splitlines():
    path, digest, size = line.rsplit(",", 2)
    records[path] = (digest, size)
for n in names:
    if n == f"{info}/RECORD":
        continue
    body = z.read(n)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(body).digest()).decode().rstrip("=")
    if records.get(n) != (want, str(len(body))):
        errors.append(f"RECORD's entry of {n} is {records.get(n)}, not {(want, len(body))}")
for n in set(records) - set(names):
    errors.append(f"RECORD lists {n}, which the wheel lacks")
for n in (f"{data}/bin/nvml-mock",):
    if (z.getinfo(n).external_attr >> 16) & 0o111 == 0:
        errors.append(f"{n} is not executable")

if len(sys.argv) > 2:
    out = subprocess.run([sys.argv[2], "show", wheel], capture_output=True, text=True)
    said = re.findall(r'platform tag:\s*"([^"]+)"', out.stdout.replace("\n", " "))
    if out.returncode != 0 or tag not in said:
        errors.append(f"auditwheel derives {said or out.stderr.strip()} for the wheel tagged {tag}")
    else:
        print(f"auditwheel: consistent with {tag}")

for e in errors:
    print(f"::error::{e}")
sys.exit(1 if errors else 0)
