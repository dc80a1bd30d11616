#!/usr/bin/env python3
"""Calls every function of NVIDIA's Python binding (nvidia-ml-py, module `pynvml`) that
nvmlkit's differential test compares, against the library at argv[1] (the mock), and prints
one JSON document on stdout:

    {"pynvml": "<version>", "calls": [{"fn": C function, "obj": object path,
                                        "args": {name: value}, <result>}, ...]}

where <result> is {"ok": value}, {"err": nvmlReturn_t code} or {"pyerr": "..."} (pynvml
itself raised something other than NVMLError: a bug of the binding, or of its reading of
the header). The Rust side (crates/nvml/tests/differential.rs) makes the same calls, in the
same order, through the safe crate and compares.

Object paths: "system", "dev/<index>", "dev/<i>/mig/<j>" (nvmlDeviceGetMigDeviceHandleByIndex),
"dev/<i>/gi/<id>" (nvmlDeviceGetGpuInstanceById), "dev/<i>/gi/<id>/ci-profile/<p>/ci/<id>" (the
compute instance <id> among nvmlGpuInstanceGetComputeInstances(<p>)),
"unit/<index>", "vgpu-type/<id>", "vgpu/<id>", "eventset/<n>", "sysevents/<n>", "gpm/<n>".

Values are normalised to what the C function writes, not to pynvml's friendly form:
structures become objects keyed by C field name, arrays lists, `char` arrays strings,
several out-parameters a list in parameter order, handles "device:<uuid>", "gi:<id>",
"ci:<id>" or "handle". Where pynvml returns a reshaped value (a list around a scalar, None for
NVML_VALUE_NOT_AVAILABLE, a bool), the call below undoes it and says so.

Selector arguments iterate over the values pynvml defines (its own constants), never over
nvmlkit's, so the set of calls does not come from our reading of the header either.

`--getters-only` (argv[2]; the real-driver mode of the test, against a machine's own GPUs):
no call that changes state. The setters, the LED, the PRM register access and the MIG
lifecycle are left out, and `call` refuses any function `changes_state` does not clear, so a
setter added later to a getter section stops the run before it reaches the library. Event
sets and GPM samples are still created, registered and freed (they belong to this process).
"""

import ctypes
import json
import re
import sys
from ctypes import byref, c_uint, c_ulonglong, c_int, POINTER, cast

import pynvml as n

CALLS = []
UUIDS = {}  # handle address -> uuid, for normalising device handles
SETS = {}  # object path -> event set, system event set or GPM sample created by a call
GIS = {}  # device path -> GPU instance ids found
CIS = {}  # GPU instance path -> [(profile id, compute instance id, handle)]
VGPUS = []  # vGPU instances found
GETTERS_ONLY = False  # set by --getters-only: see the module's doc comment

# How a C function's name says whether it changes a GPU's or the system's state: its first
# verb (a CamelCase word, "EventSet" and "GpuSet" being nouns) is one of READ_VERBS, and it
# has no "Write"; anything else counts as a change. The event-set and GPM-sample functions
# change only this process's state.
READ_VERBS = {"Get", "Query", "Is", "On", "Read", "Wait"}
STATE_VERBS = {"Set", "Reset", "Clear", "Create", "Destroy", "Modify", "Freeze", "Validate", "Discover",
               "Force", "Unload", "Activate", "Update", "Write", "Remove", "Register", "Alloc", "Free"}
PROCESS_LOCAL = {"nvmlEventSetCreate", "nvmlEventSetFree", "nvmlDeviceRegisterEvents",
                 "nvmlEventSetRegisterGpuOperationalEvents_v1", "nvmlSystemEventSetCreate",
                 "nvmlSystemEventSetFree", "nvmlSystemRegisterEvents", "nvmlGpmSampleAlloc", "nvmlGpmSampleFree"}


def changes_state(fn):
    """Whether the C function `fn` may change a GPU's or the system's state (the same rule as
    `changes_state` in differential.rs)."""
    if fn in PROCESS_LOCAL:
        return False
    words = re.findall(r"[A-Z][a-z0-9]*", fn.replace("EventSet", "").replace("GpuSet", ""))
    verb = next((w for w in words if w in READ_VERBS or w in STATE_VERBS), None)
    return verb not in READ_VERBS or "Write" in words


def handle_addr(h):
    return ctypes.cast(h, ctypes.c_void_p).value


def device_token(h):
    """A device handle as "device:<uuid>" (through nvmlDeviceGetUUID, not recorded)."""
    if not h:
        return None
    addr = handle_addr(h)
    if addr not in UUIDS:
        try:
            UUIDS[addr] = n.nvmlDeviceGetUUID(h)
        except n.NVMLError as e:
            UUIDS[addr] = "?%d" % e.value
    return "device:" + UUIDS[addr]


# `unsigned char` arrays of nvml.h that pynvml's structures declare as `c_char` (a C string):
# nvmlPlatformInfo_v1_t and _v2_t, "unsigned char ibGuid[16]; //!< Infiniband GUID",
# "unsigned char rackGuid[16]" and "unsigned char chassisSerialNumber[16]". Their bytes are
# read as they are (pynvml's structure decodes them as UTF-8 text, which a binary GUID is not:
# differential/proofs.rs, platform_info_pynvml_reads_bytes_as_text).
BYTE_ARRAYS = {"ibGuid", "rackGuid", "chassisSerialNumber"}


def norm(x):
    """A pynvml value as JSON: see the module's doc comment."""
    if x is None:
        return None
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, (int, float, str)):
        return x
    if isinstance(x, bytes):
        return x.split(b"\0", 1)[0].decode("utf-8", "replace")
    if isinstance(x, (list, tuple)):
        return [norm(v) for v in x]
    if isinstance(x, ctypes.Array):
        if x._type_ is ctypes.c_char:
            return norm(x.value)
        return [norm(v) for v in x]
    if isinstance(x, ctypes._Pointer):
        if isinstance(x, n.c_nvmlDevice_t):
            return device_token(x)
        return "handle" if x else None
    if isinstance(x, ctypes._SimpleCData):
        return norm(x.value)
    if isinstance(x, (ctypes.Structure, ctypes.Union)):
        out = {}
        for f in x._fields_:
            if f[0] in BYTE_ARRAYS and getattr(f[1], "_type_", None) is ctypes.c_char:
                at = ctypes.addressof(x) + getattr(type(x), f[0]).offset
                out[f[0]] = list(ctypes.string_at(at, ctypes.sizeof(f[1])))
                continue
            v = getattr(x, f[0])
            if f[1] is ctypes.c_char:
                # One `char`: a small integer in C (pynvml hands it back as a 1-byte string).
                v = (ord(v) if isinstance(v, str) else v[0]) if v else 0
            out[f[0]] = norm(v)
        return out
    if isinstance(x, n.nvmlFriendlyObject):
        return {k: norm(v) for k, v in vars(x).items()}
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    return "<%s>" % type(x).__name__


def call(fn, obj, args, thunk):
    """Runs `thunk` (a pynvml call) and records its result under (fn, obj, args)."""
    rec = {"fn": fn, "obj": obj, "args": args}
    if GETTERS_ONLY and changes_state(fn):
        raise SystemExit("pynvml_dump.py --getters-only: refusing %s, which changes state" % fn)
    try:
        rec["ok"] = norm(thunk())
    except n.NVMLError as e:
        rec["err"] = e.value
    except Exception as e:  # pynvml's own failure
        rec["pyerr"] = "%s: %s" % (type(e).__name__, e)
    CALLS.append(rec)
    return rec


def value_of(union, value_type):
    """The member of an nvmlValue_t that `value_type` names (as nvmlValue_t is read in C)."""
    member = {n.NVML_VALUE_TYPE_DOUBLE: "dVal", n.NVML_VALUE_TYPE_UNSIGNED_INT: "uiVal",
              n.NVML_VALUE_TYPE_UNSIGNED_LONG: "ulVal", n.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: "ullVal",
              n.NVML_VALUE_TYPE_SIGNED_LONG_LONG: "sllVal", n.NVML_VALUE_TYPE_SIGNED_INT: "siVal",
              n.NVML_VALUE_TYPE_UNSIGNED_SHORT: "usVal"}.get(value_type, "ullVal")
    return getattr(union, member)


def with_value(struct, type_field, value_field):
    """A structure holding an nvmlValue_t, its union read by the type next to it."""
    d = norm(struct)
    d[value_field] = value_of(getattr(struct, value_field), getattr(struct, type_field))
    return d


def with_scheduler_params(struct):
    """A vGPU scheduler record, its schedulerParams union read by arrMode as nvml.h says ("arrMode:
    Adaptive Round Robin scheduler mode. One of the NVML_VGPU_SCHEDULER_ARR_*"; the member
    vgpuSchedDataWithARR for ARR mode, vgpuSchedData without it); under a mode the header
    names no member for, the mode and the union's bytes."""
    d = norm(struct)
    u = struct.schedulerParams
    member = {n.NVML_VGPU_SCHEDULER_ARR_ENABLE: "vgpuSchedDataWithARR",
              n.NVML_VGPU_SCHEDULER_ARR_DISABLE: "vgpuSchedData"}.get(struct.arrMode)
    d["schedulerParams"] = {member: norm(getattr(u, member))} if member else {"Unknown": {"tag": struct.arrMode, "bytes": list(bytes(u))}}
    return d


# Fields whose value nvml.h says stands for "no value", and that value: "Under WDDM,
# NVML_VALUE_NOT_AVAILABLE is always reported" (usedGpuMemory), "Set to
# NVML_VALUE_NOT_AVAILABLE if ... is not supported" (the accounting statistics), "gpuInstanceId
# is set to 0xFFFFFFFF otherwise" (process and event records). pynvml gives None for some of
# them and the number for the others; nvmlkit gives None for all.
NONE_VALUES = {
    "usedGpuMemory": 0xFFFFFFFFFFFFFFFF,
    "maxMemoryUsage": 0xFFFFFFFFFFFFFFFF,
    "gpuUtilization": 0xFFFFFFFF,
    "memoryUtilization": 0xFFFFFFFF,
    "gpuInstanceId": 0xFFFFFFFF,
    "computeInstanceId": 0xFFFFFFFF,
}


def nones(d):
    """A record of the calls above with None for the values nvml.h says stand for none."""
    for f, none in NONE_VALUES.items():
        if f in d and d[f] in (none, None):
            d[f] = None
    return d


def not_available(d, *fields):
    """Undoes pynvml's None for NVML_VALUE_NOT_AVAILABLE (all bits set) in `fields`."""
    for f in fields:
        if d.get(f) is None:
            d[f] = 0xFFFFFFFFFFFFFFFF
    return d


def filled(struct_cls, fn_name, *lead, **fields):
    """Calls `fn_name(*lead, byref(s))` for a fresh `struct_cls` with `fields` set; returns s."""
    def run():
        s = struct_cls()
        for k, v in fields.items():
            setattr(s, k, v)
        ret = n._nvmlGetFunctionPointer(fn_name)(*lead, byref(s))
        n._nvmlCheckReturn(ret)
        return s
    return run


def by_pynvml(fn, *lead, struct, ref=True, **fields):
    """pynvml's wrapper `fn(*lead, struct)` for wrappers that take a caller's structure (by
    reference, or as the structure itself where the wrapper takes the reference: `ref=False`)."""
    def run():
        s = struct()
        for k, v in fields.items():
            setattr(s, k, v)
        ret = fn(*lead, byref(s) if ref else s)
        if isinstance(ret, int) and ret not in (None, n.NVML_SUCCESS):
            raise n.NVMLError(ret)
        return s
    return run


# ---------------------------------------------------------------------------------------------
# System level.

