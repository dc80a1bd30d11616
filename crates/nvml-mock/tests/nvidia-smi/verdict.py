"""Verdict on nvidia-smi's views of the mock: usage verdict.py DIR (with LD_LIBRARY_PATH and
NVML_MOCK_PROFILE as nvidia-smi ran).

Reads each GPU through NVIDIA's Python binding from the same mock (the profile's values as the
mock answers them) and checks DIR's outputs of nvidia-smi against them: every view exited 0 and
shows no ERR!; --query-gpu shows each GPU's name, memory, temperature and power; the default
view names each GPU; --query-compute-apps and the default view list each GPU's processes (name
and memory); -L lists the MIG devices; mig -lgi lists the GPU instances; dmon and pmon print a
line per GPU; topo -m shows each GPU pair's NVLinks. Prints one line per check and a summary."""
import os, re, sys
import pynvml as N

out = sys.argv[-1]
N.nvmlInit()  # pynvml finds libnvidia-ml.so.1 on LD_LIBRARY_PATH: the mock's forwarder
views = {}
for f in os.listdir(out):
    if f.endswith(".txt") and f != "verdict.txt":
        views[f[:-4]] = open(os.path.join(out, f), errors="replace").read()
fails, checks = [], 0
def check(ok, what):
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
for name, text in sorted(views.items()):
    check(text.rstrip().endswith("rc=0"), "%s: exit code 0" % name)
    check("ERR!" not in text, "%s: no ERR!" % name)
count = N.nvmlDeviceGetCount()
query = [l for l in views.get("query", "").splitlines()[1:] if l and not l.startswith("rc=")]
apps = [l for l in views.get("apps", "").splitlines()[1:] if l and not l.startswith("rc=")]
check(len(query) == count, "query: one line per GPU (%d)" % count)
mib = lambda b: b // (1024 * 1024)
mig_devices = gpu_instances = 0
for i in range(count):
    h = N.nvmlDeviceGetHandleByIndex(i)
    name = N.nvmlDeviceGetName(h)
    uuid = N.nvmlDeviceGetUUID(h)
    mem = N.nvmlDeviceGetMemoryInfo(h, version=N.nvmlMemory_v2)  # what nvidia-smi shows: used without the reserved
    temp = N.nvmlDeviceGetTemperature(h, N.NVML_TEMPERATURE_GPU)
    powers = set()  # watts, shown to two decimals (either rounding of a half)
    try: powers.add(N.nvmlDeviceGetPowerUsage(h) / 1000)
    except N.NVMLError: pass
    for fid in (N.NVML_FI_DEV_POWER_AVERAGE, N.NVML_FI_DEV_POWER_INSTANT):
        v = N.nvmlDeviceGetFieldValues(h, [fid])[0]
        if v.nvmlReturn == 0: powers.add(v.value.uiVal / 1000)
    row = [c.strip() for c in query[i].split(",")] if i < len(query) else []
    check(row[:3] == [str(i), name, uuid], "GPU %d: index, name %s, UUID %s" % (i, name, uuid))
    check(row[4:6] == ["%d MiB" % mib(mem.total), "%d MiB" % mib(mem.used)], "GPU %d: memory %d MiB, %d MiB used (%s)" % (i, mib(mem.total), mib(mem.used), row[4:6]))
    check(row[6:7] == [str(temp)], "GPU %d: temperature %d C (%s)" % (i, temp, row[6:7]))
    shown = float(row[7].split()[0]) if len(row) > 7 and row[7].endswith(" W") else None
    check(shown is not None and any(abs(shown - p) <= 0.0051 for p in powers), "GPU %d: power draw one of %s W (%s)" % (i, sorted(powers), row[7:8]))
    check(name[:20] in views.get("default", ""), "GPU %d: default view names %s" % (i, name))
    procs = []
    try: procs = N.nvmlDeviceGetComputeRunningProcesses(h)
    except N.NVMLError: pass
    want = sorted((N.nvmlSystemGetProcessName(p.pid), mib(p.usedGpuMemory)) for p in procs)
    got = sorted((c[2], int(c[3].split()[0])) for c in (l.split(", ") for l in apps) if c[0] == uuid)
    check(got == want, "GPU %d: --query-compute-apps lists %s (%s)" % (i, want, got))
    for pname, m in want:
        check(re.search(r"%s.*\b%dMiB" % (re.escape(pname[:20]), m), views.get("default", "")) is not None, "GPU %d: default view lists %s with %d MiB" % (i, pname, m))
    try:
        if N.nvmlDeviceGetMigMode(h)[0] == 1:
            for j in range(N.nvmlDeviceGetMaxMigDeviceCount(h)):
                try: N.nvmlDeviceGetMigDeviceHandleByIndex(h, j); mig_devices += 1
                except N.NVMLError: pass
            for p in range(N.NVML_GPU_INSTANCE_PROFILE_COUNT):
                try:
                    info = N.nvmlDeviceGetGpuInstanceProfileInfo(h, p)
                    arr = (N.c_nvmlGpuInstance_t * 8)(); n = N.c_uint(0)
                    N.nvmlDeviceGetGpuInstances(h, info.id, arr, N.byref(n))
                    gpu_instances += n.value
                except N.NVMLError: pass
    except N.NVMLError: pass
check(views.get("L", "").count("  MIG ") == mig_devices, "-L: %d MIG devices" % mig_devices)
lgi = [l for l in views.get("mig", "").splitlines() if re.match(r"\|\s+\d+\s+MIG ", l)]
check(len(lgi) == gpu_instances, "mig -lgi: %d GPU instances (%d)" % (gpu_instances, len(lgi)))
if mig_devices:
    check("No MIG devices found" not in views.get("default", ""), "default view: MIG devices listed")
for v in ("dmon", "pmon"):
    rows = [l for l in views.get(v, "").splitlines() if re.match(r"\s+\d+\s", l)]
    check(len(rows) >= count, "%s: a line per GPU (%d)" % (v, len(rows)))
topo = views.get("topo", "")
links = []
for i in range(count):
    h = N.nvmlDeviceGetHandleByIndex(i)
    n = 0
    for l in range(N.NVML_NVLINK_MAX_LINKS):
        try: n += N.nvmlDeviceGetNvLinkState(h, l) == 1
        except N.NVMLError: break
    links.append(n)
for i in range(count):
    row = next((l.split("\t") for l in topo.splitlines() if l.startswith("GPU%d\t" % i)), [])
    for j in range(count):
        if i != j and min(links[i], links[j]) > 0:
            check(len(row) > j + 1 and row[j + 1].strip() == "NV%d" % min(links[i], links[j]), "topo: GPU%d-GPU%d NV%d (%s)" % (i, j, min(links[i], links[j]), row[j + 1:j + 2]))
print("verdict: %d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
