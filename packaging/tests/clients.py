"""Real clients on the installed wheel, as a user runs them: `python -m nvmlkit_mock run` with
gpustat, nvitop and NVIDIA's pynvml on every built-in profile (each on its own driver's
library), the CUDA driver API beside it (libcuda.so.1, through ctypes), the per-driver libraries' symbols, the exit status passed through and the errors
for bad arguments. Run by packaging/check-wheel in a fresh venv with no cargo and no cc on
PATH; exits 1 listing what failed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import nvmlkit_mock

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def run(profile, *command, extra=()):
    args = [sys.executable, "-m", "nvmlkit_mock", "run", "--profile", profile, *extra, "--", *command]
    return subprocess.run(args, capture_output=True, text=True)


PYNVML = """
import json, pynvml as n
n.nvmlInit()
count = n.nvmlDeviceGetCount()
names = [n.nvmlDeviceGetName(n.nvmlDeviceGetHandleByIndex(i)) for i in range(count)]
temps = [n.nvmlDeviceGetTemperature(n.nvmlDeviceGetHandleByIndex(i), n.NVML_TEMPERATURE_GPU) for i in range(count)]
print(json.dumps({"driver": n.nvmlSystemGetDriverVersion(), "names": names, "temps": temps,
                  "lib": n.nvmlLib._name}))
n.nvmlShutdown()
"""

NVITOP = """
import json
from nvitop import Device
print(json.dumps([[d.name(), d.temperature()] for d in Device.all()]))
"""

# The CUDA driver API beside the library, through ctypes as any CUDA client loads it.
CUDA = """
import ctypes, json
cu = ctypes.CDLL("libcuda.so.1")
rc = cu.cuInit(0)
count = ctypes.c_int(0)
names = []
if rc == 0 and cu.cuDeviceGetCount(ctypes.byref(count)) == 0:
    for i in range(count.value):
        dev, name = ctypes.c_int(0), ctypes.create_string_buffer(96)
        if cu.cuDeviceGet(ctypes.byref(dev), i) == 0 and cu.cuDeviceGetName(name, 96, dev) == 0:
            names.append(name.value.decode())