def system_calls():
    s = "system"
    call("nvmlSystemGetDriverVersion", s, {}, n.nvmlSystemGetDriverVersion)
    call("nvmlSystemGetNVMLVersion", s, {}, n.nvmlSystemGetNVMLVersion)
    call("nvmlSystemGetCudaDriverVersion_v2", s, {}, n.nvmlSystemGetCudaDriverVersion_v2)
    call("nvmlSystemGetCudaDriverVersion", s, {}, n.nvmlSystemGetCudaDriverVersion)
    call("nvmlSystemGetHicVersion", s, {}, n.nvmlSystemGetHicVersion)
    call("nvmlSystemGetDriverBranch", s, {}, lambda: n.nvmlSystemGetDriverBranch().branch)
    call("nvmlDeviceGetCount_v2", s, {}, n.nvmlDeviceGetCount)
    call("nvmlUnitGetCount", s, {}, n.nvmlUnitGetCount)
    call("nvmlGetExcludedDeviceCount", s, {}, n.nvmlGetExcludedDeviceCount)
    count = call("nvmlGetExcludedDeviceCount", s, {"again": 1}, n.nvmlGetExcludedDeviceCount).get("ok") or 0
    for i in range(count + 1):
        call("nvmlGetExcludedDeviceInfoByIndex", s, {"index": i}, lambda: n.nvmlGetExcludedDeviceInfoByIndex(i))
    call("nvmlGetVgpuVersion", s, {}, n.nvmlGetVgpuVersion)
    for cap in range(n.NVML_VGPU_DRIVER_CAP_COUNT):
        call("nvmlGetVgpuDriverCapabilities", s, {"capability": cap}, lambda: n.nvmlGetVgpuDriverCapabilities(cap))
    for cpu in (0, 1, 63):
        call("nvmlSystemGetTopologyGpuSet", s, {"cpu": cpu},
             lambda: [device_token(h) for h in n.nvmlSystemGetTopologyGpuSet(cpu)])
    call("nvmlSystemGetConfComputeGpusReadyState", s, {}, n.nvmlSystemGetConfComputeGpusReadyState)
    call("nvmlSystemGetConfComputeCapabilities", s, {}, n.nvmlSystemGetConfComputeCapabilities)
    call("nvmlSystemGetConfComputeState", s, {}, n.nvmlSystemGetConfComputeState)
    call("nvmlSystemGetConfComputeSettings", s, {},
         by_pynvml(n.nvmlSystemGetConfComputeSettings, struct=n.c_nvmlSystemConfComputeSettings_v1_t))
    call("nvmlSystemGetConfComputeKeyRotationThresholdInfo", s, {}, n.nvmlSystemGetConfComputeKeyRotationThresholdInfo)
    call("nvmlSystemGetNvlinkBwMode", s, {}, n.nvmlSystemGetNvlinkBwMode)


def process_names(pids):
    for pid in sorted(set(pids)) + [1]:
        call("nvmlSystemGetProcessName", "system", {"pid": pid}, lambda: n.nvmlSystemGetProcessName(pid))


# ---------------------------------------------------------------------------------------------
# Units.

def unit_calls():
    try:
        count = n.nvmlUnitGetCount()
    except n.NVMLError:
        count = 0
    for i in range(count + 1):
        r = call("nvmlUnitGetHandleByIndex", "system", {"index": i},
                 lambda: "handle" if n.nvmlUnitGetHandleByIndex(i) else None)
        if "ok" not in r:
            continue
        u = n.nvmlUnitGetHandleByIndex(i)
        o = "unit/%d" % i
        call("nvmlUnitGetUnitInfo", o, {}, lambda: n.nvmlUnitGetUnitInfo(u))
        call("nvmlUnitGetLedState", o, {}, lambda: n.nvmlUnitGetLedState(u))
        call("nvmlUnitGetPsuInfo", o, {}, lambda: n.nvmlUnitGetPsuInfo(u))
        for t in (0, 1, 2):
            call("nvmlUnitGetTemperature", o, {"type": t}, lambda: n.nvmlUnitGetTemperature(u, t))
        call("nvmlUnitGetFanSpeedInfo", o, {}, lambda: n.nvmlUnitGetFanSpeedInfo(u))
        call("nvmlUnitGetDevices", o, {}, lambda: [device_token(h) for h in n.nvmlUnitGetDevices(u)])
        if GETTERS_ONLY:
            continue
        call("nvmlUnitSetLedState", o, {"color": n.NVML_LED_COLOR_AMBER}, lambda: n.nvmlUnitSetLedState(u, n.NVML_LED_COLOR_AMBER))
        call("nvmlUnitGetLedState", o, {"after": 1}, lambda: n.nvmlUnitGetLedState(u))


# ---------------------------------------------------------------------------------------------
# Devices (physical and MIG).

# Getters whose pynvml wrapper has the C name and takes only the device handle.
PLAIN_DEVICE_GETTERS = [
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetSerial",
    "nvmlDeviceGetBoardPartNumber",
    "nvmlDeviceGetVbiosVersion",
    "nvmlDeviceGetInforomImageVersion",
    "nvmlDeviceGetInforomConfigurationChecksum",
    "nvmlDeviceGetGspFirmwareVersion",
    "nvmlDeviceGetIndex",
    "nvmlDeviceGetMinorNumber",
    "nvmlDeviceGetBoardId",
    "nvmlDeviceGetMultiGpuBoard",
    "nvmlDeviceGetBrand",
    "nvmlDeviceGetArchitecture",
    "nvmlDeviceGetBusType",
    "nvmlDeviceGetIrqNum",
    "nvmlDeviceGetNumGpuCores",
    "nvmlDeviceGetPowerSource",
    "nvmlDeviceGetMemoryBusWidth",
    "nvmlDeviceGetPcieLinkMaxSpeed",
    "nvmlDeviceGetPcieSpeed",
    "nvmlDeviceGetAdaptiveClockInfoStatus",
    "nvmlDeviceGetNumaNodeId",
    "nvmlDeviceGetCudaComputeCapability",
    "nvmlDeviceGetPerformanceModes",
    "nvmlDeviceGetCurrentClockFreqs",
    "nvmlDeviceGetC2cModeInfoV",
    "nvmlDeviceGetAddressingMode",
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetMaxPcieLinkGeneration",
    "nvmlDeviceGetGpuMaxPcieLinkGeneration",
    "nvmlDeviceGetMaxPcieLinkWidth",
    "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth",
    "nvmlDeviceGetPcieReplayCounter",
    "nvmlDeviceGetAutoBoostedClocksEnabled",
    "nvmlDeviceGetGpcClkVfOffset",
    "nvmlDeviceGetMemClkVfOffset",
    "nvmlDeviceGetSupportedClocksEventReasons",
    "nvmlDeviceGetSupportedClocksThrottleReasons",
    "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetCurrentClocksThrottleReasons",
    "nvmlDeviceGetSupportedPerformanceStates",
    "nvmlDeviceGetPerformanceState",
    "nvmlDeviceGetPowerState",
    "nvmlDeviceGetFanSpeed",
    "nvmlDeviceGetMarginTemperature",
    "nvmlDeviceGetPowerManagementMode",
    "nvmlDeviceGetPowerManagementLimit",
    "nvmlDeviceGetPowerManagementLimitConstraints",
    "nvmlDeviceGetPowerManagementDefaultLimit",
    "nvmlDeviceGetEnforcedPowerLimit",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetTotalEnergyConsumption",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetBAR1MemoryInfo",
    "nvmlDeviceGetEccMode",
    "nvmlDeviceGetRetiredPagesPendingStatus",
    "nvmlDeviceGetRemappedRows",
    "nvmlDeviceGetRowRemapperHistogram",
    "nvmlDeviceGetConfComputeMemSizeInfo",
    "nvmlDeviceGetConfComputeProtectedMemoryUsage",
    "nvmlDeviceGetConfComputeGpuCertificate",
    "nvmlDeviceGetDramEncryptionMode",
    "nvmlDeviceGetDisplayMode",
    "nvmlDeviceGetDisplayActive",
    "nvmlDeviceGetPersistenceMode",
    "nvmlDeviceGetComputeMode",
    "nvmlDeviceGetGpuOperationMode",
    "nvmlDeviceGetDriverModel_v2",
    "nvmlDeviceGetAccountingMode",
    "nvmlDeviceGetAccountingBufferSize",
    "nvmlDeviceGetVirtualizationMode",
    "nvmlDeviceGetHostVgpuMode",
    "nvmlDeviceGetVgpuHeterogeneousMode",
    "nvmlDeviceGetMigMode",
    "nvmlDeviceIsMigDeviceHandle",
    "nvmlDeviceGetGpuInstanceId",
    "nvmlDeviceGetComputeInstanceId",
    "nvmlDeviceGetMaxMigDeviceCount",
    "nvmlDeviceGetAttributes_v2",
    "nvmlDeviceGetPdi",
    "nvmlDeviceGetRepairStatus",
    "nvmlDeviceGetHostname_v1",
    "nvmlDeviceGetUnrepairableMemoryFlag_v1",
    "nvmlDeviceGetBBXTimeData_v1",
    "nvmlDeviceGetLastBBXFlushTime",
    "nvmlDeviceGetBridgeChipInfo",
    "nvmlDeviceGetGridLicensableFeatures_v4",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetEncoderUtilization",
    "nvmlDeviceGetDecoderUtilization",
    "nvmlDeviceGetJpgUtilization",
    "nvmlDeviceGetOfaUtilization",
    "nvmlDeviceGetEncoderStats",
    "nvmlDeviceGetEncoderSessions",
    "nvmlDeviceGetFBCStats",
    "nvmlDeviceGetFBCSessions",
    "nvmlDeviceGetSupportedEventTypes",
    "nvmlGpmQueryDeviceSupport",
    "nvmlGpmQueryIfStreamingEnabled",
    "nvmlDeviceGetVgpuSchedulerCapabilities",
    "nvmlDeviceGetVgpuMetadata",
]


