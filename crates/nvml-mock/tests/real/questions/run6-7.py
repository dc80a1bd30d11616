# Run 6 questions (plain ctypes; getters only): what makes a multi-field request leave a field
# unwritten. For each target field: the shortest prefix 1..n of field ids that, asked for with
# the target, leaves the target unwritten; then the field at n alone with the target.
import ctypes, sys
from ctypes import byref, c_uint, c_int
lib = ctypes.CDLL(sys.argv[1])
print("init", lib.nvmlInit_v2())
dev = ctypes.c_void_p(); print("handle", lib.nvmlDeviceGetHandleByIndex_v2(0, byref(dev)))
class FV(ctypes.Structure):
    _fields_ = [("fieldId", c_uint), ("scopeId", c_uint), ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong), ("valueType", c_int), ("nvmlReturn", c_int), ("value", ctypes.c_ulonglong)]
def ask(ids):
    arr = (FV * len(ids))()
    for i, f in enumerate(ids):
        arr[i].fieldId = f; arr[i].nvmlReturn = 0x5a; arr[i].valueType = 0x5a; arr[i].value = 0x5a
    r = lib.nvmlDeviceGetFieldValues(dev, len(ids), arr)
    return r, [a.nvmlReturn for a in arr]
for target in (187, 193, 251, 256):
    first = None
    for n in range(1, target):
        r, rets = ask(list(range(1, n + 1)) + [target])
        if rets[-1] == 0x5a:
            first = n; break
    if first is None:
        print("target %d: never left unwritten by a prefix" % target); continue
    r2, rets2 = ask([first, target])
    r3, rets3 = ask(list(range(1, first)) + [target])
    untouched = [f for f, x in zip(list(range(1, first + 1)), ask(list(range(1, first + 1)) + [target])[1]) if x == 0x5a]
    print("target %d: unwritten from prefix 1..%d (field %d); [%d, %d] -> %s; prefix 1..%d -> %s; count %d; others unwritten %s" % (target, first, first, first, target, rets2, first - 1, rets3[-1], first + 1, untouched))
for size in (2, 3, 4, 8, 16, 32, 33, 64, 65):
    ids = [1] * (size - 1) + [187]
    print("size %d (field 1 x%d, then 187):" % (size, size - 1), ask(ids)[1][-1])
print("shutdown", lib.nvmlShutdown())
