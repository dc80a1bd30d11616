# Run 8b: what driver 580.159.04 writes into a GPU instance profile record of layout v2 and v3
# (nvmlDeviceGetGpuInstanceProfileInfoV / ByIdV): v2 has isP2pSupported, memory at 48, name at 56;
# v3 has memory at 40, name at 48, capabilities at 144.
# The record is pre-filled with 0xAA so that bytes the driver leaves are seen. Getters only.
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print("init", lib.nvmlInit_v2())
dev = ctypes.c_void_p()
print("handle", lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)))
VER = {2: 33554584, 3: 50331800}
def cstr(b):
    nul = b.find(b"\0")
    return repr(b[: nul if nul >= 0 else 24])
def show(tag, rc, buf):
    raw = bytes(buf)
    print(tag, "rc", rc, "words0-11", raw[0:48].hex(), "name@48", cstr(raw[48:144]), "name@56", cstr(raw[56:152]),
          "@144", raw[144:148].hex(), "@148", raw[148:156].hex())
for p in range(0, 10):
    for v in (2, 3):
        buf = (ctypes.c_ubyte * 256)(*([0xAA] * 256))
        ctypes.memmove(buf, ctypes.byref(ctypes.c_uint(VER[v])), 4)
        rc = lib.nvmlDeviceGetGpuInstanceProfileInfoV(dev, p, buf)
        show(f"profile {p} v{v}", rc, buf)
for pid in (19, 14, 9, 5, 0):
    for v in (2, 3):
        buf = (ctypes.c_ubyte * 256)(*([0xAA] * 256))
        ctypes.memmove(buf, ctypes.byref(ctypes.c_uint(VER[v])), 4)
        rc = lib.nvmlDeviceGetGpuInstanceProfileInfoByIdV(dev, pid, buf)
        show(f"byid {pid} v{v}", rc, buf)
print("shutdown", lib.nvmlShutdown())
