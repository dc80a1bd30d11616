"""A mock NVML (``libnvidia-ml.so.1``) for testing GPU tools without a GPU.

The package holds the mock library, its ``nvml-mock`` program, the built-in GPU profiles and
ready libraries of the drivers those profiles run, so nothing needs building::

    import subprocess, nvmlkit_mock
    subprocess.run(["gpustat"], env=nvmlkit_mock.environ(profile="a100"))

- :func:`library_dir` is a directory with ``libnvidia-ml.so.1`` (and ``libnvidia-ml.so``);
- :func:`environ` is the environment of a subprocess that runs on the mock;
- :func:`ctl` changes a running mock (a session's GPUs), :func:`capture` records a real one;
- :func:`use_in_process` points this process's pynvml at the mock.

``python -m nvmlkit_mock run --profile a100 -- CMD ARGS...`` runs a command on the mock; the
pytest plugin of this package offers the ``nvml_mock`` fixture.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Mapping, Optional

__all__ = [
    "MockError",
    "Session",
    "capture",
    "ctl",
    "drivers",
    "environ",
    "library_dir",
    "profile_driver",
    "profiles",
    "program",
    "use_in_process",
]

_DATA = Path(__file__).resolve().parent / "_data"

#: The library a client loads, as NVIDIA's driver installs it.
LIBRARY = "libnvidia-ml.so.1"

#: The profile the mock answers with when none is named.
DEFAULT_PROFILE = "h100"

_SESSION_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


class MockError(Exception):
    """A bad argument (an unknown profile or driver, a session name) or a failing program."""


@functools.lru_cache(maxsize=None)
def _manifest() -> dict:
    path = _DATA / "manifest.json"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise MockError(f"this nvmlkit-mock installation is incomplete: {path}: {e}") from None


def __getattr__(name: str):
    if name == "__version__":
        return _manifest()["version"]
    raise AttributeError(name)


def program() -> str:
    """The path of the ``nvml-mock`` program (``ctl``, ``capture``, ``lib``, ``profiles``)."""
    return str(_DATA / _manifest()["program"])


def profiles() -> Dict[str, Optional[str]]:
    """The built-in profiles, each with the driver version it runs (``None`` for none)."""
    return {name: p["driver"] for name, p in _manifest()["profiles"].items()}


def drivers() -> List[str]:
    """The driver versions this package has a library of (those of the built-in profiles)."""
    return sorted(_manifest()["drivers"], key=_version_key)


def _version_key(version: str):
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def _check_profile(profile: str) -> str:
    """The profile as the mock reads it: a built-in name, or a profile file's absolute path."""
    if not isinstance(profile, str) or not profile:
        raise MockError(f"a profile is a built-in name or a YAML file, not {profile!r}")
    if profile in _manifest()["profiles"]:
        return profile
    if os.path.isfile(profile):
        return os.path.abspath(profile)
    builtin = ", ".join(_manifest()["profiles"])
    raise MockError(f"unknown profile {profile!r}: neither a built-in ({builtin}) nor a file")


def profile_driver(profile: str) -> Optional[str]:
    """The driver version a profile (a built-in name or a YAML file) runs; ``None`` for none."""
    profile = _check_profile(profile)
    if profile in _manifest()["profiles"]:
        return _manifest()["profiles"][profile]["driver"]
    out = _program_output(["profiles", profile])
    fields = out.strip().split("\t")
    return None if len(fields) < 2 or fields[1] == "-" else fields[1]


def _driver_dir(driver: str) -> Path:
    known = _manifest()["drivers"]
    if driver not in known:
        raise MockError(
            f"no library of driver {driver!r} in this package: it has {', '.join(drivers())} "
            f"(the drivers of the built-in profiles); `nvml-mock lib --driver {driver}` writes "
            "another one where a C compiler is installed"
        )
    return _DATA / known[driver]


def library_dir(driver: Optional[str] = None, *, profile: Optional[str] = None) -> str:
    """A directory holding ``libnvidia-ml.so.1`` and ``libnvidia-ml.so``.

    With neither argument: the plain mock, which exports every function of the newest
    ``nvml.h`` whatever the profile's driver. ``driver="525.147.05"``: a library that exports
    exactly that driver's functions (:func:`drivers` lists them) and makes ``nvmlInit`` fail
    with ``NVML_ERROR_LIB_RM_VERSION_MISMATCH`` for a profile of another driver.
    ``profile="a100"``: the library of that profile's driver (and, for a built-in profile,
    without the functions the profile says its driver lacks).
    """
    if driver is not None and profile is not None:
        raise MockError("give a driver or a profile, not both")
    if driver is not None:
        return str(_driver_dir(driver))
    if profile is not None:
        checked = _check_profile(profile)
        if checked in _manifest()["profiles"]:
            return str(_DATA / _manifest()["profiles"][checked]["lib"])
        own = profile_driver(checked)
        return str(_driver_dir(own)) if own else str(_DATA / _manifest()["plain"])
    return str(_DATA / _manifest()["plain"])


