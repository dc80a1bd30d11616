#!/usr/bin/env python3
"""Evaluates one Python expression with NVIDIA's binding (`n`, module pynvml) loaded on the
library at argv[1], and prints what pynvml did, as JSON:

    {"calls": [{"fn": C function, "args": [how each argument was passed]}, ...],
     "ok": value (as JSON, or its repr) | "err": nvmlReturn_t code | "pyerr": "Type: message"}

Each C function pynvml looks up (through `_nvmlGetFunctionPointer`) after nvmlInit is
recorded when it is called, with each argument as "NULL" (None or a null pointer), "ref"
(byref(...)), "array[N]", "handle" (a non-null pointer) or its integer value; a function the
library lacks is recorded with "missing": true. In the expression, `dev` is the list of the
devices' handles (looked up before recording starts) and `ctypes` the module.

For the proofs of differential.rs's KNOWN_MISMATCHES (differential/proofs.rs): what pynvml
passes and which function's answer it reports, shown by calling it.
"""

import ctypes
import json
import sys

import pynvml as n

CALLS = []


def describe(a):
    if a is None:
        return "NULL"
    if isinstance(a, int):
        return a
    if isinstance(a, ctypes._SimpleCData):
        return a.value
    if type(a).__name__ == "CArgObject":
        return "ref"
    if isinstance(a, ctypes.Array):
        return "array[%d]" % len(a)
    if isinstance(a, ctypes._Pointer):
        return "handle" if a else "NULL"
    return type(a).__name__


def main():
    n.nvmlLib = ctypes.CDLL(sys.argv[1])
    n.nvmlInit()
    dev = [n.nvmlDeviceGetHandleByIndex(i) for i in range(n.nvmlDeviceGetCount())]
    lookup = n._nvmlGetFunctionPointer

    def spy(name):
        try:
            fn = lookup(name)
        except n.NVMLError:
            CALLS.append({"fn": name, "missing": True})
            raise

        def recorded(*args):
            CALLS.append({"fn": name, "args": [describe(a) for a in args]})
            return fn(*args)
        return recorded
    n._nvmlGetFunctionPointer = spy
    out = {}
    try:
        value = eval(sys.argv[2], {"n": n, "dev": dev, "ctypes": ctypes})
        try:
            json.dumps(value)
            out["ok"] = value
        except TypeError:
            out["ok"] = repr(value)
    except n.NVMLError as e:
        out["err"] = e.value
    except Exception as e:  # pynvml's own failure
        out["pyerr"] = "%s: %s" % (type(e).__name__, e)
    n._nvmlGetFunctionPointer = lookup
    n.nvmlShutdown()
    out["calls"] = CALLS
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
