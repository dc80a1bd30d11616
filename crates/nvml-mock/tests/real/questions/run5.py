# Run 5 questions (plain ctypes; getters only): which fields a multi-field request leaves
# unwritten, and GPM metrics from samples taken back to back.
import ctypes, sys, time
from ctypes import byref, c_uint, c_int
lib = ctypes.CDLL(sys.argv[1])
print("init", lib.nvmlInit_v2())
dev = ctypes.c_void_p(); print("handle", lib.nvmlDeviceGetHandleByIndex_v2(0, byref(dev)))
class FV(ctypes.Structure):
    _fields_ = [("fieldId", c_uint), ("scopeId", c_uint), ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong), ("valueType", c_int), ("nvmlReturn", c_int), ("value", ctypes.c_ulonglong)]
def ask(ids, fill=0):
    arr = (FV * len(ids))()
    for i, f in enumerate(ids):
        arr[i].fieldId = f; arr[i].valueType = fill; arr[i].nvmlReturn = fill; arr[i].value = fill; arr[i].timestamp = fill
    r = lib.nvmlDeviceGetFieldValues(dev, len(ids), arr)
    return r, [(a.nvmlReturn, a.valueType, a.value, a.timestamp != fill) for a in arr]
single = {f: ask([f], 0x5a)[1][0] for f in range(1, 320)}
errs = [f for f in range(1, 308) if single[f][0] == 3]
oks = [f for f in range(1, 308) if single[f][0] == 0]
print("single ok:", oks)
print("single NOT_SUPPORTED:", errs)
print("single other:", {f: single[f][0] for f in range(1, 320) if single[f][0] not in (0, 3)})
# Untouched entries: prefilled with 0x5a, to tell "written as zero" from "not written".
for partner, why in ((1, "a field that succeeds"), (7, "a NOT_SUPPORTED field"), (400, "an unknown field id")):
    diff_after, diff_before = [], []
    for f in range(1, 308):
        r, a = ask([f, partner], 0x5a)
        if a[0][:3] != single[f][:3]: diff_after.append((f, a[0]))
        r, b = ask([partner, f], 0x5a)
        if b[1][:3] != single[f][:3]: diff_before.append((f, b[1]))
    print("with %s (%d) after: %s" % (why, partner, diff_after))
    print("with %s (%d) before: %s" % (why, partner, diff_before))
for ids in ([187, 188], [187, 1], [1, 187], [187, 7], [7, 187], [187, 256], [256, 187], [187, 400], [256, 7], [7, 256], [256, 301], [193, 194, 196], [82, 195], list(range(1, 308)), list(range(256, 320)), list(range(192, 256)), list(range(128, 192))):
    r, a = ask(ids, 0x5a)
    bad = [(f, x) for f, x in zip(ids, a) if x[:3] != single.get(f, (None,))[:3]]
    print("request %s%s: rc %d, differs from single: %s" % (ids[:8], "..." if len(ids) > 8 else "", r, bad))
# GPM: the same metrics from samples taken back to back, 10 ms and 100 ms apart.
class GM(ctypes.Structure):
    _fields_ = [("metricId", c_uint), ("nvmlReturn", c_int), ("value", ctypes.c_double), ("a", ctypes.c_void_p), ("b", ctypes.c_void_p), ("c", ctypes.c_void_p)]
class GMG(ctypes.Structure):
    _fields_ = [("version", c_uint), ("numMetrics", c_uint), ("s1", ctypes.c_void_p), ("s2", ctypes.c_void_p), ("metrics", GM * 210)]
for gap in (0, 0.01, 0.1):
    s1 = ctypes.c_void_p(); s2 = ctypes.c_void_p()
    lib.nvmlGpmSampleAlloc(byref(s1)); lib.nvmlGpmSampleAlloc(byref(s2))
    lib.nvmlGpmSampleGet(dev, s1); time.sleep(gap); lib.nvmlGpmSampleGet(dev, s2)
    g = GMG(version=1, numMetrics=3, s1=s1, s2=s2)
    for i, m in enumerate((1, 2, 10)): g.metrics[i].metricId = m
    r = lib.nvmlGpmMetricsGet(byref(g))
    print("gpm gap %s s: rc %d" % (gap, r), [(g.metrics[i].metricId, g.metrics[i].nvmlReturn, g.metrics[i].value) for i in range(3)])
    lib.nvmlGpmSampleFree(s1); lib.nvmlGpmSampleFree(s2)
print("shutdown", lib.nvmlShutdown())