def _check_session(session: Optional[str]) -> Optional[str]:
    if session is not None and not _SESSION_NAME.match(session):
        raise MockError(f"session {session!r}: a session name is letters, digits, '.', '_' and '-'")
    return session


def _variables(profile: str, session: Optional[str], driver: Optional[str], plain: bool, live_pids: bool) -> Dict[str, str]:
    checked = _check_profile(profile)
    if plain and driver is not None:
        raise MockError("give a driver or plain, not both")
    libdir = library_dir() if plain else library_dir(driver) if driver else library_dir(profile=checked)
    # The other libraries the package carries (beside the NVML mock, in the plain directory)
    # are found after the NVML library of the driver.
    others = set(_manifest()["libraries"]) != {Path(_manifest()["mock"]).name} and libdir != library_dir()
    path = libdir + os.pathsep + library_dir() if others else libdir
    env = {"NVML_MOCK_PROFILE": checked, "LD_LIBRARY_PATH": path}
    if _check_session(session):
        env["NVML_MOCK_SESSION"] = session
    if live_pids:
        env["NVML_MOCK_LIVE_PIDS"] = "1"
    return env


def environ(
    profile: str = DEFAULT_PROFILE,
    session: Optional[str] = None,
    driver: Optional[str] = None,
    *,
    plain: bool = False,
    live_pids: bool = False,
    base: Optional[Mapping[str, str]] = None,
) -> Dict[str, str]:
    """The environment of a subprocess that runs on the mock: ``base`` (default
    ``os.environ``) with the mock's library first on ``LD_LIBRARY_PATH``,
    ``NVML_MOCK_PROFILE``, ``NVML_MOCK_SESSION`` (with ``session``) and ``nvml-mock`` on
    ``PATH``.

    The library is that of the profile's own driver, so a client sees that driver's symbols;
    ``driver=V`` takes the library of driver ``V`` instead, ``plain=True`` the plain mock.
    ``live_pids=True`` gives the profile's processes the ids of live processes (gpustat and
    nvitop hide processes that do not exist).
    """
    env = dict(os.environ if base is None else base)
    for key, value in _variables(profile, session, driver, plain, live_pids).items():
        if key == "LD_LIBRARY_PATH" and env.get(key):
            value = value + os.pathsep + env[key]
        env[key] = value
    bindir = str(Path(program()).parent)
    env["PATH"] = bindir + (os.pathsep + env["PATH"] if env.get("PATH") else "")
    return env


def _program_output(args: List[str], env: Optional[Mapping[str, str]] = None) -> str:
    try:
        out = subprocess.run([program(), *args], capture_output=True, text=True, env=env)
    except OSError as e:
        raise MockError(f"cannot run {program()}: {e}") from None
    if out.returncode != 0:
        message = out.stderr.strip() or f"exit status {out.returncode}"
        raise MockError(message[len("error: ") :] if message.startswith("error: ") else message)
    return out.stdout


def ctl(session: Optional[str], *args: str, env: Optional[Mapping[str, str]] = None) -> str:
    """``nvml-mock ctl --session SESSION ARGS...``: changes the GPUs of a running mock's
    session, e.g. ``ctl("s1", "set", "0", "temperature.gpu", "95")``; returns what it prints.
    ``session=None``: ``$NVML_MOCK_SESSION``. A session exists while a process has the mock
    initialised in it (a :class:`Session` holds one open). Raises :class:`MockError` with the
    program's message when it refuses.
    """
    words = [str(a) for a in args]
    if _check_session(session):
        words = ["--session", session, *words]
    return _program_output(["ctl", *words], env=env)


