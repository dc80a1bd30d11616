# Questions for the real driver, answered with plain ctypes calls (nothing that changes state).
import ctypes, sys
from ctypes import byref, c_uint, c_int
lib = ctypes.CDLL(sys.argv[1])
print("init", lib.nvmlInit_v2())
cap = c_uint(7)
print("vgpu driver caps 0, first call:", lib.nvmlGetVgpuDriverCapabilities(0, byref(cap)), cap.value)
print("vgpu driver caps 1:", lib.nvmlGetVgpuDriverCapabilities(1, byref(cap)), cap.value)
sup = (c_uint * 2)(); cur = (c_uint * 2)()
print("vgpu version:", lib.nvmlGetVgpuVersion(byref(sup), byref(cur)), list(sup), list(cur))
print("vgpu driver caps 0, after:", lib.nvmlGetVgpuDriverCapabilities(0, byref(cap)), cap.value)
print("vgpu driver caps 0, NULL:", lib.nvmlGetVgpuDriverCapabilities(0, None))
dev = ctypes.c_void_p()
print("handle", lib.nvmlDeviceGetHandleByIndex_v2(0, byref(dev)))
class Off(ctypes.Structure):
    _fields_ = [("version", c_uint), ("type", c_uint), ("pstate", c_uint), ("clockOffsetMHz", c_int), ("minClockOffsetMHz", c_int), ("maxClockOffsetMHz", c_int)]
for t in range(5):
    for p in (0, 1, 2, 15, 32):
        o = Off(version=(ctypes.sizeof(Off) | (1 << 24)), type=t, pstate=p)
        r = lib.nvmlDeviceGetClockOffsets(dev, byref(o))
        print("clock offsets type %d pstate %d: %d" % (t, p, r), o.clockOffsetMHz, o.minClockOffsetMHz, o.maxClockOffsetMHz)
for mode in range(5):
    class PL(ctypes.Structure):
        _fields_ = [("version", c_uint), ("mode", c_uint), ("numProcArrayEntries", c_uint), ("procArray", ctypes.c_void_p)]
    pl = PL(version=(ctypes.sizeof(PL) | (1 << 24)), mode=mode)
    print("process detail list mode %d: %d" % (mode, lib.nvmlDeviceGetRunningProcessDetailList(dev, byref(pl))), pl.numProcArrayEntries)
level = c_uint(0)
print("common ancestor self:", lib.nvmlDeviceGetTopologyCommonAncestor(dev, dev, byref(level)), level.value)
st = c_uint(9)
for i in range(7):
    print("p2p self index %d:" % i, lib.nvmlDeviceGetP2PStatus(dev, dev, i, byref(st)), st.value)
mig = ctypes.c_void_p()
print("mig handle by index 0 on a GPU without MIG:", lib.nvmlDeviceGetMigDeviceHandleByIndex(dev, 0, byref(mig)))
print("parent of a GPU handle:", lib.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(dev, byref(mig)))
cnt = c_uint(9)
print("max mig device count:", lib.nvmlDeviceGetMaxMigDeviceCount(dev, byref(cnt)), cnt.value)
# The vGPU driver capability after each device-level vGPU query (the capture saw NOT_SUPPORTED).
def caps(tag):
    c = c_uint(7)
    print("vgpu driver caps 0 after %s:" % tag, lib.nvmlGetVgpuDriverCapabilities(0, byref(c)), c.value)
m = c_uint(0)
print("virtualization mode:", lib.nvmlDeviceGetVirtualizationMode(dev, byref(m)), m.value); caps("virtualization mode")
print("host vgpu mode:", lib.nvmlDeviceGetHostVgpuMode(dev, byref(m)), m.value); caps("host vgpu mode")
n = c_uint(0)
print("supported vgpus:", lib.nvmlDeviceGetSupportedVgpus(dev, byref(n), None), n.value); caps("supported vgpus")
print("creatable vgpus:", lib.nvmlDeviceGetCreatableVgpus(dev, byref(n), None), n.value); caps("creatable vgpus")
for cap in range(6):
    print("device vgpu capability %d:" % cap, lib.nvmlDeviceGetVgpuCapabilities(dev, cap, byref(m)), m.value)
caps("device vgpu capabilities")
n = c_uint(0)
print("active vgpus:", lib.nvmlDeviceGetActiveVgpus(dev, byref(n), None), n.value); caps("active vgpus")
print("shutdown", lib.nvmlShutdown())
print("init with flags 0", lib.nvmlInitWithFlags(0)); caps("nvmlInitWithFlags(0)")
n = c_uint(0)
print("device count:", lib.nvmlDeviceGetCount_v2(byref(n)), n.value); caps("device count")
print("cc gpus ready:", lib.nvmlSystemGetConfComputeGpusReadyState(byref(n)), n.value); caps("conf compute gpus ready state")
print("nvlink bw mode:", lib.nvmlSystemGetNvlinkBwMode(byref(n)), n.value); caps("nvlink bw mode")
print("handle", lib.nvmlDeviceGetHandleByIndex_v2(0, byref(dev))); caps("handle by index")
print("shutdown", lib.nvmlShutdown())
# Field values: one field per call, scope 0, against a pynvml-like batch of 1..307 and 64-field
# chunks from 0 (the capture's), and the power fields with scopes 0-2.
class FV(ctypes.Structure):
    _fields_ = [("fieldId", c_uint), ("scopeId", c_uint), ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong), ("valueType", c_int), ("nvmlReturn", c_int), ("value", ctypes.c_ulonglong)]
print("init", lib.nvmlInit_v2()); lib.nvmlDeviceGetHandleByIndex_v2(0, byref(dev))
def ask(ids, scope=0):
    arr = (FV * len(ids))()
    for i, f in enumerate(ids): arr[i].fieldId = f; arr[i].scopeId = scope
    r = lib.nvmlDeviceGetFieldValues(dev, len(ids), arr)
    return r, {a.fieldId: (a.nvmlReturn, a.valueType, a.value) for a in arr}
single = {f: ask([f])[1][f] for f in range(0, 320)}
rb, batch = ask(list(range(1, 308)))
chunk = {}
for start in range(0, 320, 64):
    chunk.update(ask(list(range(start, start + 64)))[1])
print("fields batch rc", rb)
for f in range(0, 320):
    s1, b, c = single[f], batch.get(f), chunk[f]
    if s1 != b or s1 != c:
        print("field %d: single %s batch %s chunk64 %s" % (f, s1, b, c))
print("fields single (not errors):", {f: v for f, v in single.items() if v[0] == 0})
for f in range(185, 197):
    print("field %d scopes:" % f, [ask([f], sc)[1][f] for sc in (0, 1, 2)])
r, same = ask([1] * 300)
print("300 x field 1:", r, sorted(set((i, v) for i, v in enumerate([(a) for a in [same[1]]]))))
arr = (FV * 300)()
for i in range(300): arr[i].fieldId = 1
print("300 x field 1 rc:", lib.nvmlDeviceGetFieldValues(dev, 300, arr), "filled up to:", max([i for i in range(300) if arr[i].valueType == 3] + [-1]))
print("shutdown", lib.nvmlShutdown())
