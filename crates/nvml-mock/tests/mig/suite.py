"""MIG as NVIDIA's Python binding (pynvml) drives it, against the mock (`tests/mig.rs` runs it).

`python3 suite.py drive PROFILE GPU`: the suite on one GPU of a built-in profile (`h100`,
`a100`, `b200`), in the session the environment names (`NVML_MOCK_SESSION`,
`NVML_MOCK_RUNTIME_DIR`); `NVML_MOCK_CTL` is the `nvml-mock` program (for `ctl reset-gpu`),
`MIG_NONROOT` how to run a process that is not root (`uid` when this one is root, `same`
otherwise), `MIG_NONROOT_PROFILE` the profile that process runs. It starts a second process of
the session (`python3 suite.py observe`), which answers `state GPU` with the tree as it sees
it, and checks after each step that both see the same. It prints `ok` and exits 0, or fails
with the first difference.

The expected tables are NVIDIA's MIG user guide's ("Supported MIG Profiles"): for each GPU,
each GPU instance profile's name, compute slices, number of instances and placements (start and
size in the 8 memory slices); every partition they allow is walked, and any other is refused.
"""

import json
import os
import subprocess
import sys

import pynvml as n

# profile id: (name, compute slices, instances, placements as (start, size) in memory slices)
ONES = [(s, 1) for s in range(7)]
HALVES = [(0, 2), (2, 2), (4, 2), (6, 2)]
GUIDE = {
    "h100": {
        19: ("1g.10gb", 1, 7, ONES), 20: ("1g.10gb+me", 1, 1, ONES), 15: ("1g.20gb", 1, 4, HALVES),
        14: ("2g.20gb", 2, 3, HALVES[:3]), 9: ("3g.40gb", 3, 2, [(0, 4), (4, 4)]), 5: ("4g.40gb", 4, 1, [(0, 4)]),
        0: ("7g.80gb", 7, 1, [(0, 8)]),
    },
    "a100": {
        19: ("1g.10gb", 1, 7, ONES), 20: ("1g.10gb+me", 1, 1, ONES), 15: ("1g.20gb", 1, 4, HALVES),
        14: ("2g.20gb", 2, 3, HALVES[:3]), 9: ("3g.40gb", 3, 2, [(0, 4), (4, 4)]), 5: ("4g.40gb", 4, 1, [(0, 4)]),
        0: ("7g.80gb", 7, 1, [(0, 8)]),
    },
    "b200": {
        19: ("1g.23gb", 1, 7, ONES), 20: ("1g.23gb+me", 1, 1, ONES), 15: ("1g.45gb", 1, 4, HALVES),
        14: ("2g.45gb", 2, 3, HALVES[:3]), 9: ("3g.90gb", 3, 2, [(0, 4), (4, 4)]), 5: ("4g.90gb", 4, 1, [(0, 4)]),
        0: ("7g.180gb", 7, 1, [(0, 8)]),
    },
}
COMPUTE_SLICES = 7


def code(f, *args):
    """The NVML code `f(*args)` answers (0: success)."""
    try:
        f(*args)
        return 0
    except n.NVMLError as e:
        return e.value


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def placements(h, pid):
    count = n.c_uint(0)
    n.nvmlDeviceGetGpuInstancePossiblePlacements(h, pid, None, n.byref(count))
    arr = (n.c_nvmlGpuInstancePlacement_t * count.value)()
    n.nvmlDeviceGetGpuInstancePossiblePlacements(h, pid, arr, n.byref(count))
    return [(p.start, p.size) for p in arr[: count.value]]


def gpu_instances(h, pid):
    count = n.c_uint(16)
    arr = (n.c_nvmlGpuInstance_t * 16)()
    n.nvmlDeviceGetGpuInstances(h, pid, arr, n.byref(count))
    return list(arr[: count.value])


def compute_instances(g, cpid):
    count = n.c_uint(16)
    arr = (n.c_nvmlComputeInstance_t * 16)()
    n.nvmlGpuInstanceGetComputeInstances(g, cpid, arr, n.byref(count))
    return list(arr[: count.value])


