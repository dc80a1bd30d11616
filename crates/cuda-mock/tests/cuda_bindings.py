"""NVIDIA's cuda-bindings against the CUDA mock, checked against what pynvml reads from the
NVML mock of the same process: run by tests/clients.rs with LD_LIBRARY_PATH on a directory
that holds the mock's libcuda.so.1 and libnvidia-ml.so.1, and NVML_MOCK_PROFILE set.

`python3 cuda_bindings.py check`: every CUDA device's name, UUID, PCI bus id (both ways),
compute capability and total memory, and the driver version, equal NVML's; the device list
is the one CUDA's rules give from NVML's GPUs; then CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER
variants, each in a child process, select the devices they should. Prints one line per
device and `ok`; any difference is an AssertionError naming it.

`python3 cuda_bindings.py list`: the UUIDs CUDA shows (JSON), or the error of cuInit.
"""

import json
import os
import subprocess
import sys

from cuda.bindings import driver as cu
import pynvml


def call(result):
    """The values of a cuda-bindings call, asserting success."""
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, f"{err!r}"
    return values[0] if len(values) == 1 else tuple(values)


def cuda_uuid(dev, mig):
    raw = bytes(call(cu.cuDeviceGetUuid(dev)).bytes)
    h = raw.hex()
    return ("MIG-" if mig else "GPU-") + f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def text(b):
    return b.split(b"\0", 1)[0].decode()


def cuda_list():
    (err,) = cu.cuInit(0)
    if err != cu.CUresult.CUDA_SUCCESS:
        return {"error": err.name}
    out = []
    for i in range(call(cu.cuDeviceGetCount())):
        dev = call(cu.cuDeviceGet(i))
        name = text(call(cu.cuDeviceGetName(96, dev)))
        out.append(cuda_uuid(dev, " MIG " in name))
    return {"uuids": out}


def pci_key(bus_id):
    """`(domain, bus, device)` of `00000000:18:00.0` or `0000:18:00.0`."""
    domain, bus, rest = bus_id.split(":")
    return (int(domain, 16), int(bus, 16), int(rest.split(".")[0], 16))


def nvml_devices():
    """What CUDA should show, from NVML alone, in CUDA's default order (fastest first, then
    by PCI bus id): each GPU, or the MIG devices of one in MIG mode (one in all)."""
    gpus = []
    for i in range(pynvml.nvmlDeviceGetCount()):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        pci = pynvml.nvmlDeviceGetPciInfo_v3(h)
        bus = pci.busId.decode() if isinstance(pci.busId, bytes) else pci.busId
        try:
            speed = pynvml.nvmlDeviceGetNumGpuCores(h) * pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM)
        except pynvml.NVMLError:
            speed = 0
        try:
            mig = pynvml.nvmlDeviceGetMigMode(h)[0] == pynvml.NVML_DEVICE_MIG_ENABLE
        except pynvml.NVMLError:
            mig = False
        devices = [h]
        if mig:
            devices = []
            for m in range(pynvml.nvmlDeviceGetMaxMigDeviceCount(h)):
                try:
                    devices.append(pynvml.nvmlDeviceGetMigDeviceHandleByIndex(h, m))
                except pynvml.NVMLError:
                    pass
        gpus.append((-speed, pci_key(bus), h, devices, mig))
    gpus.sort(key=lambda g: (g[0], g[1]))
    out, seen_mig = [], False
    for _, _, parent, devices, mig in gpus:
        for d in devices:
            if mig and seen_mig:
                continue
            seen_mig = seen_mig or mig
            out.append((d, parent, mig))
    return out