def device_calls(h, o, count):
    """Every per-device getter, on a GPU or a MIG device handle (NVML answers for a MIG device
    what it supports); `count` devices are paired with it."""
    D = lambda fn, thunk, **args: call(fn, o, args, thunk)
    for fn in PLAIN_DEVICE_GETTERS:
        D(fn, lambda: getattr(n, fn)(h))
    for fn in ("nvmlDeviceGetVgpuSchedulerState", "nvmlDeviceGetVgpuSchedulerLog"):
        D(fn, lambda: with_scheduler_params(getattr(n, fn)(h)))
    for obj in range(n.NVML_INFOROM_COUNT):
        D("nvmlDeviceGetInforomVersion", lambda: n.nvmlDeviceGetInforomVersion(h, obj), object=obj)
    D("nvmlDeviceGetGspFirmwareMode", lambda: n.nvmlDeviceGetGspFirmwareMode(h, c_uint(), c_uint()))
    D("nvmlDeviceGetModuleId", lambda: n.nvmlDeviceGetModuleId(h, c_uint()))
    D("nvmlDeviceGetPciInfoExt", by_pynvml(n.nvmlDeviceGetPciInfoExt, h, struct=n.nvmlPciInfoExt_v1_t,
                                            version=n.nvmlPciInfoExt_v1))
    for c in range(n.NVML_PCIE_UTIL_COUNT):
        D("nvmlDeviceGetPcieThroughput", lambda: n.nvmlDeviceGetPcieThroughput(h, c), counter=c)
    for cpu_set_size in (1, 4):
        D("nvmlDeviceGetCpuAffinity", lambda: n.nvmlDeviceGetCpuAffinity(h, cpu_set_size), size=cpu_set_size)
        for scope in (n.NVML_AFFINITY_SCOPE_NODE, n.NVML_AFFINITY_SCOPE_SOCKET):
            D("nvmlDeviceGetCpuAffinityWithinScope",
              lambda: n.nvmlDeviceGetCpuAffinityWithinScope(h, cpu_set_size, scope), size=cpu_set_size, scope=scope)
            D("nvmlDeviceGetMemoryAffinity",
              lambda: n.nvmlDeviceGetMemoryAffinity(h, cpu_set_size, scope), size=cpu_set_size, scope=scope)

    # Clocks.
    for t in range(n.NVML_CLOCK_COUNT):
        D("nvmlDeviceGetClockInfo", lambda: n.nvmlDeviceGetClockInfo(h, t), type=t)
        D("nvmlDeviceGetMaxClockInfo", lambda: n.nvmlDeviceGetMaxClockInfo(h, t), type=t)
        D("nvmlDeviceGetApplicationsClock", lambda: n.nvmlDeviceGetApplicationsClock(h, t), type=t)
        D("nvmlDeviceGetDefaultApplicationsClock", lambda: n.nvmlDeviceGetDefaultApplicationsClock(h, t), type=t)
        D("nvmlDeviceGetMaxCustomerBoostClock", lambda: n.nvmlDeviceGetMaxCustomerBoostClock(h, t), type=t)
        for cid in range(n.NVML_CLOCK_ID_COUNT):
            D("nvmlDeviceGetClock", lambda: n.nvmlDeviceGetClock(h, t, cid), type=t, id=cid)
        for p in list(range(n.NVML_MAX_GPU_PERF_PSTATES)) + [n.NVML_PSTATE_UNKNOWN]:
            D("nvmlDeviceGetMinMaxClockOfPState",
              lambda: n.nvmlDeviceGetMinMaxClockOfPState(h, t, p, c_uint(), c_uint()), type=t, pstate=p)
        # pynvml's wrapper drops the return code: its structure, called directly.
        D("nvmlDeviceGetClockOffsets",
          filled(n.c_nvmlClockOffset_t, "nvmlDeviceGetClockOffsets", h, version=n.nvmlClockOffset_v1, type=t, pstate=0),
          type=t, pstate=0)
    mem = D("nvmlDeviceGetSupportedMemoryClocks", lambda: n.nvmlDeviceGetSupportedMemoryClocks(h)).get("ok") or []
    for m in mem + [1]:
        D("nvmlDeviceGetSupportedGraphicsClocks", lambda: n.nvmlDeviceGetSupportedGraphicsClocks(h, m), memory=m)
    D("nvmlDeviceGetClkMonStatus", lambda: n.nvmlDeviceGetClkMonStatus(h, n.nvmlClkMonStatus_t()))
    D("nvmlDeviceGetGpcClkMinMaxVfOffset", lambda: n.nvmlDeviceGetGpcClkMinMaxVfOffset(h, c_int(), c_int()))
    D("nvmlDeviceGetMemClkMinMaxVfOffset", lambda: n.nvmlDeviceGetMemClkMinMaxVfOffset(h, c_int(), c_int()))
    D("nvmlDeviceGetDynamicPstatesInfo", lambda: n.nvmlDeviceGetDynamicPstatesInfo(h, n.c_nvmlGpuDynamicPstatesInfo_t()))

    # Fans and temperatures.
    fans = D("nvmlDeviceGetNumFans", lambda: n.nvmlDeviceGetNumFans(h)).get("ok") or 0
    for fan in range(fans + 1):
        D("nvmlDeviceGetFanSpeed_v2", lambda: n.nvmlDeviceGetFanSpeed_v2(h, fan), fan=fan)
        D("nvmlDeviceGetTargetFanSpeed", lambda: n.nvmlDeviceGetTargetFanSpeed(h, fan), fan=fan)
        D("nvmlDeviceGetFanControlPolicy_v2", lambda: n.nvmlDeviceGetFanControlPolicy_v2(h, fan, c_uint()), fan=fan)
    # pynvml asks for fan 0 only.
    D("nvmlDeviceGetFanSpeedRPM", lambda: n.nvmlDeviceGetFanSpeedRPM(h), fan=0)
    D("nvmlDeviceGetMinMaxFanSpeed", lambda: n.nvmlDeviceGetMinMaxFanSpeed(h, c_uint(), c_uint()))
    # pynvml asks for cooler 0 only and returns [coolerControlType, coolerTarget].
    D("nvmlDeviceGetCoolerInfo", lambda: n.nvmlDeviceGetCoolerInfo(h), index=0)
    for sensor in range(n.NVML_TEMPERATURE_COUNT):
        D("nvmlDeviceGetTemperature", lambda: n.nvmlDeviceGetTemperature(h, sensor), sensor=sensor)
        D("nvmlDeviceGetTemperatureV", lambda: n.nvmlDeviceGetTemperatureV(h, sensor), sensor=sensor)
    for th in range(n.NVML_TEMPERATURE_THRESHOLD_COUNT):
        D("nvmlDeviceGetTemperatureThreshold", lambda: n.nvmlDeviceGetTemperatureThreshold(h, th), threshold=th)
    for idx in (0, 1, 2, n.NVML_THERMAL_TARGET_ALL):
        # pynvml returns only the `sensor` array.
        D("nvmlDeviceGetThermalSettings",
          lambda: {"sensor": n.nvmlDeviceGetThermalSettings(h, idx, n.c_nvmlGpuThermalSettings_t())}, sensor=idx)

    # Power.
    D("nvmlDeviceGetPowerMizerMode_v1",
      by_pynvml(n.nvmlDeviceGetPowerMizerMode_v1, h, struct=n.c_nvmlDevicePowerMizerModes_v1_t))

    # Memory and ECC.
    D("nvmlDeviceGetMemoryInfo_v2", lambda: n.nvmlDeviceGetMemoryInfo(h, n.nvmlMemory_v2))
    # pynvml wraps the one value in a list.
    D("nvmlDeviceGetDefaultEccMode", lambda: n.nvmlDeviceGetDefaultEccMode(h)[0])
    for et in range(n.NVML_MEMORY_ERROR_TYPE_COUNT):
        for ct in range(n.NVML_ECC_COUNTER_TYPE_COUNT):
            D("nvmlDeviceGetTotalEccErrors", lambda: n.nvmlDeviceGetTotalEccErrors(h, et, ct), error=et, counter=ct)
            D("nvmlDeviceGetDetailedEccErrors", lambda: n.nvmlDeviceGetDetailedEccErrors(h, et, ct), error=et, counter=ct)
            for loc in range(n.NVML_MEMORY_LOCATION_COUNT):
                D("nvmlDeviceGetMemoryErrorCounter", lambda: n.nvmlDeviceGetMemoryErrorCounter(h, et, ct, loc),
                  error=et, counter=ct, location=loc)
    for cause in range(n.NVML_PAGE_RETIREMENT_CAUSE_COUNT):
        D("nvmlDeviceGetRetiredPages", lambda: n.nvmlDeviceGetRetiredPages(h, cause), cause=cause)
        # pynvml returns [{address, timestamp}]; the C function fills two arrays.
        D("nvmlDeviceGetRetiredPages_v2", lambda: (lambda l: {"addresses": [p["address"] for p in l],
                                                              "timestamps": [p["timestamp"] for p in l]})(
            n.nvmlDeviceGetRetiredPages_v2(h, cause)), cause=cause)
    D("nvmlDeviceGetRemappedRows_v2", by_pynvml(n.nvmlDeviceGetRemappedRows_v2, h, struct=n.c_nvmlRemappedRowsInfo_v2_t))
    D("nvmlDeviceGetBankRemapperStatus_v1",
      by_pynvml(n.nvmlDeviceGetBankRemapperStatus_v1, h, struct=n.c_nvmlEccBankRemapperStatus_v1_t))
    D("nvmlDeviceGetSramEccErrorStatus",
      by_pynvml(n.nvmlDeviceGetSramEccErrorStatus, h, struct=n.c_nvmlEccSramErrorStatus_v1_t))
    D("nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts", lambda: sram_unique(h))
    D("nvmlDeviceGetConfComputeGpuAttestationReport",
      lambda: n.nvmlDeviceGetConfComputeGpuAttestationReport(h, list(range(32))), nonce="0..31")

    # Modes and states.
    D("nvmlDeviceGetDriverModel", lambda: n.nvmlDeviceGetDriverModel_v1(h))
    pids = D("nvmlDeviceGetAccountingPids", lambda: n.nvmlDeviceGetAccountingPids(h)).get("ok") or []
    for api in range(n.NVML_RESTRICTED_API_COUNT):
        D("nvmlDeviceGetAPIRestriction", lambda: n.nvmlDeviceGetAPIRestriction(h, api), api=api)
    D("nvmlDeviceGetCapabilities", by_pynvml(n.nvmlDeviceGetCapabilities, h, struct=n.c_nvmlDeviceCapabilities_v1_t))
    D("nvmlDeviceGetPlatformInfo", by_pynvml(n.nvmlDeviceGetPlatformInfo, h, struct=n.c_nvmlPlatformInfo_v2_t))
    D("nvmlDeviceGetAdaptiveTgpModeInfo_v1",
      by_pynvml(n.nvmlDeviceGetAdaptiveTgpModeInfo_v1, h, struct=n.c_nvmlAdaptiveTgpModeInfo_v1_t))
    D("nvmlDeviceWorkloadPowerProfileGetProfilesInfo",
      by_pynvml(n.nvmlDeviceWorkloadPowerProfileGetProfilesInfo, h, struct=n.c_nvmlWorkloadPowerProfileProfilesInfo_v1_t))
    D("nvmlDeviceWorkloadPowerProfileGetCurrentProfiles",
      by_pynvml(n.nvmlDeviceWorkloadPowerProfileGetCurrentProfiles, h,
                struct=n.c_nvmlWorkloadPowerProfileCurrentProfiles_v1_t))
    D("nvmlDeviceGetGpuFabricInfo_v4", lambda: fabric_v4(h))
    D("nvmlDeviceGetGpuFabricInfoV", by_pynvml(n.nvmlDeviceGetGpuFabricInfoV, h, struct=n.c_nvmlGpuFabricInfo_v3_t))
    D("nvmlDeviceGetGpuFabricInfo", by_pynvml(n.nvmlDeviceGetGpuFabricInfo, h, struct=n.c_nvmlGpuFabricInfo_t))
    D("nvmlDevicePerfMetricsGetSamples_v1", lambda: perf_metrics(h))

    # Utilisation and processes.
    # nvmlEncoderType_t: pynvml defines H264, HEVC and AV1 queries.
    for q in (n.NVML_ENCODER_QUERY_H264, n.NVML_ENCODER_QUERY_HEVC, n.NVML_ENCODER_QUERY_AV1):
        D("nvmlDeviceGetEncoderCapacity", lambda: n.nvmlDeviceGetEncoderCapacity(h, q), query=q)
    procs = []
    for fn, py in (("nvmlDeviceGetComputeRunningProcesses_v3", n.nvmlDeviceGetComputeRunningProcesses_v3),
                   ("nvmlDeviceGetComputeRunningProcesses_v2", n.nvmlDeviceGetComputeRunningProcesses_v2),
                   ("nvmlDeviceGetGraphicsRunningProcesses_v3", n.nvmlDeviceGetGraphicsRunningProcesses_v3),
                   ("nvmlDeviceGetGraphicsRunningProcesses_v2", n.nvmlDeviceGetGraphicsRunningProcesses_v2),
                   ("nvmlDeviceGetMPSComputeRunningProcesses_v3", n.nvmlDeviceGetMPSComputeRunningProcesses_v3),
                   ("nvmlDeviceGetMPSComputeRunningProcesses_v2", n.nvmlDeviceGetMPSComputeRunningProcesses_v2)):
        r = D(fn, lambda: [nones(norm(p)) for p in py(h)])
        procs += [p["pid"] for p in r.get("ok") or []]
    for mode in range(n.NVML_PROCESS_MODE_MAX):
        r = D("nvmlDeviceGetRunningProcessDetailList",
              lambda: [nones(not_available(norm(p), "usedGpuCcProtectedMemory"))
                       for p in n.nvmlDeviceGetRunningProcessDetailList(h, n.nvmlProcessDetailList_v1, mode)],
              mode=mode)
    for ts in (0,):
        D("nvmlDeviceGetProcessUtilization", lambda: n.nvmlDeviceGetProcessUtilization(h, ts), since=ts)
        D("nvmlDeviceGetProcessesUtilizationInfo", lambda: n.nvmlDeviceGetProcessesUtilizationInfo(h, ts), since=ts)
        for st in range(n.NVML_SAMPLINGTYPE_COUNT):
            # The type is compared where samples carry it: with none, nvmlkit has no type to
            # report (it types each value; it does not return the type beside them).
            D("nvmlDeviceGetSamples", lambda: (lambda r: [r[0] if r[1] else None, [{"timeStamp": x.timeStamp,
                                                                  "sampleValue": value_of(x.sampleValue, r[0])}
                                                                 for x in r[1]]])(n.nvmlDeviceGetSamples(h, st, ts)),
              type=st, since=ts)
    for pid in sorted(set(pids + procs)) + [1]:
        D("nvmlDeviceGetAccountingStats", lambda: nones(norm(n.nvmlDeviceGetAccountingStats(h, pid))), pid=pid)
        D("nvmlDeviceGetAccountingStats_v2", lambda: nones(norm(n.nvmlDeviceGetAccountingStats_v2(h, pid))), pid=pid)
    for pol in range(n.NVML_PERF_POLICY_COUNT):
        D("nvmlDeviceGetViolationStatus", lambda: n.nvmlDeviceGetViolationStatus(h, pol), policy=pol)

    # Field values: every field id pynvml names, in one call.
    ids = sorted({v for k, v in vars(n).items()
                  if k.startswith("NVML_FI_") and isinstance(v, int) and 0 < v < n.NVML_FI_MAX})
    D("nvmlDeviceGetFieldValues", lambda: [fv_norm(v) for v in n.nvmlDeviceGetFieldValues(h, ids)], fieldIds=ids)

    # NVLink.
    for link in range(n.NVML_NVLINK_MAX_LINKS):
        L = lambda fn, thunk, **args: D(fn, thunk, link=link, **args)
        L("nvmlDeviceGetNvLinkState", lambda: n.nvmlDeviceGetNvLinkState(h, link))
        L("nvmlDeviceGetNvLinkVersion", lambda: n.nvmlDeviceGetNvLinkVersion(h, link))
        L("nvmlDeviceGetNvLinkRemotePciInfo_v2", lambda: n.nvmlDeviceGetNvLinkRemotePciInfo(h, link))
        L("nvmlDeviceGetNvLinkRemoteDeviceType", lambda: n.nvmlDeviceGetNvLinkRemoteDeviceType(h, link))
        for cap in range(n.NVML_NVLINK_CAP_COUNT):
            L("nvmlDeviceGetNvLinkCapability", lambda: n.nvmlDeviceGetNvLinkCapability(h, link, cap), capability=cap)
        for ctr in range(n.NVML_NVLINK_ERROR_COUNT):
            L("nvmlDeviceGetNvLinkErrorCounter", lambda: n.nvmlDeviceGetNvLinkErrorCounter(h, link, ctr), counter=ctr)
        for ctr in (0, 1):
            L("nvmlDeviceGetNvLinkUtilizationControl",
              lambda: n.nvmlDeviceGetNvLinkUtilizationControl(h, link, ctr), counter=ctr)
            L("nvmlDeviceGetNvLinkUtilizationCounter",
              lambda: n.nvmlDeviceGetNvLinkUtilizationCounter(h, link, ctr), counter=ctr)
    D("nvmlDeviceGetNvLinkInfo", by_pynvml(n.nvmlDeviceGetNvLinkInfo, h, struct=n.c_nvmlNvLinkInfo_v2_t))
    D("nvmlDeviceGetNvlinkSupportedBwModes",
      by_pynvml(n.nvmlDeviceGetNvlinkSupportedBwModes, h, struct=n.c_nvmlNvlinkSupportedBwModes_v1_t))
    D("nvmlDeviceGetNvlinkBwMode", by_pynvml(n.nvmlDeviceGetNvlinkBwMode, h, struct=n.c_nvmlNvlinkGetBwMode_v1_t))

    # Pairs of devices.
    for j in range(count):
        other = n.nvmlDeviceGetHandleByIndex(j)
        D("nvmlDeviceOnSameBoard", lambda: n.nvmlDeviceOnSameBoard(h, other), device2=j)
        D("nvmlDeviceGetTopologyCommonAncestor", lambda: n.nvmlDeviceGetTopologyCommonAncestor(h, other), device2=j)
        for cap in range(n.NVML_P2P_CAPS_INDEX_UNKNOWN + 1):
            D("nvmlDeviceGetP2PStatus", lambda: n.nvmlDeviceGetP2PStatus(h, other, cap), device2=j, index=cap)
    for level in (n.NVML_TOPOLOGY_INTERNAL, n.NVML_TOPOLOGY_SINGLE, n.NVML_TOPOLOGY_MULTIPLE,
                  n.NVML_TOPOLOGY_HOSTBRIDGE, n.NVML_TOPOLOGY_NODE, n.NVML_TOPOLOGY_SYSTEM):
        D("nvmlDeviceGetTopologyNearestGpus",
          lambda: [device_token(x) for x in n.nvmlDeviceGetTopologyNearestGpus(h, level)], level=level)

    # GPM.

    # vGPU, on the physical GPU.
    for cap in range(n.NVML_DEVICE_VGPU_CAP_COUNT):
        D("nvmlDeviceGetVgpuCapabilities", lambda: n.nvmlDeviceGetVgpuCapabilities(h, cap), capability=cap)
    # Copies: the recorded answers must not grow with the list built here.
    types = list(D("nvmlDeviceGetSupportedVgpus", lambda: n.nvmlDeviceGetSupportedVgpus(h)).get("ok") or [])
    types += list(D("nvmlDeviceGetCreatableVgpus", lambda: n.nvmlDeviceGetCreatableVgpus(h)).get("ok") or [])
    vgpus = D("nvmlDeviceGetActiveVgpus", lambda: n.nvmlDeviceGetActiveVgpus(h)).get("ok") or []
    D("nvmlDeviceGetVgpuSchedulerState_v2",
      by_pynvml(n.nvmlDeviceGetVgpuSchedulerState_v2, h, ref=False, struct=n.c_nvmlVgpuSchedulerStateInfo_v2_t), engine=0)
    D("nvmlDeviceGetVgpuSchedulerLog_v2",
      by_pynvml(n.nvmlDeviceGetVgpuSchedulerLog_v2, h, ref=False, struct=n.c_nvmlVgpuSchedulerLogInfo_v2_t), engine=0)
    D("nvmlDeviceGetPgpuMetadataString", lambda: n.nvmlDeviceGetPgpuMetadataString(h)[0])
    for ts in (0,):
        # pynvml drops the sample value type; nvml.h: "The function sets the caller-supplied
        # sampleValType to NVML_VALUE_TYPE_UNSIGNED_INT", so the unions are read as that.
        D("nvmlDeviceGetVgpuUtilization",
          lambda: [dict(norm(x), **{f: value_of(getattr(x, f), n.NVML_VALUE_TYPE_UNSIGNED_INT)
                                    for f in ("smUtil", "memUtil", "encUtil", "decUtil")})
                   for x in n.nvmlDeviceGetVgpuUtilization(h, ts)], since=ts)
        D("nvmlDeviceGetVgpuProcessUtilization", lambda: n.nvmlDeviceGetVgpuProcessUtilization(h, ts), since=ts)
        # The same for pynvml's samples here: "The function sets the caller-supplied
        # vgpuUtilInfo->sampleValType to NVML_VALUE_TYPE_UNSIGNED_INT".
        D("nvmlDeviceGetVgpuInstancesUtilizationInfo",
          lambda: [dict(norm(x), **{f: value_of(getattr(x, f), n.NVML_VALUE_TYPE_UNSIGNED_INT)
                                    for f in ("smUtil", "memUtil", "encUtil", "decUtil", "jpgUtil", "ofaUtil")})
                   for x in n.nvmlDeviceGetVgpuInstancesUtilizationInfo(h, ts)], since=ts)
        D("nvmlDeviceGetVgpuProcessesUtilizationInfo",
          lambda: n.nvmlDeviceGetVgpuProcessesUtilizationInfo(h, ts), since=ts)
    # A type id no profile defines when the device lists none, so that the per-type calls
    # still run (the error codes are compared).
    for t in sorted(set(types)) or [1]:
        D("nvmlVgpuTypeGetMaxInstances", lambda: n.nvmlVgpuTypeGetMaxInstances(h, t), type=t)
        D("nvmlDeviceGetVgpuTypeSupportedPlacements",
          lambda: placement_list(n.nvmlDeviceGetVgpuTypeSupportedPlacements(h, t)), type=t)
        D("nvmlDeviceGetVgpuTypeCreatablePlacements",
          lambda: placement_list(n.nvmlDeviceGetVgpuTypeCreatablePlacements(h, t)), type=t)
    return {"types": types, "vgpus": vgpus, "pids": pids + procs}