_HOLDER = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(lib.nvmlInit_v2(), flush=True)
sys.stdin.read()
lib.nvmlShutdown()
"""


class Session:
    """A session of ``ctl``, held open by a small process of its own that has the mock
    initialised in it, so that changes reach short-lived clients too (each client started
    with :attr:`environ` joins the session and sees its changes)::

        with nvmlkit_mock.Session("s1", profile="a100") as s:
            s.ctl("set", 3, "temperature.gpu", 95)
            subprocess.run(["gpustat"], env=s.environ)
    """

    def __init__(
        self,
        name: str,
        profile: str = DEFAULT_PROFILE,
        driver: Optional[str] = None,
        *,
        plain: bool = False,
        live_pids: bool = False,
        base: Optional[Mapping[str, str]] = None,
    ) -> None:
        if not name:
            raise MockError("a session needs a name")
        self.name = name
        #: The environment of a process in this session.
        self.environ = environ(profile, name, driver, plain=plain, live_pids=live_pids, base=base)
        #: The directory of the ``libnvidia-ml.so.1`` its processes load.
        self.library_dir = self.environ["LD_LIBRARY_PATH"].split(os.pathsep)[0]
        self._holder: Optional[subprocess.Popen] = None
        #: Why the session could not be held open (the mock's nvmlInit failed), if it could not.
        self.start_error: Optional[str] = None

    def start(self) -> "Session":
        """Starts the process that holds the session open; raises :class:`MockError` when the
        mock refuses to initialise (its message says why)."""
        if self._holder is not None:
            return self
        library = os.path.join(self.library_dir, LIBRARY)
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, library],
            env=self.environ,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None
        code = holder.stdout.readline().strip()
        if code != "0":
            holder.kill()
            _, err = holder.communicate()
            self.start_error = f"session {self.name}: the mock's nvmlInit answered {code or 'nothing'}: {err.strip()}"
            raise MockError(self.start_error)
        self.start_error = None
        self._holder = holder
        return self

    def ctl(self, *args: object) -> str:
        """``nvml-mock ctl`` on this session: ``ctl("set", 0, "temperature.gpu", 95)``."""
        if self.start_error is not None:
            raise MockError(f"no ctl: the session could not be held open ({self.start_error})")
        return ctl(self.name, *map(str, args), env=self.environ)

    def close(self) -> None:
        """Ends the holding process (the session's changes go with the last process in it)."""
        holder, self._holder = self._holder, None
        if holder is None:
            return
        try:
            holder.communicate(input="", timeout=10)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.communicate()

    def __enter__(self) -> "Session":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def capture(*args: str) -> str:
    """``nvml-mock capture ARGS...`` (on a machine with a GPU): records its GPUs into a
    profile; returns what the program prints (the profile, without ``--out``)."""
    return _program_output(["capture", *map(str, args)])


_in_process: Dict[str, object] = {}


def use_in_process(
    profile: str = DEFAULT_PROFILE,
    session: Optional[str] = None,
    driver: Optional[str] = None,
    *,
    plain: bool = False,
    live_pids: bool = False,
):
    """Points this process's pynvml at the mock and sets its variables in ``os.environ``;
    returns the loaded library (a ``ctypes.CDLL``).

    Call it before pynvml's first ``nvmlInit``: pynvml keeps the library it loads in a module
    global (``pynvml.nvmlLib``), which this sets. The profile is read again at each first
    ``nvmlInit`` (after every ``nvmlShutdown``), so another call with another profile of the
    same driver applies from the next ``nvmlInit``; another library (another driver, or plain
    after a driver) and another session need a new process, since a process loads its library
    once and the mock joins one session per process.
    """
    variables = _variables(profile, session, driver, plain, live_pids)
    libdir = variables.pop("LD_LIBRARY_PATH").split(os.pathsep)[0]
    path = os.path.join(libdir, LIBRARY)
    loaded = _in_process.get("library")
    if loaded is not None and loaded != path:
        raise MockError(
            f"this process runs the mock's library {loaded} already, and {path} was asked for: "
            "another driver's library needs a new process (run it with nvmlkit_mock.environ())"
        )
    joined = _in_process.get("session")
    if joined is not None and session is not None and joined != session:
        raise MockError(f"this process joined session {joined!r} already: session {session!r} needs a new process")
    os.environ.update(variables)
    if not live_pids:
        os.environ.pop("NVML_MOCK_LIVE_PIDS", None)
    if session is None:
        os.environ.pop("NVML_MOCK_SESSION", None)
    if loaded is None:
        pynvml = sys.modules.get("pynvml")
        if pynvml is None:
            try:
                import pynvml  # noqa: F811 (the module, imported where it is installed)
            except ImportError:
                pynvml = None
        if pynvml is not None and getattr(pynvml, "nvmlLib", None) is not None:
            raise MockError(
                "pynvml has loaded its NVML library already (nvmlInit ran): call "
                "nvmlkit_mock.use_in_process() before the first nvmlInit, or use a new process"
            )
        lib = ctypes.CDLL(path)
        if pynvml is not None:
            pynvml.nvmlLib = lib
        _in_process["library"] = path
        _in_process["cdll"] = lib
    if session is not None:
        _in_process["session"] = session
    return _in_process["cdll"]