def check():
    call(cu.cuInit(0))
    pynvml.nvmlInit()
    assert call(cu.cuDriverGetVersion()) == pynvml.nvmlSystemGetCudaDriverVersion()
    expected = nvml_devices()
    count = call(cu.cuDeviceGetCount())
    assert count == len(expected), f"CUDA shows {count} devices, NVML's GPUs make {len(expected)}"
    uuids = []
    for i, (h, parent, mig) in enumerate(expected):
        dev = call(cu.cuDeviceGet(i))
        name = text(call(cu.cuDeviceGetName(96, dev)))
        assert name == pynvml.nvmlDeviceGetName(h), f"device {i}: name {name!r}"
        uuid = cuda_uuid(dev, mig)
        assert uuid == pynvml.nvmlDeviceGetUUID(h), f"device {i}: UUID {uuid}"
        pci = pynvml.nvmlDeviceGetPciInfo_v3(parent)
        nvml_bus = pci.busId.decode() if isinstance(pci.busId, bytes) else pci.busId
        bus = text(call(cu.cuDeviceGetPCIBusId(32, dev)))
        assert pci_key(bus) == pci_key(nvml_bus), f"device {i}: PCI bus id {bus}, NVML {nvml_bus}"
        if not mig:
            assert int(call(cu.cuDeviceGetByPCIBusId(nvml_bus.encode()))) == int(dev), f"device {i}: by bus id"
        attr = cu.CUdevice_attribute
        for a, v in [(attr.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, pci.bus), (attr.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, pci.domain)]:
            assert call(cu.cuDeviceGetAttribute(a, dev)) == v, f"device {i}: {a.name}"
        cc = pynvml.nvmlDeviceGetCudaComputeCapability(parent)
        assert tuple(call(cu.cuDeviceComputeCapability(dev))) == tuple(cc), f"device {i}: compute capability"
        major = call(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
        assert major == cc[0], f"device {i}: compute capability major {major}"
        total = call(cu.cuDeviceTotalMem(dev))
        assert total == pynvml.nvmlDeviceGetMemoryInfo(h).total, f"device {i}: total memory {total}"
        sms = call(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))
        assert sms > 0, f"device {i}: {sms} multiprocessors"
        print(f"{i}: {name} {uuid} {bus} sm_{cc[0]}{cc[1]} {total} bytes {sms} SMs")
        uuids.append(uuid)
    # The bad input the driver refuses with its codes.
    assert cu.cuDeviceGet(count)[0] == cu.CUresult.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuInit(1)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE
    err, _ = cu.cuDeviceGetAttribute(cu.CUdevice_attribute(1), count)
    assert err == cu.CUresult.CUDA_ERROR_INVALID_DEVICE
    visible(uuids, expected)
    print("ok")


def child(env):
    e = dict(os.environ)
    e.pop("CUDA_VISIBLE_DEVICES", None)
    e.pop("CUDA_DEVICE_ORDER", None)
    e.update(env)
    out = subprocess.run([sys.executable, __file__, "list"], env=e, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def visible(uuids, expected):
    """CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, each in a child process."""
    cases = [({"CUDA_VISIBLE_DEVICES": ""}, {"error": "CUDA_ERROR_NO_DEVICE"})]
    if len(uuids) >= 2:
        cases += [
            ({"CUDA_VISIBLE_DEVICES": "1,0"}, {"uuids": [uuids[1], uuids[0]]}),
            ({"CUDA_VISIBLE_DEVICES": f"{uuids[-1]},0"}, {"uuids": [uuids[-1], uuids[0]]}),
            ({"CUDA_VISIBLE_DEVICES": "0,99,1"}, {"uuids": [uuids[0]]}),
            ({"CUDA_VISIBLE_DEVICES": "0,0"}, {"uuids": [uuids[0]]}),
        ]
        prefix = uuids[1][:12]
        if sum(u.startswith(prefix) for u in uuids) == 1:
            cases.append(({"CUDA_VISIBLE_DEVICES": prefix}, {"uuids": [uuids[1]]}))
    by_pci = sorted(
        zip(uuids, expected),
        key=lambda x: pci_key(pynvml.nvmlDeviceGetPciInfo_v3(x[1][1]).busId.decode()
                              if isinstance(pynvml.nvmlDeviceGetPciInfo_v3(x[1][1]).busId, bytes)
                              else pynvml.nvmlDeviceGetPciInfo_v3(x[1][1]).busId),
    )
    cases.append(({"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, {"uuids": [u for u, _ in by_pci]}))
    for u, (_, _, mig) in zip(uuids, expected):
        if mig:
            cases.append(({"CUDA_VISIBLE_DEVICES": u}, {"uuids": [u]}))
    for env, want in cases:
        got = child(env)
        assert got == want, f"{env}: CUDA shows {got}, expected {want}"
        print(f"{env}: {got}")


if __name__ == "__main__":
    if sys.argv[1:] == ["list"]:
        print(json.dumps(cuda_list()))
    else:
        check()