def placement_list(s):
    """A vGPU placement list as the C function fills it: the size and the `count` ids of the
    caller's array (pynvml hands back its structure, whose `placementIds` is a pointer)."""
    return {"placementSize": s.placementSize, "placementIds": [s.placementIds[i] for i in range(s.count)]}


def fv_norm(v):
    """A field value: nvmlValue_t read by its valueType; the timestamp and latency are the
    library's clock, so they are left out. A field that failed has no value: nvml.h, "value is
    undefined if nvmlReturn != NVML_SUCCESS", so its type and value are left out too."""
    d = with_value(v, "valueType", "value")
    d.pop("timestamp", None)
    d.pop("latencyUsec", None)
    if d.get("nvmlReturn") != n.NVML_SUCCESS:
        d.pop("valueType", None)
        d.pop("value", None)
    return d


def sram_unique(h):
    """nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts: size query (entries NULL), then fill;
    pynvml leaves the protocol to the caller and its wrapper raises on the size query's
    INSUFFICIENT_SIZE, so the size query goes through its function pointer."""
    s = n.c_nvmlEccSramUniqueUncorrectedErrorCounts_v1_t()
    ret = n._nvmlGetFunctionPointer("nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts")(h, byref(s))
    if ret == n.NVML_SUCCESS and s.entryCount == 0:
        return []
    if ret != n.NVML_ERROR_INSUFFICIENT_SIZE:
        raise n.NVMLError(ret)
    arr = (n.c_nvmlEccSramUniqueUncorrectedErrorEntry_v1_t * s.entryCount)()
    s.entries = cast(arr, POINTER(n.c_nvmlEccSramUniqueUncorrectedErrorEntry_v1_t))
    n.nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts(h, byref(s))
    return [arr[i] for i in range(s.entryCount)]


def fabric_v4(h):
    s = n.c_nvmlGpuFabricInfo_v4_t()
    n.nvmlDeviceGetGpuFabricInfo_v4(h, byref(s))
    return s


def perf_metrics(h):
    s = n.c_nvmlPerfMetricsSamples_v1_t()
    n.nvmlDevicePerfMetricsGetSamples_v1(h, s)
    return s


def mig_calls(h, o):
    """GPU instances and compute instances of a device; returns their paths."""
    out = []
    for p in range(n.NVML_GPU_INSTANCE_PROFILE_COUNT):
        r = call("nvmlDeviceGetGpuInstanceProfileInfoV", o, {"profile": p},
                 lambda: n.nvmlDeviceGetGpuInstanceProfileInfo(h, p, 2))
        call("nvmlDeviceGetGpuInstanceProfileInfo", o, {"profile": p},
             lambda: n.nvmlDeviceGetGpuInstanceProfileInfo(h, p, 1))
        if "ok" not in r:
            continue
        pid, cap = r["ok"]["id"], r["ok"]["instanceCount"]
        call("nvmlDeviceGetGpuInstanceProfileInfoByIdV", o, {"profileId": pid},
             lambda: n.nvmlDeviceGetGpuInstanceProfileInfoById(h, pid))
        call("nvmlDeviceGetGpuInstanceRemainingCapacity", o, {"profileId": pid},
             lambda: n.nvmlDeviceGetGpuInstanceRemainingCapacity(h, pid))

        def placements():
            # nvml.h: "placements: ... Can be NULL to discover number of allowed placements
            # for this profile. If non-NULL must be large enough to accommodate the placements
            # supported by the profile"; "count: Returns number of allowed placements" (out
            # only: the profile's instanceCount need not be as large).
            cnt = c_uint(0)
            n.nvmlDeviceGetGpuInstancePossiblePlacements(h, pid, None, byref(cnt))
            arr = (n.c_nvmlGpuInstancePlacement_t * max(cnt.value, 1))()
            n.nvmlDeviceGetGpuInstancePossiblePlacements(h, pid, arr, byref(cnt))
            return [arr[i] for i in range(cnt.value)]
        call("nvmlDeviceGetGpuInstancePossiblePlacements_v2", o, {"profileId": pid}, placements)

        def instances():
            arr = (n.c_nvmlGpuInstance_t * max(cap, 1))()
            cnt = c_uint(0)
            n.nvmlDeviceGetGpuInstances(h, pid, arr, byref(cnt))
            return ["gi:%d" % n.nvmlGpuInstanceGetInfo(arr[i]).id for i in range(cnt.value)]
        r = call("nvmlDeviceGetGpuInstances", o, {"profileId": pid}, instances)
        for tok in r.get("ok") or []:
            out.append(int(tok[3:]))
    paths = []
    for gid in sorted(set(out)):
        r = call("nvmlDeviceGetGpuInstanceById", o, {"id": gid},
                 lambda: "gi:%d" % n.nvmlGpuInstanceGetInfo(n.nvmlDeviceGetGpuInstanceById(h, gid)).id)
        if "ok" in r:
            paths.append((o + "/gi/%d" % gid, n.nvmlDeviceGetGpuInstanceById(h, gid)))
    call("nvmlDeviceGetGpuInstanceById", o, {"id": 99}, lambda: n.nvmlDeviceGetGpuInstanceById(h, 99))
    return paths