def go_nvlib_gb(total_bytes, mib):
    """The memory go-nvlib names a MIG profile by (`getMigMemorySizeGB`): the profile's share
    of the GPU's memory rounded up to eighths, times the GPU's memory in GB rounded up, rounded
    half away from zero (Go's math.Round)."""
    frac = mib * 1024 * 1024 / total_bytes
    frac = -(-frac * 8 // 1) / 8
    gb = -(-total_bytes // (1024 ** 3))
    return int(frac * gb + 0.5)


def state(h):
    """The tree as this process sees it: the mode, each GPU instance (id, profile, placement)
    with its compute instances, every profile's remaining capacity, and the MIG devices
    (name, UUID, memory) by index."""
    mode = n.nvmlDeviceGetMigMode(h)
    gis = []
    caps = {}
    for pid in range(0, 64):
        try:
            n.nvmlDeviceGetGpuInstanceProfileInfoById(h, pid)
        except n.NVMLError:
            continue
        caps[pid] = n.nvmlDeviceGetGpuInstanceRemainingCapacity(h, pid)
        for g in gpu_instances(h, pid):
            info = n.nvmlGpuInstanceGetInfo(g)
            cis = []
            for cpid in range(0, 8):
                try:
                    for c in compute_instances(g, cpid):
                        ci = n.nvmlComputeInstanceGetInfo_v2(c)
                        cis.append([ci.id, ci.profileId, ci.placement.start, ci.placement.size])
                except n.NVMLError:
                    pass
            gis.append([info.id, info.profileId, info.placement.start, info.placement.size, sorted(cis)])
    migs = []
    for i in range(n.nvmlDeviceGetMaxMigDeviceCount(h) + 1):
        try:
            m = n.nvmlDeviceGetMigDeviceHandleByIndex(h, i)
        except n.NVMLError as e:
            migs.append(["end", e.value])
            break
        migs.append([n.nvmlDeviceGetName(m), n.nvmlDeviceGetUUID(m), n.nvmlDeviceGetMemoryInfo(m).total])
    return {"mode": list(mode), "gis": sorted(gis), "capacity": {str(k): v for k, v in sorted(caps.items())}, "migs": migs}


def observe():
    n.nvmlInit()
    print("ready", flush=True)
    for line in sys.stdin:
        cmd = line.split()
        try:
            out = state(n.nvmlDeviceGetHandleByIndex(int(cmd[1])))
        except n.NVMLError as e:
            out = {"error": e.value}
        print(json.dumps(out, sort_keys=True), flush=True)


class Observer:
    """The second process of the session."""

    def __init__(self):
        self.p = subprocess.Popen([sys.executable, __file__, "observe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        check(self.p.stdout.readline().strip() == "ready", "the observer starts")

    def state(self, gpu):
        self.p.stdin.write("state %d\n" % gpu)
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def state_json(h):
    return json.loads(json.dumps(state(h), sort_keys=True))


def same(obs, h, gpu, step):
    mine = state_json(h)
    theirs = obs.state(gpu)
    check(mine == theirs, "%s: another process of the session sees %s, this one %s" % (step, theirs, mine))
    return mine


def destroy_all(h):
    for pid in range(0, 64):
        try:
            gis = gpu_instances(h, pid)
        except n.NVMLError:
            continue
        for g in gis:
            for cpid in range(0, 8):
                try:
                    for c in compute_instances(g, cpid):
                        n.nvmlComputeInstanceDestroy(c)
                except n.NVMLError:
                    pass
            n.nvmlGpuInstanceDestroy(g)


def place(start, size):
    return n.byref(n.c_nvmlGpuInstancePlacement_t(start, size))


def overlaps(a, b):
    return a[0] < b[0] + b[1] and b[0] < a[0] + a[1]


def fits(table, made, pid, at):
    """Whether the guide's table allows a GPU instance of `pid` at `at` beside `made`
    ([(pid, placement)]): one of its placements, free, within its instances and the compute
    slices."""
    name, slices, instances, places = table[pid]
    return (
        at in places
        and not any(overlaps(at, p) for _, p in made)
        and sum(1 for q, _ in made if q == pid) < instances
        and sum(table[q][1] for q, _ in made) + slices <= COMPUTE_SLICES
    )


def walk(h, table):
    """Every partition the table allows, from none: each GPU instance it allows at each state
    is created (at its placement) and destroyed again, and each it refuses answers
    INSUFFICIENT_RESOURCES; the remaining capacity of every profile is what the table leaves.
    Returns the number of partitions visited."""
    seen = set()

    def capacity(made, pid):
        # Greedy over the profile's free placements, as each one taken takes those it overlaps.
        count, cur = 0, list(made)
        for at in table[pid][3]:
            if fits(table, cur, pid, at):
                cur.append((pid, at))
                count += 1
        return count

    def visit(made):
        key = frozenset(made)
        if key in seen:
            return
        seen.add(key)
        for pid in table:
            want = capacity(made, pid)
            got = n.nvmlDeviceGetGpuInstanceRemainingCapacity(h, pid)
            check(got == want, "capacity of profile %d with %s: %d, the guide's table leaves %d" % (pid, sorted(made), got, want))
        for pid in sorted(table):
            for at in table[pid][3]:
                ok = fits(table, made, pid, at)
                if ok and frozenset(made + [(pid, at)]) in seen:
                    continue
                try:
                    g = n.nvmlDeviceCreateGpuInstanceWithPlacement(h, pid, place(*at))
                except n.NVMLError as e:
                    check(not ok, "profile %d at %s beside %s refused (%d), the table allows it" % (pid, at, sorted(made), e.value))
                    check(e.value == n.NVML_ERROR_INSUFFICIENT_RESOURCES, "profile %d at %s beside %s: %d" % (pid, at, sorted(made), e.value))
                    continue
                check(ok, "profile %d at %s beside %s created, the table refuses it" % (pid, at, sorted(made)))
                info = n.nvmlGpuInstanceGetInfo(g)
                check((info.profileId, info.placement.start, info.placement.size) == (pid, at[0], at[1]), "the instance's info")
                visit(made + [(pid, at)])
                n.nvmlGpuInstanceDestroy(g)

    visit([])
    return len(seen)


def drive(profile, gpu):
    table = GUIDE[profile]
    ctl = os.environ["NVML_MOCK_CTL"]
    n.nvmlInit()
    h = n.nvmlDeviceGetHandleByIndex(gpu)
    gpu_name = n.nvmlDeviceGetName(h)
    total = n.nvmlDeviceGetMemoryInfo(h).total
    obs = Observer()

    # The profiles and their placements, as the guide tables them; their memory names them
    # (go-nvlib's rounding) as the profile's name does.
    for index in range(n.NVML_GPU_INSTANCE_PROFILE_COUNT):
        try:
            info = n.nvmlDeviceGetGpuInstanceProfileInfo(h, index)
        except n.NVMLError:
            continue
        name = info.name.decode() if isinstance(info.name, bytes) else info.name
        check(info.id in table, "profile %d (%s) is not in the guide's table" % (info.id, name))
        want, slices, instances, places = table[info.id]
        check(name == "MIG " + want, "profile %d is named %s, the guide says %s" % (info.id, name, want))
        check((info.sliceCount, info.instanceCount) == (slices, instances), "profile %s: slices and instances" % want)
        check(placements(h, info.id) == places, "profile %s: placements %s" % (want, placements(h, info.id)))
        gb = go_nvlib_gb(total, info.memorySizeMB)
        check(want.split(".")[1].startswith("%dgb" % gb), "profile %s: %d MiB of %d bytes is %d GB to go-nvlib" % (want, info.memorySizeMB, total, gb))
    check(len([i for i in table]) == len(set(table)), "the table")

    # MIG on, at a reset, if it is off.
    if n.nvmlDeviceGetMigMode(h) == [0, 0]:
        check(code(n.nvmlDeviceCreateGpuInstance, h, 19) == n.NVML_ERROR_NOT_SUPPORTED, "MIG off: no GPU instance")
        check(n.nvmlDeviceSetMigMode(h, 1) == n.NVML_ERROR_RESET_REQUIRED, "enabling MIG waits for a reset")
        check(same(obs, h, gpu, "enable")["mode"] == [0, 1], "enabled: pending")
        subprocess.run([ctl, "ctl", "reset-gpu", str(gpu)], check=True, stdout=subprocess.DEVNULL)
        check(n.nvmlDeviceGetMigMode(h) == [1, 1], "after the reset MIG is on")

    # 1. Destroy the GPU's instances: stale handles answer INVALID_ARGUMENT.
    before = same(obs, h, gpu, "start")
    old_gis = [g for pid in table for g in gpu_instances(h, pid)]
    old_migs = [n.nvmlDeviceGetMigDeviceHandleByIndex(h, i) for i in range(len(before["migs"]) - 1)]
    destroy_all(h)
    now = same(obs, h, gpu, "destroyed")
    check(now["gis"] == [] and now["migs"] == [["end", n.NVML_ERROR_NOT_FOUND]], "nothing left: %s" % now)
    for g in old_gis:
        check(code(n.nvmlGpuInstanceGetInfo, g) == n.NVML_ERROR_INVALID_ARGUMENT, "a destroyed GPU instance's handle")
    for m in old_migs:
        check(code(n.nvmlDeviceGetUUID, m) == n.NVML_ERROR_INVALID_ARGUMENT, "a destroyed MIG device's handle")

    # 2. Seven 1g instances, each with a compute instance; the capacity after each step.
    one = 19
    made = []
    for i in range(7):
        check(n.nvmlDeviceGetGpuInstanceRemainingCapacity(h, one) == 7 - i, "capacity before instance %d" % i)
        g = n.nvmlDeviceCreateGpuInstance(h, one)
        c = n.nvmlGpuInstanceCreateComputeInstance(g, 0)
        made.append((g, c))
        now = same(obs, h, gpu, "1g instance %d" % i)
        check(now["capacity"][str(one)] == 6 - i, "capacity after instance %d: %s" % (i, now["capacity"]))
    # 3. The seven MIG devices.
    migs = now["migs"]
    check(len(migs) == 8 and migs[7] == ["end", n.NVML_ERROR_NOT_FOUND], "seven MIG devices: %s" % migs)
    check(len({m[1] for m in migs[:7]}) == 7 and all(m[1].startswith("MIG-") for m in migs[:7]), "seven UUIDs")
    want_mem = n.nvmlDeviceGetGpuInstanceProfileInfo(h, 0).memorySizeMB * 1024 * 1024
    for m in migs[:7]:
        check(m[0] == "%s MIG %s" % (gpu_name, table[one][0]) and m[2] == want_mem, "a MIG device: %s" % m)
    for i in range(7):
        m = n.nvmlDeviceGetMigDeviceHandleByIndex(h, i)
        parent = n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(m)
        # This binding answers nvmlDeviceIsMigDeviceHandle as a c_uint.
        is_mig = lambda d: getattr(n.nvmlDeviceIsMigDeviceHandle(d), "value", n.nvmlDeviceIsMigDeviceHandle(d))
        got = (n.nvmlDeviceGetUUID(parent), is_mig(m), is_mig(h))
        check(got == (n.nvmlDeviceGetUUID(h), 1, 0), "MIG device %d's GPU: %s" % (i, got))
    # 4. One more is refused.
    check(code(n.nvmlDeviceCreateGpuInstance, h, one) == n.NVML_ERROR_INSUFFICIENT_RESOURCES, "an eighth 1g instance")
    check(code(n.nvmlDeviceCreateGpuInstanceWithPlacement, h, one, place(7, 1)) == n.NVML_ERROR_INVALID_ARGUMENT, "1g at slice 7")
    check(code(n.nvmlDeviceCreateGpuInstance, h, 99) == n.NVML_ERROR_INVALID_ARGUMENT, "a profile the GPU lacks")
    # A MIG device created again where one was destroyed has a new UUID.
    g, c = made[0]
    uuid = n.nvmlDeviceGetUUID(n.nvmlDeviceGetMigDeviceHandleByIndex(h, 0))
    n.nvmlComputeInstanceDestroy(c)
    check(code(n.nvmlComputeInstanceGetInfo_v2, c) == n.NVML_ERROR_INVALID_ARGUMENT, "a destroyed compute instance's handle")
    made[0] = (g, n.nvmlGpuInstanceCreateComputeInstance(g, 0))
    uuids = [m[1] for m in same(obs, h, gpu, "compute instance again")["migs"][:7]]
    check(uuid not in uuids and len(set(uuids)) == 7, "a new UUID: %s, before %s" % (uuids, uuid))

    # 5. Everything destroyed, then 4g + 3g.
    for g, c in made:
        n.nvmlComputeInstanceDestroy(c)
        n.nvmlGpuInstanceDestroy(g)
    check(same(obs, h, gpu, "all destroyed")["capacity"][str(one)] == 7, "all capacity back")
    g4 = n.nvmlDeviceCreateGpuInstanceWithPlacement(h, 5, place(0, 4))
    check(code(n.nvmlDeviceCreateGpuInstanceWithPlacement, h, 9, place(0, 4)) == n.NVML_ERROR_INSUFFICIENT_RESOURCES, "3g over the 4g")
    check(code(n.nvmlDeviceCreateGpuInstanceWithPlacement, h, 9, place(2, 4)) == n.NVML_ERROR_INVALID_ARGUMENT, "3g misaligned")
    g3 = n.nvmlDeviceCreateGpuInstance(h, 9)
    now = same(obs, h, gpu, "4g + 3g")
    check([gi[1:4] for gi in now["gis"]] == sorted([[5, 0, 4], [9, 4, 4]]), "4g at 0, 3g at 4: %s" % now["gis"])
    check(all(v == 0 for v in now["capacity"].values()), "the GPU is full: %s" % now["capacity"])
    # 6. A GPU instance with a compute instance is in use.
    c3 = n.nvmlGpuInstanceCreateComputeInstance(g3, 2)
    check(code(n.nvmlGpuInstanceDestroy, g3) == n.NVML_ERROR_IN_USE, "destroying a GPU instance with a compute instance")
    check(code(n.nvmlGpuInstanceCreateComputeInstance, g3, 0) == n.NVML_ERROR_INSUFFICIENT_RESOURCES, "no slice left in the 3g")
    check(n.nvmlDeviceGetMigDeviceHandleByIndex(h, 0) is not None, "its MIG device")
    name3 = n.nvmlDeviceGetName(n.nvmlDeviceGetMigDeviceHandleByIndex(h, 0))
    check(name3 == "%s MIG %s" % (gpu_name, table[9][0]), "the 3g's MIG device: %s" % name3)
    # Disabling MIG with instances left is refused.
    check(code(n.nvmlDeviceSetMigMode, h, 0) == n.NVML_ERROR_IN_USE, "disabling MIG with instances")
    same(obs, h, gpu, "in use")

    # 8. A process that is not root may not change MIG. Run as root, this process's Python may
    # not be another user's to run: `tests/mig.rs` runs that check as uid 54321 (a program of
    # its own); here, a process of this user whose profile grants no MIG capability.
    if os.environ.get("MIG_NONROOT") == "same":
        env = dict(os.environ, NVML_MOCK_PROFILE=os.environ["MIG_NONROOT_PROFILE"])
        env.pop("NVML_MOCK_SESSION", None)
        script = (
            "import pynvml as n\nn.nvmlInit()\nh = n.nvmlDeviceGetHandleByIndex(%d)\n"
            "for f in (lambda: n.nvmlDeviceCreateGpuInstance(h, 19), lambda: n.nvmlDeviceSetMigMode(h, 1)):\n"
            "    try:\n        f()\n        print(0)\n    except n.NVMLError as e:\n        print(e.value)\n" % gpu
        )
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        check(out.returncode == 0, "the process that is not root: %s" % out.stderr)
        check(out.stdout.split() == [str(n.NVML_ERROR_NO_PERMISSION)] * 2, "not root: %s" % out.stdout)

    # 7. The tree outlives the process that changed it: with the 4g instance gone, a process
    # of the session creates a 1g.10gb instance and exits; this process and one that joins the
    # session now see it.
    n.nvmlGpuInstanceDestroy(g4)
    child = (
        "import pynvml as n\nn.nvmlInit()\nh = n.nvmlDeviceGetHandleByIndex(%d)\n"
        "print(n.nvmlGpuInstanceGetInfo(n.nvmlDeviceCreateGpuInstance(h, 19)).id)\n" % gpu
    )
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    check(out.returncode == 0, "a process that creates an instance: %s" % out.stderr)
    made_by_child = int(out.stdout)
    seen_here = [gi[0] for gi in same(obs, h, gpu, "after the child exited")["gis"]]
    check(made_by_child in seen_here, "the child's GPU instance %d outlives it: %s" % (made_by_child, seen_here))
    late = Observer()
    check(late.state(gpu) == state_json(h), "a process that joins later sees the tree")
    late.close()
    n.nvmlGpuInstanceDestroy(n.nvmlDeviceGetGpuInstanceById(h, made_by_child))
    g4 = n.nvmlDeviceCreateGpuInstanceWithPlacement(h, 5, place(0, 4))

    # Every partition the guide allows, and back to none.
    n.nvmlComputeInstanceDestroy(c3)
    n.nvmlGpuInstanceDestroy(g3)
    n.nvmlGpuInstanceDestroy(g4)
    partitions = walk(h, table)
    now = same(obs, h, gpu, "after the walk")
    check(now["gis"] == [] and all(now["capacity"][str(p)] == table[p][2] for p in table), "back to none: %s" % now)
    obs.close()
    print("ok %d partitions" % partitions)


if __name__ == "__main__":
    if sys.argv[1] == "observe":
        observe()
    else:
        drive(sys.argv[2], int(sys.argv[3]))