print(json.dumps({"init": rc, "names": names}))
"""

for tool in ("cargo", "cc", "gcc"):
    check(shutil.which(tool) is None, f"{tool} is on PATH, which this test must run without")

profiles = nvmlkit_mock.profiles()
manifest_gpus = {name: p["gpus"] for name, p in nvmlkit_mock._manifest()["profiles"].items()}
check(len(profiles) >= 12, f"only {len(profiles)} built-in profiles: {sorted(profiles)}")
for profile, driver in profiles.items():
    gpus = manifest_gpus[profile]
    p = run(profile, sys.executable, "-c", PYNVML)
    if not check(p.returncode == 0, f"{profile}: pynvml failed:\n{p.stdout}{p.stderr}"):
        continue
    ref = json.loads(p.stdout)
    check(len(ref["names"]) == gpus, f"{profile}: pynvml shows {len(ref['names'])} GPUs, the profile has {gpus}")
    check(ref["driver"] == driver, f"{profile}: pynvml's driver {ref['driver']}, the profile's {driver}")
    want_lib = os.path.join(nvmlkit_mock.library_dir(profile=profile), "libnvidia-ml.so.1")
    check(os.path.realpath(ref["lib"]) == os.path.realpath(want_lib) or ref["lib"] == "libnvidia-ml.so.1",
          f"{profile}: pynvml loaded {ref['lib']}")

    g = run(profile, "gpustat", "--json", extra=["--live-pids"])
    if check(g.returncode == 0, f"{profile}: gpustat failed:\n{g.stdout}{g.stderr}"):
        shown = json.loads(g.stdout)["gpus"]
        check([x["name"] for x in shown] == ref["names"], f"{profile}: gpustat's names {[x['name'] for x in shown]}")
        check([x["temperature.gpu"] for x in shown] == ref["temps"], f"{profile}: gpustat's temperatures")

    t = run(profile, sys.executable, "-c", NVITOP)
    if check(t.returncode == 0, f"{profile}: nvitop's API failed:\n{t.stdout}{t.stderr}"):
        shown = json.loads(t.stdout)
        check([x[0] for x in shown] == ref["names"], f"{profile}: nvitop's names {shown}")
        check([x[1] for x in shown] == ref["temps"], f"{profile}: nvitop's temperatures {shown}")
    once = run(profile, "nvitop", "--once", extra=["--live-pids"])
    check(once.returncode == 0 and ref["names"][0].split()[-1][:8] in once.stdout.replace("NVIDIA ", ""),
          f"{profile}: nvitop --once:\n{once.stdout}{once.stderr}")
    c = run(profile, sys.executable, "-c", CUDA)
    if check(c.returncode == 0, f"{profile}: the CUDA check failed:\n{c.stdout}{c.stderr}"):
        cuda = json.loads(c.stdout)
        # A GPU with MIG on is a MIG device to CUDA ("<GPU's name> MIG <profile>").
        same = len(cuda["names"]) == len(ref["names"]) and all(
            c == n or c.startswith(n + " MIG ") for c, n in zip(sorted(cuda["names"]), sorted(ref["names"])))
        check(cuda["init"] == 0 and same, f"{profile}: CUDA sees {cuda}, NVML {ref['names']}")
    print(f"{profile}: driver {driver}, {gpus} GPU(s): pynvml, gpustat, nvitop and CUDA agree")

# The issue's own example: eight A100s.
g = run("a100", "gpustat", "--json")
names = [x["name"] for x in json.loads(g.stdout)["gpus"]] if g.returncode == 0 else []
check(len(names) == 8 and all("A100" in n for n in names), f"a100: gpustat shows {names}")

# Each driver's library exports that driver's functions: nvmlDeviceGetTemperatureV is new in R570.
# (Each library in a process of its own: a process runs one driver.)
def exports(driver, symbol):
    path = os.path.join(nvmlkit_mock.library_dir(driver=driver), "libnvidia-ml.so.1")
    code = "import ctypes, sys; print(hasattr(ctypes.CDLL(sys.argv[1]), sys.argv[2]))"
    return subprocess.run([sys.executable, "-c", code, path, symbol], capture_output=True, text=True).stdout.strip()


check(exports("525.147.05", "nvmlDeviceGetTemperatureV") == "False", "the 525.147.05 library exports nvmlDeviceGetTemperatureV")
check(exports("525.147.05", "nvmlDeviceGetTemperature") == "True", "the 525.147.05 library lacks nvmlDeviceGetTemperature")
check(exports("580.82.07", "nvmlDeviceGetTemperatureV") == "True", "the 580.82.07 library lacks nvmlDeviceGetTemperatureV")

# Another driver's library refuses the profile, as a real driver does.
p = run("a100", sys.executable, "-c", PYNVML, extra=["--driver", "525.147.05"])
check(p.returncode != 0 and "NVML_ERROR_LIB_RM_VERSION_MISMATCH" in p.stderr,
      f"a100 on the 525.147.05 library: {p.returncode}\n{p.stdout}{p.stderr}")
p = run("a100", sys.executable, "-c", PYNVML, extra=["--plain"])
check(p.returncode == 0, f"a100 on the plain library: {p.stderr}")

# The exit status passes through; bad arguments get clear messages.
p = run("a100", sys.executable, "-c", "import sys; sys.exit(7)")
check(p.returncode == 7, f"the exit status 7 came back as {p.returncode}")
p = run("nope", sys.executable, "-c", "pass")
check(p.returncode == 2 and "a100-r525" in p.stderr and "'nope'" in p.stderr, f"unknown profile: {p.stderr}")
p = run("a100", sys.executable, "-c", "pass", extra=["--driver", "999.1.2"])
check(p.returncode == 2 and "525.147.05" in p.stderr and "580.82.07" in p.stderr, f"unknown driver: {p.stderr}")
p = run("a100", "no-such-program")
check(p.returncode == 127 and "no-such-program" in p.stderr, f"a missing program: {p.returncode} {p.stderr}")

# In this process: pynvml pointed at the mock; another profile of the same driver after
# nvmlShutdown; another driver refused with the reason; too late once pynvml loaded a library.
IN_PROCESS = """
import nvmlkit_mock, pynvml as n
nvmlkit_mock.use_in_process("a100")
n.nvmlInit()
print(n.nvmlDeviceGetCount(), n.nvmlDeviceGetName(n.nvmlDeviceGetHandleByIndex(0)))
n.nvmlShutdown()
nvmlkit_mock.use_in_process("l40s")
n.nvmlInit()
print(n.nvmlDeviceGetCount(), n.nvmlDeviceGetName(n.nvmlDeviceGetHandleByIndex(0)))
n.nvmlShutdown()
try:
    nvmlkit_mock.use_in_process("t4")