def gpu_instance_calls(g, o):
    G = lambda fn, thunk, **args: call(fn, o, args, thunk)
    G("nvmlGpuInstanceGetInfo", lambda: n.nvmlGpuInstanceGetInfo(g))
    cis = []
    for p in range(n.NVML_COMPUTE_INSTANCE_PROFILE_COUNT):
        for e in range(n.NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_COUNT):
            r = G("nvmlGpuInstanceGetComputeInstanceProfileInfoV",
                  lambda: n.nvmlGpuInstanceGetComputeInstanceProfileInfo(g, p, e, 2), profile=p, engine=e)
            G("nvmlGpuInstanceGetComputeInstanceProfileInfo",
              lambda: n.nvmlGpuInstanceGetComputeInstanceProfileInfo(g, p, e, 1), profile=p, engine=e)
            if "ok" not in r:
                continue
            pid, cap = r["ok"]["id"], r["ok"]["instanceCount"]
            G("nvmlGpuInstanceGetComputeInstanceRemainingCapacity",
              lambda: n.nvmlGpuInstanceGetComputeInstanceRemainingCapacity(g, pid), profileId=pid)

            def placements():
                # The same NULL probe as nvmlDeviceGetGpuInstancePossiblePlacements_v2's.
                cnt = c_uint(0)
                n.nvmlGpuInstanceGetComputeInstancePossiblePlacements(g, pid, None, byref(cnt))
                arr = (n.c_nvmlComputeInstancePlacement_t * max(cnt.value, 1))()
                n.nvmlGpuInstanceGetComputeInstancePossiblePlacements(g, pid, arr, byref(cnt))
                return [arr[i] for i in range(cnt.value)]
            G("nvmlGpuInstanceGetComputeInstancePossiblePlacements", placements, profileId=pid)

            found = []

            def instances():
                arr = (n.c_nvmlComputeInstance_t * max(cap, 1))()
                cnt = c_uint(0)
                n.nvmlGpuInstanceGetComputeInstances(g, pid, arr, byref(cnt))
                found.extend((pid, n.nvmlComputeInstanceGetInfo_v2(arr[i]).id, arr[i]) for i in range(cnt.value))
                return ["ci:%d" % ci for _, ci, _ in found]
            G("nvmlGpuInstanceGetComputeInstances", instances, profileId=pid)
            cis += found
    CIS[o] = cis
    for pid, cid, c in cis:
        G("nvmlGpuInstanceGetComputeInstanceById",
          lambda: "ci:%d" % n.nvmlComputeInstanceGetInfo_v2(n.nvmlGpuInstanceGetComputeInstanceById(g, cid)).id, id=cid)
        # The path names the profile: the instance is found again by listing that profile's.
        call("nvmlComputeInstanceGetInfo_v2", o + "/ci-profile/%d/ci/%d" % (pid, cid), {},
             lambda: n.nvmlComputeInstanceGetInfo_v2(c))
    G("nvmlGpuInstanceGetComputeInstanceById", lambda: n.nvmlGpuInstanceGetComputeInstanceById(g, 99), id=99)
    G("nvmlGpuInstanceGetVgpuHeterogeneousMode", lambda: n.nvmlGpuInstanceGetVgpuHeterogeneousMode(g))
    G("nvmlGpuInstanceGetVgpuSchedulerState_v2",
      by_pynvml(n.nvmlGpuInstanceGetVgpuSchedulerState_v2, g, ref=False, struct=n.c_nvmlVgpuSchedulerStateInfo_v2_t), engine=0)
    G("nvmlGpuInstanceGetVgpuSchedulerLog_v2",
      by_pynvml(n.nvmlGpuInstanceGetVgpuSchedulerLog_v2, g, ref=False, struct=n.c_nvmlVgpuSchedulerLogInfo_v2_t), engine=0)

    G("nvmlGpuInstanceGetVgpuSchedulerState", lambda: n.nvmlGpuInstanceGetVgpuSchedulerState(
        g, struct(n.c_nvmlVgpuSchedulerStateInfo_v1_t, version=n.nvmlVgpuSchedulerStateInfo_v1)), engine=0)
    G("nvmlGpuInstanceGetVgpuSchedulerLog", lambda: n.nvmlGpuInstanceGetVgpuSchedulerLog(
        g, struct(n.c_nvmlVgpuSchedulerLogInfo_v1_t, version=n.nvmlVgpuSchedulerLogInfo_v1)), engine=0)
    G("nvmlGpuInstanceGetVgpuTypeCreatablePlacements", lambda: n.nvmlGpuInstanceGetVgpuTypeCreatablePlacements(
        g, struct(n.c_nvmlVgpuCreatablePlacementInfo_v1_t, version=n.nvmlVgpuCreatablePlacementInfo_v1, vgpuTypeId=1)),
      type=1)

    def creatable():
        s = n.c_nvmlVgpuTypeIdInfo_v1_t()
        s.version = n.nvmlVgpuTypeIdInfo_v1
        r = n.nvmlGpuInstanceGetCreatableVgpus(g, s)
        return [r.vgpuTypeIds[i] for i in range(r.vgpuCount)] if r.vgpuCount else []
    G("nvmlGpuInstanceGetCreatableVgpus", creatable)

    def active():
        s = n.c_nvmlActiveVgpuInstanceInfo_v1_t()
        s.version = n.nvmlActiveVgpuInstanceInfo_v1
        r = n.nvmlGpuInstanceGetActiveVgpus(g, s)
        return [r.vgpuInstances[i] for i in range(r.vgpuCount)] if r.vgpuCount else []
    G("nvmlGpuInstanceGetActiveVgpus", active)


# Getters whose pynvml wrapper has the C name and takes only a vGPU type id.
PLAIN_VGPU_TYPE_GETTERS = [
    "nvmlVgpuTypeGetClass",
    "nvmlVgpuTypeGetName",
    "nvmlVgpuTypeGetGpuInstanceProfileId",
    "nvmlVgpuTypeGetDeviceID",
    "nvmlVgpuTypeGetFramebufferSize",
    "nvmlVgpuTypeGetNumDisplayHeads",
    "nvmlVgpuTypeGetLicense",
    "nvmlVgpuTypeGetFrameRateLimit",
    "nvmlVgpuTypeGetGspHeapSize",
    "nvmlVgpuTypeGetFbReservation",
    "nvmlVgpuTypeGetMaxInstancesPerVm",
    "nvmlVgpuTypeGetBAR1Info",
    "nvmlVgpuTypeGetMaxInstancesPerGpuInstance",
]


def vgpu_type_calls(t):
    o = "vgpu-type/%d" % t
    V = lambda fn, thunk, **args: call(fn, o, args, thunk)
    for fn in PLAIN_VGPU_TYPE_GETTERS:
        V(fn, lambda: getattr(n, fn)(t))
    # pynvml asks for display 0 only.
    V("nvmlVgpuTypeGetResolution", lambda: n.nvmlVgpuTypeGetResolution(t), display=0)
    for cap in range(n.NVML_VGPU_CAP_COUNT):
        V("nvmlVgpuTypeGetCapabilities", lambda: n.nvmlVgpuTypeGetCapabilities(t, cap), capability=cap)


# Getters whose pynvml wrapper has the C name and takes only a vGPU instance id.
PLAIN_VGPU_INSTANCE_GETTERS = [
    "nvmlVgpuInstanceGetUUID",
    "nvmlVgpuInstanceGetMdevUUID",
    "nvmlVgpuInstanceGetVmID",
    "nvmlVgpuInstanceGetVmDriverVersion",
    "nvmlVgpuInstanceGetFbUsage",
    "nvmlVgpuInstanceGetLicenseStatus",
    "nvmlVgpuInstanceGetLicenseInfo_v2",
    "nvmlVgpuInstanceGetType",
    "nvmlVgpuInstanceGetFrameRateLimit",
    "nvmlVgpuInstanceGetEccMode",
    "nvmlVgpuInstanceGetEncoderCapacity",
    "nvmlVgpuInstanceGetEncoderStats",
    "nvmlVgpuInstanceGetEncoderSessions",
    "nvmlVgpuInstanceGetFBCStats",
    "nvmlVgpuInstanceGetFBCSessions",
    "nvmlVgpuInstanceGetGpuInstanceId",
    "nvmlVgpuInstanceGetGpuPciId",
    "nvmlVgpuInstanceGetPlacementId",
    "nvmlVgpuInstanceGetRuntimeStateSize",
    "nvmlVgpuInstanceGetMetadata",
    "nvmlVgpuInstanceGetAccountingMode",
]


def vgpu_instance_calls(v):
    o = "vgpu/%d" % v
    V = lambda fn, thunk, **args: call(fn, o, args, thunk)
    for fn in PLAIN_VGPU_INSTANCE_GETTERS:
        V(fn, lambda: getattr(n, fn)(v))
    V("nvmlVgpuInstanceGetAccountingPids", lambda: (lambda r: list(r[1][:r[0].value]))(
        n.nvmlVgpuInstanceGetAccountingPids(v)))
    V("nvmlVgpuInstanceGetAccountingStats", lambda: nones(norm(n.nvmlVgpuInstanceGetAccountingStats(v, 1))), pid=1)


def event_calls(handles):
    """An event set: created, each device's supported events registered, waited on, freed."""
    o = "eventset/0"
    r = call("nvmlEventSetCreate", o, {}, lambda: "handle" if SETS.setdefault(o, n.nvmlEventSetCreate()) else None)
    if "ok" not in r:
        return
    es = SETS[o]
    for i, h in enumerate(handles):
        try:
            types = n.nvmlDeviceGetSupportedEventTypes(h)
        except n.NVMLError:
            types = 0
        call("nvmlDeviceRegisterEvents", "dev/%d" % i, {"set": o, "types": types},
             lambda: n.nvmlDeviceRegisterEvents(h, types, es))
    for k in range(3):
        call("nvmlEventSetWait_v2", o, {"timeout": 0, "n": k}, lambda: nones(norm(n.nvmlEventSetWait_v2(es, 0))))
    call("nvmlEventSetFree", o, {}, lambda: n.nvmlEventSetFree(es))


def system_event_calls():
    o = "sysevents/0"
    r = call("nvmlSystemEventSetCreate", o, {},
             lambda: "handle" if SETS.setdefault(o, n.nvmlSystemEventSetCreate(n.nvmlSystemEventSetCreateRequest_v1))
             else None)
    if "ok" not in r:
        return
    s = SETS[o]
    types = n.nvmlSystemEventTypeGpuDriverUnbind | n.nvmlSystemEventTypeGpuDriverBind
    call("nvmlSystemRegisterEvents", o, {"types": types},
         lambda: n.nvmlSystemRegisterEvents(n.nvmlSystemRegisterEventRequest_v1, types, s))
    # pynvml's wrapper turns NVML_ERROR_TIMEOUT into []: its request, through its C-level call.
    def wait():
        data = (n.c_nvmlSystemEventData_v1_t * 4)()
        req = n.c_nvmlSystemEventSetWaitRequest_v1_t()
        req.version = n.nvmlSystemEventSetWaitRequest_v1
        req.timeoutms, req.set, req.data, req.dataSize = 0, s, data, 4
        ret = n.c_nvmlSystemEventSetWait(byref(req))
        if ret == n.NVML_ERROR_TIMEOUT:
            raise n.NVMLError(ret)
        return [data[i] for i in range(req.numEvent)]
    for k in range(2):
        call("nvmlSystemEventSetWait", o, {"timeout": 0, "max": 4, "n": k}, wait)
    call("nvmlSystemEventSetFree", o, {}, lambda: n.nvmlSystemEventSetFree(n.nvmlSystemEventSetFreeRequest_v1, s))


def gpm_calls(handles):
    a = call("nvmlGpmSampleAlloc", "gpm/0", {}, lambda: "handle" if SETS.setdefault("gpm/0", n.nvmlGpmSampleAlloc()) else None)
    b = call("nvmlGpmSampleAlloc", "gpm/1", {}, lambda: "handle" if SETS.setdefault("gpm/1", n.nvmlGpmSampleAlloc()) else None)
    if "ok" not in a or "ok" not in b:
        return
    s1, s2 = SETS["gpm/0"], SETS["gpm/1"]
    for i, h in enumerate(handles[:1]):
        call("nvmlGpmSampleGet", "dev/%d" % i, {"sample": "gpm/0"}, lambda: "handle" if n.nvmlGpmSampleGet(h, s1) else None)
        call("nvmlGpmSampleGet", "dev/%d" % i, {"sample": "gpm/1"}, lambda: "handle" if n.nvmlGpmSampleGet(h, s2) else None)
        call("nvmlGpmMigSampleGet", "dev/%d" % i, {"sample": "gpm/0", "gpuInstanceId": 1},
             lambda: "handle" if n.nvmlGpmMigSampleGet(h, 1, s1) else None)
    ids = [n.NVML_GPM_METRIC_GRAPHICS_UTIL, n.NVML_GPM_METRIC_SM_UTIL, n.NVML_GPM_METRIC_DRAM_BW_UTIL]

    def metrics():
        m = n.c_nvmlGpmMetricsGet_t()
        m.version = n.NVML_GPM_METRICS_GET_VERSION
        m.numMetrics = len(ids)
        m.sample1, m.sample2 = s1, s2
        for k, mid in enumerate(ids):
            m.metrics[k].metricId = mid
        n.nvmlGpmMetricsGet(m)
        # The value is defined only where nvmlReturn is NVML_SUCCESS.
        return [{"metricId": m.metrics[k].metricId, "nvmlReturn": m.metrics[k].nvmlReturn,
                 "value": m.metrics[k].value if m.metrics[k].nvmlReturn == n.NVML_SUCCESS else None}
                for k in range(len(ids))]
    call("nvmlGpmMetricsGet", "system", {"samples": "gpm/0,gpm/1", "metrics": ids}, metrics)
    call("nvmlGpmSampleFree", "gpm/0", {}, lambda: n.nvmlGpmSampleFree(s1))
    call("nvmlGpmSampleFree", "gpm/1", {}, lambda: n.nvmlGpmSampleFree(s2))


