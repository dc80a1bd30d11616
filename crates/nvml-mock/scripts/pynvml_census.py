#!/usr/bin/env python3
"""How many of NVIDIA's Python binding's calls succeed against the mock, per profile.

Calls every query function of `pynvml` (nvidia-ml-py) it can give arguments to, on every
device of a profile (and on a MIG device, a GPU instance, a compute instance, a vGPU type and a
vGPU instance when the profile has one), and counts SUCCESS and each error code. Arguments come
from the parameter names of pynvml's functions (a table below); structs a function takes by
pointer are built from `nvml.h`'s prototype, with their version set as `NVML_STRUCT_VERSION`
does. Functions that change state (Set, Clear, Reset, Create, Destroy, ...) are not called.

    LD_LIBRARY_PATH=<dir with libnvidia-ml.so.1 -> libnvml_mock.so> \
        python3 pynvml_census.py [--header nvml.h] [--verbose] [--json] [PROFILE ...]

Each profile runs in its own process (the mock reads `NVML_MOCK_PROFILE` at the first init).
Without profiles, every built-in profile is counted.
"""

import argparse
import collections
import ctypes
import inspect
import json
import os
import re
import subprocess
import sys

PROFILES = ["a100", "a100-r525", "b200", "gb200", "h100", "l40s", "l40s-vgpu", "t4"]
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HEADER = os.path.join(HERE, "..", "..", "..", "nvml-headers", "13.5.37", "nvml.h")

# Functions that are not NVML queries, or that manage the library itself.
NOT_QUERIES = {
    "nvmlInit", "nvmlInitWithFlags", "nvmlShutdown", "nvmlErrorString", "nvmlExceptionClass",
    "nvmlStructToFriendlyObject", "nvmlFriendlyObjectToStruct", "nvmlGpmSampleAlloc",
    "nvmlEventSetCreate", "nvmlSystemEventSetCreate",
}
# CamelCase words that make a function change state.
MUTATING = {"Set", "Clear", "Reset", "Create", "Destroy", "Free", "Freeze", "Register", "Remove",
            "Discover", "Modify", "Activate", "Update", "Wait", "Inject", "Write", "Alloc"}


def words(name):
    return re.findall(r"[A-Z][a-z0-9]*|[a-z]+", name)


def is_query(name):
    if name in NOT_QUERIES:
        return False
    w = words(name)
    # `EventSet` and `SystemEventSet` are objects, not the verb `Set`.
    w = [x for i, x in enumerate(w) if not (x == "Set" and i > 0 and w[i - 1] == "Event")]
    return not any(x in MUTATING for x in w)


def prototypes(header):
    """{function: [(type, name)]} from the header's `nvmlReturn_t DECLDIR f(...)` lines."""
    text = open(header).read()
    out = {}
    for m in re.finditer(r"nvmlReturn_t\s+DECLDIR\s+(\w+)\s*\(([^)]*)\)\s*;", text):
        params = []
        for p in m.group(2).split(","):
            p = " ".join(p.split())
            if not p or p == "void":
                continue
            pm = re.match(r"(.*?)(\w+)$", p)
            params.append((pm.group(1).replace(" ", ""), pm.group(2)))
        out[m.group(1)] = params
    typedefs = dict((b, a) for a, b in re.findall(r"typedef\s+(nvml\w+_v\d+_t)\s+(nvml\w+_t)\s*;", text))
    return out, typedefs