except nvmlkit_mock.MockError as e:
    print("refused:", "new process" in str(e))
"""
p = subprocess.run([sys.executable, "-c", IN_PROCESS], capture_output=True, text=True)
check(p.stdout.splitlines() == ["8 NVIDIA A100-SXM4-80GB", "8 NVIDIA L40S", "refused: True"],
      f"in-process use: {p.stdout}{p.stderr}")
LATE = "import nvmlkit_mock, pynvml\npynvml.nvmlLib = object()\ntry:\n    nvmlkit_mock.use_in_process('a100')\nexcept nvmlkit_mock.MockError as e:\n    print(e)"
p = subprocess.run([sys.executable, "-c", LATE], capture_output=True, text=True)
check("before the first nvmlInit" in p.stdout, f"in-process use after nvmlInit: {p.stdout}{p.stderr}")

# A session held open by nvmlkit_mock.Session: a change reaches a short-lived client.
with nvmlkit_mock.Session("clients-check", profile="a100") as s:
    s.ctl("set", 2, "temperature.gpu", 93)
    g = subprocess.run(["gpustat", "--json"], env=s.environ, capture_output=True, text=True)
    temps = [x["temperature.gpu"] for x in json.loads(g.stdout)["gpus"]] if g.returncode == 0 else []
    check(len(temps) == 8 and temps[2] == 93, f"a ctl change in a Session: {temps} {g.stderr}")

# capture passes through to the program (here it records the mock itself, as the t4, and
# checks the replay against the package's mock), and the profile file it writes runs.
with tempfile.TemporaryDirectory() as tmp:
    recorded = os.path.join(tmp, "recorded.yaml")
    library = os.path.join(nvmlkit_mock.library_dir(profile="t4"), "libnvidia-ml.so.1")
    p = subprocess.run(
        [sys.executable, "-m", "nvmlkit_mock", "capture", "--library", library, "--no-probes", "--out", recorded],
        capture_output=True, text=True, env=dict(os.environ, NVML_MOCK_PROFILE="t4"),
    )
    check(p.returncode == 0 and "checked:" in p.stderr, f"capture: {p.stdout}{p.stderr}")
    check(nvmlkit_mock.profile_driver(recorded) == "535.247.01", f"the recorded profile's driver: {nvmlkit_mock.profile_driver(recorded) if p.returncode == 0 else '-'}")
    g = run(recorded, "gpustat", "--json")
    names = [x["name"] for x in json.loads(g.stdout)["gpus"]] if g.returncode == 0 else g.stderr
    check(names == ["Tesla T4"] * 8, f"gpustat on the recorded profile: {names}")

# ctl passes through to the program.
p = subprocess.run([sys.executable, "-m", "nvmlkit_mock", "ctl", "--help"], capture_output=True, text=True)
check("nvml-mock ctl" in p.stdout + p.stderr, f"ctl --help: {p.stdout}{p.stderr}")

if failures:
    print("\n".join(["FAILED:"] + failures), file=sys.stderr)
    sys.exit(1)
print(f"all clients agree on {len(profiles)} profiles")