# ---------------------------------------------------------------------------------------------
# Other getters that take a request (records with inputs, cursors).

def request_calls(handles):
    for i, h in enumerate(handles):
        o = "dev/%d" % i
        for ns in ("", "container-a"):
            def limits():
                s = n.c_nvmlGetMemoryLimits_v1_t()
                s.nameSpace = ns.encode()
                n.nvmlDeviceGetMemoryLimits_v1(h, s)
                return {"softLimit": s.softLimit, "hardLimit": s.hardLimit, "currentUsed": s.currentUsed}
            call("nvmlDeviceGetMemoryLimits_v1", o, {"namespace": ns}, limits)

        def prm_counters():
            ids = [n.NVML_PRM_COUNTER_ID_PPCNT_PHYSICAL_LAYER_CTRS_LINK_DOWN_EVENTS,
                   n.NVML_PRM_COUNTER_ID_PPCNT_PLR_RCV_CODES]
            arr = (n.c_nvmlPRMCounter_v1_t * len(ids))()
            for k, cid in enumerate(ids):
                arr[k].counterId = cid
                arr[k].inputValue.localPort = 1
            lst = n.c_nvmlPRMCounterList_v1_t(len(ids), cast(arr, POINTER(n.c_nvmlPRMCounter_v1_t)))
            n.nvmlDeviceReadPRMCounters_v1(h, lst)
            return [{"counterId": c.counterId, "status": c.outputValue.status, "outputType": c.outputValue.outputType,
                     "outputValue": value_of(c.outputValue.outputValue, c.outputValue.outputType)
                     if c.outputValue.status == n.NVML_SUCCESS else None} for c in arr]
        call("nvmlDeviceReadPRMCounters_v1", o, {"counters": [1, 301], "port": 1}, prm_counters)

        # The data (a union of inData/outData) is left out: nvmlkit keeps it as a raw union.
        def prm_tlv():
            t = n.c_nvmlPRMTLV_v1_t(0)
            n.nvmlDeviceReadWritePRM_v1(h, t)
            return {"dataSize": t.dataSize, "status": t.status}
        if not GETTERS_ONLY:
            # A register access that can write (its TLV's data is the register's input).
            call("nvmlDeviceReadWritePRM_v1", o, {"dataSize": 0}, prm_tlv)

        def telemetry():
            """Each slot's supported sample count (sampleCount 0), then the samples."""
            slots = (n.c_nvmlNvlinkTelemetrySample_v1_t * 1)()
            slots[0].linkId, slots[0].sampleType = 0, n.NVML_NVLINK_TELEMETRY_SAMPLE_TYPE_THROUGHPUT_RAW_TX
            req = n.c_nvmlNvlinkTelemetrySamples_v1_t(1, cast(slots, POINTER(n.c_nvmlNvlinkTelemetrySample_v1_t)))
            n.nvmlDeviceGetNvLinkTelemetrySamples_v1(h, req)
            count = slots[0].sampleCount if slots[0].nvmlReturn == n.NVML_SUCCESS else 0
            buf = (c_ulonglong * max(count, 1))()
            slots[0].samples = cast(buf, POINTER(c_ulonglong))
            n.nvmlDeviceGetNvLinkTelemetrySamples_v1(h, req)
            ok = slots[0].nvmlReturn == n.NVML_SUCCESS
            return [{"linkId": 0, "sampleType": 0, "nvmlReturn": slots[0].nvmlReturn,
                     "samples": list(buf[:slots[0].sampleCount]) if ok else None}]
        call("nvmlDeviceGetNvLinkTelemetrySamples_v1", o, {"link": 0, "type": 0}, telemetry)
    for mask in (0xFFFFFFFF,):
        call("nvmlSystemGetCPER_v1", "system", {"mask": mask}, lambda: cper_records(mask))


def cper_records(mask):
    """Every CPER record for `mask`: size query (buffer NULL, size 0), then fill, until the size
    query says 0 (as the header describes the cursor); pynvml's wrapper raises on the size
    query's INSUFFICIENT_SIZE, so the size query goes through its function pointer."""
    req = n.c_nvmlGetCPER_v1_t()
    req.cursor.cperTypeMask = mask
    req.cursor.handle = n.NVML_CPER_CURSOR_HANDLE_INIT
    fn = n._nvmlGetFunctionPointer("nvmlSystemGetCPER_v1")
    out = []
    for _ in range(64):
        req.buffer = None
        req.bufferSize = 0
        ret = fn(byref(req))
        if ret == n.NVML_SUCCESS and req.bufferSize == 0:
            return out
        if ret != n.NVML_ERROR_INSUFFICIENT_SIZE:
            raise n.NVMLError(ret)
        buf = (ctypes.c_ubyte * req.bufferSize)()
        req.buffer = cast(buf, POINTER(ctypes.c_ubyte))
        n.nvmlSystemGetCPER_v1(req)
        out.append(list(buf[:req.bufferSize]))
    return out


# ---------------------------------------------------------------------------------------------
# Setters and other calls that change the mock's state, after every getter; then the getters
# that read back what they changed ({"after": 1}).

def struct(cls, **fields):
    """A pynvml structure (its own constructor: versions set as pynvml sets them) with fields."""
    s = cls()
    for k, v in fields.items():
        setattr(s, k, v)
    return s


def rc(ret):
    """pynvml wrappers that return the code instead of raising."""
    if isinstance(ret, int) and ret != n.NVML_SUCCESS:
        raise n.NVMLError(ret)
    return None