class Census:
    def __init__(self, n, header, skip):
        self.n = n
        self.skip = skip
        self.symbols = []
        # Which C functions each binding function calls: every lookup goes through this.
        lookup = n._nvmlGetFunctionPointer

        census = self

        class Recorded:
            """A C function of the library that records what it returns: a few wrappers of the
            binding drop the code (`nvmlDeviceGetClockOffsets`), and the census counts it."""

            def __init__(self, fn):
                object.__setattr__(self, "fn", fn)

            def __call__(self, *args):
                ret = self.fn(*args)
                census.returns.append(ret)
                return ret

            def __getattr__(self, attr):
                return getattr(self.fn, attr)

            def __setattr__(self, attr, value):
                setattr(self.fn, attr, value)

        def recorded(name):
            self.symbols.append(name)
            return Recorded(lookup(name))
        n._nvmlGetFunctionPointer = recorded
        self.returns = []
        self.protos, self.typedefs = prototypes(header)
        self.results = collections.OrderedDict()

    # Structs passed by pointer.
    def struct_for(self, fname, pname, index):
        params = self.protos.get(fname, [])
        cty = next((t for t, nm in params if nm == pname), None)
        if cty is None and index < len(params):
            cty = params[index][0]
        if not cty or not cty.endswith("*"):
            return None
        base = cty.rstrip("*").replace("const", "")
        real = self.typedefs.get(base, base)
        n = self.n
        for cand in ["c_" + real, real, "c_" + base, base]:
            cls = getattr(n, cand, None)
            if isinstance(cls, type) and issubclass(cls, ctypes.Structure):
                try:
                    s = cls()
                except TypeError:  # a struct whose constructor wants a size
                    return None
                if any(f[0] == "version" for f in cls._fields_):
                    ver = re.search(r"_v(\d+)_t$", real)
                    ver = int(ver.group(1)) if ver else 1
                    s.version = ctypes.sizeof(cls) | (ver << 24)
                return s
        return None

    def run(self):
        n = self.n
        n.nvmlInit()
        count = n.nvmlDeviceGetCount()
        devices = [n.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        subjects = {"device": [(f"gpu{i}", d) for i, d in enumerate(devices)]}
        pids = {}
        for i, d in enumerate(devices):
            try:
                pids[i] = [p.pid for p in n.nvmlDeviceGetComputeRunningProcesses(d)]
            except n.NVMLError:
                pids[i] = []
        # MIG: a MIG device, GPU and compute instances of the first device in MIG mode.
        for i, d in enumerate(devices):
            try:
                if n.nvmlDeviceGetMigMode(d)[0] != 1:
                    continue
            except n.NVMLError:
                continue
            try:
                subjects.setdefault("mig", []).append((f"gpu{i}/mig0", n.nvmlDeviceGetMigDeviceHandleByIndex(d, 0)))
            except n.NVMLError:
                pass
            for prof in range(n.NVML_GPU_INSTANCE_PROFILE_COUNT):
                try:
                    info = n.nvmlDeviceGetGpuInstanceProfileInfo(d, prof)
                    arr = (n.c_nvmlGpuInstance_t * 8)()
                    cnt = ctypes.c_uint(0)
                    n.nvmlDeviceGetGpuInstances(d, info.id, arr, ctypes.byref(cnt))
                    if cnt.value:
                        subjects.setdefault("gi", []).append((f"gpu{i}/gi", arr[0]))
                        break
                except n.NVMLError:
                    pass
            break
        for _, gi in subjects.get("gi", [])[:1]:
            for prof in range(n.NVML_COMPUTE_INSTANCE_PROFILE_COUNT):
                try:
                    info = n.nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, prof, 0)
                    arr = (n.c_nvmlComputeInstance_t * 8)()
                    cnt = ctypes.c_uint(0)
                    n.nvmlGpuInstanceGetComputeInstances(gi, info.id, arr, ctypes.byref(cnt))
                    if cnt.value:
                        subjects.setdefault("ci", []).append(("ci", arr[0]))
                        break
                except n.NVMLError:
                    pass
        # vGPU: a supported type and an active instance of the first device that has them.
        for d in devices:
            try:
                types = n.nvmlDeviceGetSupportedVgpus(d)
                if types:
                    subjects.setdefault("vgpu_type", []).append(("vgpu-type", types[0]))
                    subjects.setdefault("vgpu_host", []).append(("vgpu-host", d))
                inst = n.nvmlDeviceGetActiveVgpus(d)
                if inst:
                    subjects.setdefault("vgpu", []).append(("vgpu", inst[0]))
                if types:
                    break
            except n.NVMLError:
                pass
        try:
            if n.nvmlUnitGetCount() > 0:
                subjects["unit"] = [("unit0", n.nvmlUnitGetHandleByIndex(0))]
        except n.NVMLError:
            pass
        self.subjects, self.devices, self.pids = subjects, devices, pids

        for name in sorted(dir(n)):
            f = getattr(n, name)
            if not name.startswith("nvml") or not inspect.isfunction(f) or not is_query(name) or name in self.skip:
                continue
            print(json.dumps({"start": name}), flush=True)
            self.call_all(name, f)
            print(json.dumps({"done": name, "outcomes": self.results[name]}), flush=True)
        n.nvmlShutdown()
        return self.results

    def call_all(self, name, f):
        params = [p for p in inspect.signature(f).parameters.values()]
        required = [p for p in params if p.default is inspect.Parameter.empty]
        first = required[0].name if required else None
        # The object a function is called on: its name's prefix, as in nvml.h.
        kind = None
        for prefix, k in [("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "mig"), ("nvmlDevice", "device"),
                          ("nvmlGpm", "device"), ("nvmlGpuInstance", "gi"), ("nvmlComputeInstance", "ci"),
                          ("nvmlVgpuTypeGet", "vgpu_type"), ("nvmlVgpuInstance", "vgpu"), ("nvmlUnit", "unit")]:
            if name.startswith(prefix) and first in ("handle", "device", "migDevice", "gpuInstance", "computeInstance",
                                                     "vgpuTypeId", "vgpuInstance", "unit"):
                # `nvmlVgpuTypeGetMaxInstances(handle, vgpuTypeId)` is a device's.
                kind = "device" if k == "vgpu_type" and first == "handle" else k
                break
        if kind is None:
            targets = [("system", None)]
        else:
            targets = self.subjects.get(kind, [])
            if kind == "device":
                if "Vgpu" in name:
                    targets = self.subjects.get("vgpu_host", [])[:1] or targets[:1]
                else:
                    # Device queries go to every GPU, and to a MIG device when there is one.
                    targets = targets + self.subjects.get("mig", [])
        if not targets:
            self.results[name] = {"-": "no-subject"}
            return
        out = {}
        for label, obj in targets:
            try:
                args = [self.arg(name, p.name, i, obj) for i, p in enumerate(required)]
            except LookupError as e:
                out[label] = f"no-argument:{e}"
                continue
            except self.n.NVMLError as e:
                out[label] = f"no-argument:{e}"
                continue
            out[label] = self.call(f, args)
        self.results[name] = out

    def call(self, f, args):
        """The outcome, `@` the last C symbol the binding looked up for it."""
        self.symbols, self.returns = [], []
        outcome = self.outcome(f, args)
        # A wrapper that returned without raising on the library's error.
        last = self.returns[-1] if self.returns else 0
        if outcome == "SUCCESS" and isinstance(last, int) and last != 0:
            outcome = self.code_name(last)
        return f"{outcome}@{self.symbols[-1]}" if self.symbols else outcome

    def outcome(self, f, args):
        n = self.n
        try:
            f(*args)
            return "SUCCESS"
        except n.NVMLError as e:
            # pynvml raises on SUCCESS in a few list functions when the list is empty.
            return self.code_name(e.value)
        except Exception as e:  # the binding's own failure (a wrong argument, a decode error)
            return f"python:{type(e).__name__}"

    def code_name(self, code):
        for k in dir(self.n):
            if k.startswith("NVML_ERROR_") and getattr(self.n, k) == code:
                return k
        return "SUCCESS" if code == 0 else f"ERROR_{code}"

    def arg(self, fname, pname, index, obj):
        n = self.n
        devs = self.devices
        # nvidia-ml-py defines this constant as a one-element tuple.
        p2p_read = n.NVML_P2P_CAPS_INDEX_READ
        p2p_read = p2p_read[0] if isinstance(p2p_read, tuple) else p2p_read
        simple = {
            "device1": devs[0], "device2": devs[-1], "handle1": devs[0], "handle2": devs[-1],
            "type": n.NVML_CLOCK_GRAPHICS, "clockType": n.NVML_CLOCK_GRAPHICS, "id": n.NVML_CLOCK_ID_CURRENT,
            "sensor": n.NVML_TEMPERATURE_GPU, "threshold": n.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
            "link": 0, "counter": 0, "capability": 0, "errorType": n.NVML_MEMORY_ERROR_TYPE_CORRECTED,
            "counterType": n.NVML_VOLATILE_ECC, "locationType": n.NVML_MEMORY_LOCATION_DEVICE_MEMORY,
            "sourceFilter": n.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
            "fieldIds": [n.NVML_FI_DEV_POWER_INSTANT, n.NVML_FI_DEV_ECC_CURRENT, n.NVML_FI_DEV_MEMORY_TEMP],
            "timeStamp": 0, "sampling_type": n.NVML_GPU_UTILIZATION_SAMPLES,
            "perfPolicyType": n.NVML_PERF_POLICY_POWER, "infoRomObject": n.NVML_INFOROM_OEM,
            "fan": 0, "index": 0, "level": n.NVML_TOPOLOGY_SYSTEM, "cpuNumber": 0, "cpuSetSize": 4,
            "nodeSetSize": 4, "scope": 0, "encoderQueryType": n.NVML_ENCODER_QUERY_H264,
            "profile": n.NVML_GPU_INSTANCE_PROFILE_1_SLICE, "engProfile": 0,
            "apiType": n.NVML_RESTRICTED_API_SET_APPLICATION_CLOCKS, "pstate": n.NVML_PSTATE_0,
            "p2pIndex": p2p_read, "sensorindex": 0, "moduleId": 0,
            "mode": n.NVML_PROCESS_MODE_COMPUTE if "Process" in fname else 0,
            "version": n.nvmlProcessDetailList_v1 if "Process" in fname else 2,
            "gpuInstanceId": 1, "computeInstanceId": 0,
        }
        if index == 0 and obj is not None:
            return obj
        if pname in ("handle", "device", "migDevice", "gpuInstance", "computeInstance", "vgpuInstance", "unit"):
            if obj is not None:
                return obj
            raise LookupError(pname)
        if pname == "vgpuTypeId":
            t = self.subjects.get("vgpu_type")
            if not t:
                raise LookupError(pname)
            return t[0][1]
        if pname in ("gpuInstancesRef", "computeInstancesRef"):
            return (n.c_nvmlGpuInstance_t * 8)() if pname == "gpuInstancesRef" else (n.c_nvmlComputeInstance_t * 8)()
        if pname == "placementsRef":
            cls = n.c_nvmlGpuInstancePlacement_t if fname.startswith("nvmlDevice") else n.c_nvmlComputeInstancePlacement_t
            return (cls * 8)()
        if pname == "countRef":
            return ctypes.byref(ctypes.c_uint(8))
        if pname == "pid":
            for pl in self.pids.values():
                if pl:
                    return pl[0]
            return os.getpid()
        if pname == "uuid":
            return n.nvmlDeviceGetUUID(self.devices[0])
        if pname == "serial":
            return n.nvmlDeviceGetSerial(self.devices[0])
        if pname == "pciBusId":
            return n.nvmlDeviceGetPciInfo(self.devices[0]).busId
        if pname == "memoryClockMHz":
            clocks = n.nvmlDeviceGetSupportedMemoryClocks(obj if obj is not None else self.devices[0])
            return clocks[0]
        if pname == "profileId":
            if fname.startswith("nvmlGpuInstance"):
                return n.nvmlGpuInstanceGetComputeInstanceProfileInfo(obj, 0, 0).id
            return n.nvmlDeviceGetGpuInstanceProfileInfo(obj if obj is not None else self.devices[0], 0).id
        if pname in ("gpmSample",):
            return n.nvmlGpmSampleAlloc()
        if pname == "metricsGet":
            m = n.c_nvmlGpmMetricsGet_t()
            m.version = n.NVML_GPM_METRICS_GET_VERSION
            m.numMetrics = 1
            m.sample1 = n.nvmlGpmSampleAlloc()
            m.sample2 = n.nvmlGpmSampleAlloc()
            d = self.devices[0]
            n.nvmlGpmSampleGet(d, m.sample1)
            n.nvmlGpmSampleGet(d, m.sample2)
            m.metrics[0].metricId = n.NVML_GPM_METRIC_SM_UTIL
            return m
        if pname in ("eventSet",):
            return n.nvmlEventSetCreate()
        if pname in ("setHandle",):
            raise LookupError(pname)
        if pname in simple:
            return simple[pname]
        s = self.struct_for(fname, pname, index)
        if s is not None:
            # Some functions take the pointer from the caller (`fn(device, info)`), others
            # make it themselves (`fn(device, byref(info))`).
            source = inspect.getsource(getattr(n, fname))
            return s if re.search(r"byref\(\s*%s\s*\)" % re.escape(pname), source) else ctypes.byref(s)
        raise LookupError(pname)


def child(header, skip):
    import pynvml
    try:
        Census(pynvml, header, skip).run()
    except pynvml.NVMLError as e:
        print(json.dumps({"fatal": str(e)}), flush=True)


def census(profile, header):
    """Runs the census of `profile` in child processes: a function that crashes the process is
    recorded as `crash`, and a new child goes on after it."""
    results = collections.OrderedDict()
    skip = []
    while True:
        env = dict(os.environ, NVML_MOCK_PROFILE=profile)
        cmd = [sys.executable, os.path.abspath(__file__), "--child", profile, "--header", header, "--skip", ",".join(skip)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        started = None
        for line in out.stdout.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "fatal" in msg:
                sys.exit(f"{profile}: {msg['fatal']}")
            if "start" in msg:
                started = msg["start"]
            if "done" in msg:
                results[msg["done"]] = msg["outcomes"]
                started = None
        if out.returncode == 0 and started is None:
            return results
        if started is None:
            sys.exit(f"{profile}: the census failed:\n{out.stdout}{out.stderr}")
        results[started] = {"-": f"crash (exit {out.returncode})"}
        skip = list(results)


def summarize(profile, res):
    calls = collections.Counter()
    functions = collections.Counter()
    for fname, by in res.items():
        outcomes = list(by.values())
        for o in outcomes:
            calls[bucket(o)] += 1
        buckets = [bucket(o) for o in outcomes]
        best = "SUCCESS" if "SUCCESS" in buckets else buckets[0]
        functions[best] += 1
    return calls, functions


def bucket(o):
    o = o.split("@")[0]
    if o.startswith("no-argument") or o == "no-subject":
        return "not called"
    if o.startswith("python:"):
        return "binding error"
    if o.startswith("crash"):
        return "crash"
    return o


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profiles", nargs="*")
    ap.add_argument("--header", default=DEFAULT_HEADER)
    ap.add_argument("--verbose", action="store_true", help="every function's outcome per subject")
    ap.add_argument("--json", action="store_true", help="the raw outcomes as JSON")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--skip", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.header, set(filter(None, a.skip.split(","))))
        return
    everything = {p: census(p, a.header) for p in a.profiles or PROFILES}
    if a.json:
        print(json.dumps(everything, indent=1, sort_keys=True))
        return
    for p, res in everything.items():
        calls, functions = summarize(p, res)
        called = sum(v for k, v in calls.items() if k != "not called")
        fcalled = sum(v for k, v in functions.items() if k != "not called")
        print(f"{p}: calls {calls['SUCCESS']}/{called} succeed; functions {functions['SUCCESS']}/{fcalled} succeed "
              f"(on some subject); {functions['not called']} not called")
        for k, v in sorted(calls.items(), key=lambda kv: -kv[1]):
            if k != "SUCCESS":
                print(f"    {k}: {v} calls")
        if a.verbose:
            for fname, by in res.items():
                outs = collections.Counter(o.split("@")[0] for o in by.values())
                print(f"    {fname}: " + ", ".join(f"{o} x{c}" if c > 1 else o for o, c in outs.items()))


if __name__ == "__main__":
    main()