def setter_calls(handles):
    S = lambda fn, o, thunk, **args: call(fn, o, args, thunk)
    S("nvmlSystemSetConfComputeGpusReadyState", "system", lambda: n.nvmlSystemSetConfComputeGpusReadyState(1), state=1)
    S("nvmlSystemSetConfComputeKeyRotationThresholdInfo", "system",
      lambda: n.nvmlSystemSetConfComputeKeyRotationThresholdInfo(50), maxAttackerAdvantage=50)
    S("nvmlSystemSetNvlinkBwMode", "system", lambda: n.nvmlSystemSetNvlinkBwMode(n.NVML_GPU_NVLINK_BW_MODE_FULL), mode=0)
    S("nvmlSetVgpuVersion", "system",
      lambda: n.nvmlSetVgpuVersion(struct(n.c_nvmlVgpuVersion_t, minVersion=0x10000, maxVersion=0x120000)) and None,
      min=0x10000, max=0x120000)
    for v in VGPUS or [1]:
        o = "vgpu/%d" % v
        S("nvmlVgpuInstanceClearAccountingPids", o, lambda: n.nvmlVgpuInstanceClearAccountingPids(v) and None)
        # pynvml returns the code.
        S("nvmlVgpuInstanceSetEncoderCapacity", o, lambda: rc(n.nvmlVgpuInstanceSetEncoderCapacity(v, 50)), capacity=50)
    for i, h in enumerate(handles):
        o = "dev/%d" % i
        D = lambda fn, thunk, **args: call(fn, o, args, thunk)
        try:
            limit = n.nvmlDeviceGetPowerManagementLimit(h)
        except n.NVMLError:
            limit = 100000
        D("nvmlDeviceSetPersistenceMode", lambda: n.nvmlDeviceSetPersistenceMode(h, 0), mode=0)
        D("nvmlDeviceSetComputeMode", lambda: n.nvmlDeviceSetComputeMode(h, n.NVML_COMPUTEMODE_EXCLUSIVE_PROCESS), mode=3)
        D("nvmlDeviceSetEccMode", lambda: n.nvmlDeviceSetEccMode(h, 0), mode=0)
        D("nvmlDeviceClearEccErrorCounts", lambda: n.nvmlDeviceClearEccErrorCounts(h, n.NVML_VOLATILE_ECC), counter=0)
        D("nvmlDeviceSetAutoBoostedClocksEnabled", lambda: n.nvmlDeviceSetAutoBoostedClocksEnabled(h, 0), enabled=0)
        D("nvmlDeviceSetDefaultAutoBoostedClocksEnabled",
          lambda: n.nvmlDeviceSetDefaultAutoBoostedClocksEnabled(h, 0, 0), enabled=0, flags=0)
        D("nvmlDeviceSetGpuLockedClocks", lambda: n.nvmlDeviceSetGpuLockedClocks(h, 300, 1000), min=300, max=1000)
        D("nvmlDeviceResetGpuLockedClocks", lambda: n.nvmlDeviceResetGpuLockedClocks(h))
        D("nvmlDeviceSetMemoryLockedClocks", lambda: n.nvmlDeviceSetMemoryLockedClocks(h, 300, 1000), min=300, max=1000)
        D("nvmlDeviceResetMemoryLockedClocks", lambda: n.nvmlDeviceResetMemoryLockedClocks(h))
        try:
            mem = n.nvmlDeviceGetSupportedMemoryClocks(h)[-1]
            gfx = n.nvmlDeviceGetSupportedGraphicsClocks(h, mem)[-1]
        except (n.NVMLError, IndexError):
            mem, gfx = 1000, 1000
        D("nvmlDeviceSetApplicationsClocks", lambda: n.nvmlDeviceSetApplicationsClocks(h, mem, gfx), memory=mem, graphics=gfx)
        D("nvmlDeviceSetApplicationsClocks", lambda: n.nvmlDeviceSetApplicationsClocks(h, 1, 1), memory=1, graphics=1)
        A0 = lambda fn, thunk, **args: call(fn, o, dict(args, after=1), thunk)
        A0("nvmlDeviceGetApplicationsClock", lambda: n.nvmlDeviceGetApplicationsClock(h, n.NVML_CLOCK_GRAPHICS), type=0)
        D("nvmlDeviceResetApplicationsClocks", lambda: n.nvmlDeviceResetApplicationsClocks(h))
        D("nvmlDeviceSetPowerManagementLimit", lambda: n.nvmlDeviceSetPowerManagementLimit(h, limit - 1000), limit=limit - 1000)
        D("nvmlDeviceSetPowerManagementLimit", lambda: n.nvmlDeviceSetPowerManagementLimit(h, 1), limit=1)

        def limit_v2():
            v = n.c_nvmlPowerValue_v2_t()
            v.version, v.powerScope, v.powerValueMw = n.nvmlPowerValue_v2, 0, limit
            # pynvml's wrapper drops the return code: its structure, called directly.
            return rc(n._nvmlGetFunctionPointer("nvmlDeviceSetPowerManagementLimit_v2")(h, byref(v)))
        D("nvmlDeviceSetPowerManagementLimit_v2", limit_v2, scope=0, limit=limit)
        D("nvmlDeviceSetGpuOperationMode", lambda: n.nvmlDeviceSetGpuOperationMode(h, n.NVML_GOM_COMPUTE), mode=1)
        D("nvmlDeviceSetAccountingMode", lambda: n.nvmlDeviceSetAccountingMode(h, 1), mode=1)
        D("nvmlDeviceClearAccountingPids", lambda: n.nvmlDeviceClearAccountingPids(h))
        D("nvmlDeviceSetAPIRestriction",
          lambda: n.nvmlDeviceSetAPIRestriction(h, n.NVML_RESTRICTED_API_SET_APPLICATION_CLOCKS, 1), api=0, restricted=1)
        D("nvmlDeviceSetTemperatureThreshold",
          lambda: n.nvmlDeviceSetTemperatureThreshold(h, n.NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR, 80), threshold=7, temp=80)
        D("nvmlDeviceSetDefaultFanSpeed_v2", lambda: n.nvmlDeviceSetDefaultFanSpeed_v2(h, 0), fan=0)
        D("nvmlDeviceSetFanControlPolicy",
          lambda: n.nvmlDeviceSetFanControlPolicy(h, 0, n.NVML_FAN_POLICY_MANUAL), fan=0, policy=1)
        D("nvmlDeviceSetFanSpeed_v2", lambda: n.nvmlDeviceSetFanSpeed_v2(h, 0, 50), fan=0, speed=50)
        D("nvmlDeviceSetCpuAffinity", lambda: n.nvmlDeviceSetCpuAffinity(h))
        D("nvmlDeviceClearCpuAffinity", lambda: n.nvmlDeviceClearCpuAffinity(h))
        D("nvmlDeviceSetGpcClkVfOffset", lambda: n.nvmlDeviceSetGpcClkVfOffset(h, -50), offset=-50)
        D("nvmlDeviceSetMemClkVfOffset", lambda: n.nvmlDeviceSetMemClkVfOffset(h, 100), offset=100)
        # pynvml returns the code.
        D("nvmlDeviceSetVirtualizationMode",
          lambda: rc(n.nvmlDeviceSetVirtualizationMode(h, n.NVML_GPU_VIRTUALIZATION_MODE_NONE)), mode=0)
        D("nvmlDeviceSetVgpuCapabilities", lambda: n.nvmlDeviceSetVgpuCapabilities(h, 0, 1) and None, capability=0, state=1)
        D("nvmlDeviceSetVgpuHeterogeneousMode", lambda: n.nvmlDeviceSetVgpuHeterogeneousMode(h, 1) and None, mode=1)
        D("nvmlDeviceValidateInforom", lambda: n.nvmlDeviceValidateInforom(h))
        D("nvmlDeviceSetConfComputeUnprotectedMemSize",
          lambda: n.nvmlDeviceSetConfComputeUnprotectedMemSize(h, c_ulonglong(1 << 20)) and None, sizeKiB=1 << 20)
        D("nvmlDeviceSetNvLinkDeviceLowPowerThreshold",
          lambda: n.nvmlDeviceSetNvLinkDeviceLowPowerThreshold(h, 100) and None, threshold=100)
        D("nvmlGpmSetStreamingEnabled", lambda: n.nvmlGpmSetStreamingEnabled(h, 1) and None, state=1)
        D("nvmlDeviceSetAdaptiveTgpMode_v1", lambda: n.nvmlDeviceSetAdaptiveTgpMode_v1(h, 1), mode=1)
        D("nvmlDeviceSetHostname_v1", lambda: n.nvmlDeviceSetHostname_v1(h, "node-%d" % i), hostname="node-%d" % i)
        D("nvmlDeviceSetDramEncryptionMode", lambda: n.nvmlDeviceSetDramEncryptionMode(h, 1), mode=1)
        for ns, soft, hard in (("", 1 << 30, 2 << 30), ("container-a", 1 << 20, 1 << 21)):
            def set_limits():
                s = n.c_nvmlSetMemoryLimits_v1_t()
                s.nameSpace, s.softLimit, s.hardLimit = ns.encode(), soft, hard
                n.nvmlDeviceSetMemoryLimits_v1(h, s)
            D("nvmlDeviceSetMemoryLimits_v1", set_limits, namespace=ns, soft=soft, hard=hard)
        for link in (0, 1):
            D("nvmlDeviceResetNvLinkErrorCounters", lambda: n.nvmlDeviceResetNvLinkErrorCounters(h, link), link=link)
            D("nvmlDeviceFreezeNvLinkUtilizationCounter",
              lambda: n.nvmlDeviceFreezeNvLinkUtilizationCounter(h, link, 0, 1), link=link, counter=0, freeze=1)
            D("nvmlDeviceResetNvLinkUtilizationCounter",
              lambda: n.nvmlDeviceResetNvLinkUtilizationCounter(h, link, 0), link=link, counter=0)

            def control():
                c = n.nvmlNvLinkUtilizationControl_t()
                c.units, c.pktfilter = n.NVML_NVLINK_COUNTER_UNIT_BYTES, n.NVML_NVLINK_COUNTER_PKTFILTER_ALL
                n.nvmlDeviceSetNvLinkUtilizationControl(h, link, 0, c, 0)
            D("nvmlDeviceSetNvLinkUtilizationControl", control, link=link, counter=0, units=2, pktfilter=0xFF, reset=0)
        ids = [n.NVML_FI_DEV_ECC_CURRENT, n.NVML_FI_DEV_POWER_INSTANT]
        D("nvmlDeviceClearFieldValues", lambda: [fv_norm(v) for v in n.nvmlDeviceClearFieldValues(h, ids)], fieldIds=ids)
        # pynvml's wrapper drops the return code: its structure, called directly.
        D("nvmlDeviceSetClockOffsets",
          filled(n.c_nvmlClockOffset_t, "nvmlDeviceSetClockOffsets", h, version=n.nvmlClockOffset_v1, type=0, pstate=0,
                 clockOffsetMHz=10), type=0, pstate=0, offset=10)
        D("nvmlDeviceSetPowerMizerMode_v1", lambda: rc(n.nvmlDeviceSetPowerMizerMode_v1(
            h, byref(struct(n.c_nvmlDevicePowerMizerModes_v1_t, mode=n.NVML_POWER_MIZER_MODE_AUTO)))), mode=2)
        # pynvml passes no `flags` (the C function's third argument); NVML ignores it off Windows.
        D("nvmlDeviceSetDriverModel", lambda: n.nvmlDeviceSetDriverModel(h, n.NVML_DRIVER_WDDM), model=0, flags=0)
        D("nvmlDeviceSetVgpuSchedulerState", lambda: n.nvmlDeviceSetVgpuSchedulerState(
            h, struct(n.c_nvmlVgpuSchedulerSetState_t, schedulerPolicy=1)) and None, policy=1)
        D("nvmlDeviceSetVgpuSchedulerState_v2", lambda: n.nvmlDeviceSetVgpuSchedulerState_v2(
            h, struct(n.c_nvmlVgpuSchedulerState_v2_t, schedulerPolicy=1)) and None, engine=0, policy=1)
        D("nvmlDeviceVgpuForceGspUnload", lambda: n.nvmlDeviceVgpuForceGspUnload(h) and None)
        for fn, py in (("nvmlDeviceWorkloadPowerProfileSetRequestedProfiles", n.nvmlDeviceWorkloadPowerProfileSetRequestedProfiles),
                       ("nvmlDeviceWorkloadPowerProfileClearRequestedProfiles", n.nvmlDeviceWorkloadPowerProfileClearRequestedProfiles)):
            def requested():
                r = n.c_nvmlWorkloadPowerProfileRequestedProfiles_v1_t()
                r.requestedProfilesMask.mask[0] = 1
                py(h, byref(r))
            D(fn, requested, mask0=1)

        def update():
            u = n.c_nvmlWorkloadPowerProfileUpdateProfiles_v1_t()
            u.operation = 0
            u.updateProfilesMask.mask[0] = 1
            n.nvmlDeviceWorkloadPowerProfileUpdateProfiles_v1(h, byref(u))
        D("nvmlDeviceWorkloadPowerProfileUpdateProfiles_v1", update, operation=0, mask0=1)
        D("nvmlDevicePowerSmoothingActivatePresetProfile", lambda: n.nvmlDevicePowerSmoothingActivatePresetProfile(
            h, byref(struct(n.c_nvmlPowerSmoothingProfile_v1_t, profileId=0))), profile=0)
        D("nvmlDevicePowerSmoothingUpdatePresetProfileParam", lambda: n.nvmlDevicePowerSmoothingUpdatePresetProfileParam(
            h, byref(struct(n.c_nvmlPowerSmoothingProfile_v1_t, profileId=0, paramId=0, value=1.5))), profile=0, param=0, value=1.5)
        D("nvmlDevicePowerSmoothingSetState", lambda: n.nvmlDevicePowerSmoothingSetState(
            h, byref(struct(n.c_nvmlPowerSmoothingState_v1_t, state=1))), state=1)
        D("nvmlDeviceSetRusdSettings_v1", lambda: n.nvmlDeviceSetRusdSettings_v1(
            h, struct(n.c_nvmlRusdSettings_v1_t, pollMask=n.NVML_RUSD_POLL_CLOCK)), pollMask=1)
        D("nvmlDeviceSetNvlinkBwMode", lambda: n.nvmlDeviceSetNvlinkBwMode(
            h, byref(struct(n.c_nvmlNvlinkSetBwMode_v1_t, bSetBest=0, bwMode=n.NVML_GPU_NVLINK_BW_MODE_FULL))), best=0, mode=0)

        def bw_async():
            a = struct(n.c_nvmlNvlinkSetBwModeAsync_v1_t, bSetBest=0, bwMode=n.NVML_GPU_NVLINK_BW_MODE_FULL)
            n.nvmlDeviceSetNvlinkBwModeAsync_v1(h, byref(a))
            return a
        D("nvmlDeviceSetNvlinkBwModeAsync_v1", bw_async, best=0, mode=0)
        pci = n.nvmlDeviceGetPciInfo_v3(h)
        D("nvmlDeviceQueryDrainState", lambda: n.nvmlDeviceQueryDrainState(pci), device=i)
        D("nvmlDeviceModifyDrainState", lambda: n.nvmlDeviceModifyDrainState(pci, 1), device=i, state=1)
        D("nvmlDeviceQueryDrainState", lambda: n.nvmlDeviceQueryDrainState(pci), device=i, after=1)
        D("nvmlDeviceDiscoverGpus", lambda: n.nvmlDeviceDiscoverGpus(pci), device=i)

        # Read back.
        A = lambda fn, thunk, **args: call(fn, o, dict(args, after=1), thunk)
        A("nvmlDeviceGetPersistenceMode", lambda: n.nvmlDeviceGetPersistenceMode(h))
        A("nvmlDeviceGetComputeMode", lambda: n.nvmlDeviceGetComputeMode(h))
        A("nvmlDeviceGetEccMode", lambda: n.nvmlDeviceGetEccMode(h))
        A("nvmlDeviceGetAutoBoostedClocksEnabled", lambda: n.nvmlDeviceGetAutoBoostedClocksEnabled(h))
        for t in range(n.NVML_CLOCK_COUNT):
            A("nvmlDeviceGetApplicationsClock", lambda: n.nvmlDeviceGetApplicationsClock(h, t), type=t)
        A("nvmlDeviceGetPowerManagementLimit", lambda: n.nvmlDeviceGetPowerManagementLimit(h))
        A("nvmlDeviceGetEnforcedPowerLimit", lambda: n.nvmlDeviceGetEnforcedPowerLimit(h))
        A("nvmlDeviceGetGpuOperationMode", lambda: n.nvmlDeviceGetGpuOperationMode(h))
        A("nvmlDeviceGetAccountingMode", lambda: n.nvmlDeviceGetAccountingMode(h))
        A("nvmlDeviceGetAPIRestriction", lambda: n.nvmlDeviceGetAPIRestriction(h, 0), api=0)
        A("nvmlDeviceGetTemperatureThreshold",
          lambda: n.nvmlDeviceGetTemperatureThreshold(h, n.NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR), threshold=7)
        A("nvmlDeviceGetFanControlPolicy_v2", lambda: n.nvmlDeviceGetFanControlPolicy_v2(h, 0, c_uint()), fan=0)
        A("nvmlDeviceGetFanSpeed_v2", lambda: n.nvmlDeviceGetFanSpeed_v2(h, 0), fan=0)
        A("nvmlDeviceGetGpcClkVfOffset", lambda: n.nvmlDeviceGetGpcClkVfOffset(h))
        A("nvmlDeviceGetMemClkVfOffset", lambda: n.nvmlDeviceGetMemClkVfOffset(h))
        A("nvmlDeviceGetVirtualizationMode", lambda: n.nvmlDeviceGetVirtualizationMode(h))
        A("nvmlDeviceGetVgpuHeterogeneousMode", lambda: n.nvmlDeviceGetVgpuHeterogeneousMode(h))
        A("nvmlDeviceGetHostname_v1", lambda: n.nvmlDeviceGetHostname_v1(h))
        A("nvmlDeviceGetDramEncryptionMode", lambda: n.nvmlDeviceGetDramEncryptionMode(h))
        A("nvmlGpmQueryIfStreamingEnabled", lambda: n.nvmlGpmQueryIfStreamingEnabled(h))
        for ns in ("", "container-a"):
            def limits():
                s = n.c_nvmlGetMemoryLimits_v1_t()
                s.nameSpace = ns.encode()
                n.nvmlDeviceGetMemoryLimits_v1(h, s)
                return {"softLimit": s.softLimit, "hardLimit": s.hardLimit, "currentUsed": s.currentUsed}
            A("nvmlDeviceGetMemoryLimits_v1", limits, namespace=ns)

        # MIG: a GPU instance and a compute instance created and destroyed where MIG is on.
        try:
            mig_on = n.nvmlDeviceGetMigMode(h)[0] == 1
        except n.NVMLError:
            mig_on = False
        if mig_on:
            mig_lifecycle(h, o)
        D("nvmlDeviceSetMigMode", lambda: n.nvmlDeviceSetMigMode(h, 1), mode=1)
        A("nvmlDeviceGetMigMode", lambda: n.nvmlDeviceGetMigMode(h))


def mig_lifecycle(h, o):
    """On a device in MIG mode: the GPU instances' setters; a GPU instance and compute
    instances created (with and without a placement) and destroyed; then the instances the
    profile had, destroyed (compute instances first), and the listing read back."""
    for gid in GIS.get(o, []):
        gpath = o + "/gi/%d" % gid
        g = n.nvmlDeviceGetGpuInstanceById(h, gid)
        call("nvmlGpuInstanceSetVgpuHeterogeneousMode", gpath, {"mode": 1},
             lambda: n.nvmlGpuInstanceSetVgpuHeterogeneousMode(g, 1) and None)
        call("nvmlGpuInstanceSetVgpuSchedulerState", gpath, {"engine": 0, "policy": 1},
             lambda: rc(n.nvmlGpuInstanceSetVgpuSchedulerState(
                 g, struct(n.c_nvmlVgpuSchedulerState_v1_t, version=n.nvmlVgpuSchedulerState_v1, schedulerPolicy=1))))
        call("nvmlGpuInstanceSetVgpuSchedulerState_v2", gpath, {"engine": 0, "policy": 1},
             lambda: n.nvmlGpuInstanceSetVgpuSchedulerState_v2(g, struct(n.c_nvmlVgpuSchedulerState_v2_t, schedulerPolicy=1))
             and None)
        ci_lifecycle(g, gpath)
    pid = None
    for p in range(n.NVML_GPU_INSTANCE_PROFILE_COUNT):
        try:
            pid = n.nvmlDeviceGetGpuInstanceProfileInfo(h, p, 2).id
            break
        except n.NVMLError:
            continue
    if pid is None:
        return
    for placed in (True, False):
        made = {}

        def create():
            if placed:
                g = n.nvmlDeviceCreateGpuInstanceWithPlacement(
                    h, pid, byref(struct(n.c_nvmlGpuInstancePlacement_t, start=0, size=1)))
            else:
                g = n.nvmlDeviceCreateGpuInstance(h, pid)
            made["gi"] = g
            return "gi:%d" % n.nvmlGpuInstanceGetInfo(g).id
        if placed:
            r = call("nvmlDeviceCreateGpuInstanceWithPlacement", o, {"profileId": pid, "start": 0, "size": 1}, create)
        else:
            r = call("nvmlDeviceCreateGpuInstance", o, {"profileId": pid}, create)
        if "ok" in r:
            gpath = o + "/gi/%s" % r["ok"][3:]
            g = made["gi"]
            call("nvmlGpuInstanceGetInfo", gpath, {"after": 1}, lambda: n.nvmlGpuInstanceGetInfo(g))
            ci_lifecycle(g, gpath)
            call("nvmlGpuInstanceDestroy", gpath, {}, lambda: rc(n.nvmlGpuInstanceDestroy(g)))
    for gid in GIS.get(o, []):
        gpath = o + "/gi/%d" % gid
        g = n.nvmlDeviceGetGpuInstanceById(h, gid)
        for cpid, cid, c in CIS.get(gpath, []):
            call("nvmlComputeInstanceDestroy", gpath + "/ci-profile/%d/ci/%d" % (cpid, cid), {},
                 lambda: rc(n.nvmlComputeInstanceDestroy(c)))
        call("nvmlGpuInstanceDestroy", gpath, {}, lambda: rc(n.nvmlGpuInstanceDestroy(g)))
    for p in range(n.NVML_GPU_INSTANCE_PROFILE_COUNT):
        try:
            info = n.nvmlDeviceGetGpuInstanceProfileInfo(h, p, 2)
        except n.NVMLError:
            continue

        def instances():
            arr = (n.c_nvmlGpuInstance_t * max(info.instanceCount, 1))()
            cnt = c_uint(0)
            n.nvmlDeviceGetGpuInstances(h, info.id, arr, byref(cnt))
            return ["gi:%d" % n.nvmlGpuInstanceGetInfo(arr[i]).id for i in range(cnt.value)]
        call("nvmlDeviceGetGpuInstances", o, {"profileId": info.id, "after": 1}, instances)


def ci_lifecycle(g, gpath):
    """Compute instances of profile 0 created in GPU instance `g` (with and without a
    placement) and destroyed again."""
    for placed in (True, False):
        made = {}

        def create():
            if placed:
                c = n.nvmlGpuInstanceCreateComputeInstanceWithPlacement(
                    g, 0, byref(struct(n.c_nvmlComputeInstancePlacement_t, start=0, size=1)))
            else:
                c = n.nvmlGpuInstanceCreateComputeInstance(g, 0)
            made["ci"] = c
            return "ci:%d" % n.nvmlComputeInstanceGetInfo_v2(c).id
        if placed:
            r = call("nvmlGpuInstanceCreateComputeInstanceWithPlacement", gpath,
                     {"profileId": 0, "start": 0, "size": 1}, create)
        else:
            r = call("nvmlGpuInstanceCreateComputeInstance", gpath, {"profileId": 0}, create)
        if "ok" in r:
            c = made["ci"]
            cpath = gpath + "/ci-profile/0/ci/%s" % r["ok"][3:]
            call("nvmlComputeInstanceGetInfo_v2", cpath, {"after": 1}, lambda: n.nvmlComputeInstanceGetInfo_v2(c))
            call("nvmlComputeInstanceDestroy", cpath, {}, lambda: rc(n.nvmlComputeInstanceDestroy(c)))


def event_v1_calls(handles):
    """The operational-event functions of an event set (GPU operational events)."""
    o = "eventset/1"
    r = call("nvmlEventSetCreate", o, {}, lambda: "handle" if SETS.setdefault(o, n.nvmlEventSetCreate()) else None)
    if "ok" not in r:
        return
    es = SETS[o]
    uuid = n.nvmlDeviceGetUUID(handles[0]) if handles else ""
    cfg = n.c_nvmlGpuOperationalEventConfig_v1_t(uuid=uuid)
    call("nvmlEventSetRegisterGpuOperationalEvents_v1", o, {"uuid": uuid, "minLogLevel": 0, "minSeverity": 0},
         lambda: n.nvmlEventSetRegisterGpuOperationalEvents_v1(es, cfg))

    # pynvml's wrappers take the parameter record and pass it by reference.
    call("nvmlEventSetWait_v3", o, {"timeout": 0},
         by_pynvml(n.nvmlEventSetWait_v3, es, ref=False, struct=n.c_nvmlEventSetWait_v3_t, timeoutMs=0))
    call("nvmlEventSetGetContextCount_v1", o, {},
         by_pynvml(n.nvmlEventSetGetContextCount_v1, es, ref=False, struct=n.c_nvmlEventSetGetContextCount_v1_t))
    call("nvmlEventSetGetContextInfo_v1", o, {"index": 0},
         by_pynvml(n.nvmlEventSetGetContextInfo_v1, es, ref=False, struct=n.c_nvmlEventSetGetContextInfo_v1_t, index=0))
    call("nvmlEventSetGetGpuOperationalEventContextLegacyXid_v1", o, {"index": 0},
         by_pynvml(n.nvmlEventSetGetGpuOperationalEventContextLegacyXid_v1, es, ref=False,
                   struct=n.c_nvmlEventSetGetGpuOperationalEventContextLegacyXid_v1_t, index=0))

    def data():
        """Size query (data NULL, dataSize 0), then fill; the size query through pynvml's
        function pointer (its wrapper raises on INSUFFICIENT_SIZE)."""
        p = n.c_nvmlEventSetGetContextData_v1_t()
        p.index, p.data, p.dataSize = 0, None, 0
        ret = n._nvmlGetFunctionPointer("nvmlEventSetGetContextData_v1")(es, byref(p))
        if ret == n.NVML_SUCCESS and p.dataSize == 0:
            return []
        if ret != n.NVML_ERROR_INSUFFICIENT_SIZE:
            raise n.NVMLError(ret)
        buf = (ctypes.c_ubyte * p.dataSize)()
        p.data = ctypes.cast(buf, ctypes.c_void_p)
        n.nvmlEventSetGetContextData_v1(es, p)
        return list(buf[:p.dataSize])
    call("nvmlEventSetGetContextData_v1", o, {"index": 0}, data)
    call("nvmlEventSetFree", o, {}, lambda: n.nvmlEventSetFree(es))


def main():
    global GETTERS_ONLY
    lib = sys.argv[1]
    GETTERS_ONLY = sys.argv[2:] == ["--getters-only"]
    if sys.argv[2:] and not GETTERS_ONLY:
        raise SystemExit("usage: pynvml_dump.py LIBRARY [--getters-only]")
    # pynvml opens "libnvidia-ml.so.1"; give it the library under test instead.
    n.nvmlLib = ctypes.CDLL(lib)
    n.nvmlInit()
    system_calls()
    count = n.nvmlDeviceGetCount()
    handles = []
    for i in range(count + 1):
        r = call("nvmlDeviceGetHandleByIndex_v2", "system", {"index": i},
                 lambda: device_token(n.nvmlDeviceGetHandleByIndex(i)))
        if "ok" in r:
            handles.append(n.nvmlDeviceGetHandleByIndex(i))
    pids, types, vgpus = [], [], []
    for i, h in enumerate(handles):
        o = "dev/%d" % i
        uuid = n.nvmlDeviceGetUUID(h)
        call("nvmlDeviceGetHandleByUUID", "system", {"uuid": uuid}, lambda: device_token(n.nvmlDeviceGetHandleByUUID(uuid)))
        try:
            serial = n.nvmlDeviceGetSerial(h)
            call("nvmlDeviceGetHandleBySerial", "system", {"serial": serial},
                 lambda: device_token(n.nvmlDeviceGetHandleBySerial(serial)))
        except n.NVMLError:
            pass
        bus = n.nvmlDeviceGetPciInfo_v3(h).busId
        bus = bus.decode() if isinstance(bus, bytes) else bus
        call("nvmlDeviceGetHandleByPciBusId_v2", "system", {"busId": bus},
             lambda: device_token(n.nvmlDeviceGetHandleByPciBusId(bus)))
        call("nvmlDeviceGetHandleByUUIDV", "system", {"uuid": uuid, "type": n.NVML_UUID_TYPE_ASCII},
             lambda: device_token(n.nvmlDeviceGetHandleByUUIDV(uuid, n.NVML_UUID_TYPE_ASCII)))
        found = device_calls(h, o, count)
        pids += found["pids"]
        types += found["types"]
        vgpus += found["vgpus"]
        for gpath, g in mig_calls(h, o):
            GIS.setdefault(o, []).append(int(gpath.rsplit("/", 1)[1]))
            gpu_instance_calls(g, gpath)
        try:
            max_mig = n.nvmlDeviceGetMaxMigDeviceCount(h)
        except n.NVMLError:
            max_mig = 0
        for j in range(max_mig):
            r = call("nvmlDeviceGetMigDeviceHandleByIndex", o, {"index": j},
                     lambda: device_token(n.nvmlDeviceGetMigDeviceHandleByIndex(h, j)))
            if "ok" not in r:
                continue
            m = n.nvmlDeviceGetMigDeviceHandleByIndex(h, j)
            mo = o + "/mig/%d" % j
            call("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", mo, {},
                 lambda: device_token(n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(m)))
            device_calls(m, mo, 0)
    process_names(pids)
    unit_calls()
    for t in sorted(set(types)) or [1]:
        vgpu_type_calls(t)
    VGPUS.extend(sorted(set(vgpus)))
    for v in VGPUS or [1]:
        vgpu_instance_calls(v)
    request_calls(handles)
    event_calls(handles)
    event_v1_calls(handles)
    system_event_calls()
    gpm_calls(handles)
    if not GETTERS_ONLY:
        setter_calls(handles)
    n.nvmlShutdown()
    # A real driver answers NaN for some metrics (GPM), which JSON cannot hold: null, as
    # serde_json writes nvmlkit's NaN.
    def finite(v):
        if isinstance(v, float) and v != v or v in (float("inf"), float("-inf")):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        if isinstance(v, list):
            return [finite(x) for x in v]
        return v

    doc = {"pynvml": getattr(n, "__version__", None) or version(), "calls": finite(CALLS)}
    json.dump(doc, sys.stdout, sort_keys=True, allow_nan=False)


def version():
    try:
        from importlib.metadata import version as v
        return v("nvidia-ml-py")
    except Exception:
        return "unknown"


if __name__ == "__main__":
    main()
