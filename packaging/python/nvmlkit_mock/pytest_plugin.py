"""The pytest plugin of nvmlkit-mock (entry point ``pytest11``): the ``nvml_mock`` fixture.

Each test gets a mock of its own: its profile (the ``nvml_mock`` marker, an indirect
parameter, or the ``nvml_mock_profile`` ini option; default ``h100``), its own session of
``nvml-mock ctl`` (so one test's changes never reach another, pytest-xdist workers included),
``.environ`` for subprocesses, and ``.ctl(...)``::

    @pytest.mark.nvml_mock(profile="a100")
    def test_hot_gpu(nvml_mock):
        nvml_mock.ctl("set", "3", "temperature.gpu", "95")
        out = subprocess.run(["gpustat", "--json"], env=nvml_mock.environ, capture_output=True)

    @pytest.mark.parametrize("nvml_mock", ["a100", "t4"], indirect=True)
    def test_every_profile(nvml_mock): ...

``nvml_mock.use_in_process()`` points the test process's own pynvml at the mock instead.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from typing import Any, Dict, List, Optional

import pytest

import nvmlkit_mock

_tests = itertools.count()


def pytest_addoption(parser) -> None:
    parser.addini("nvml_mock_profile", "the profile of the nvml_mock fixture where a test names none", default=nvmlkit_mock.DEFAULT_PROFILE)


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers",
        "nvml_mock(profile='h100', driver=None, plain=False, live_pids=False): the profile (and library) of the nvml_mock fixture",
    )


class NvmlMock(nvmlkit_mock.Session):
    """The mock of one test: a :class:`nvmlkit_mock.Session` of its own (``session``,
    ``environ`` for subprocesses, ``library_dir``, ``ctl(...)``), with ``profile``,
    ``run(...)`` and ``use_in_process()``."""

    def __init__(self, profile: str, session: str, driver: Optional[str], plain: bool, live_pids: bool, runtime_dir: str, monkeypatch) -> None:
        base = dict(os.environ)
        base["NVML_MOCK_RUNTIME_DIR"] = runtime_dir
        super().__init__(session, profile, driver, plain=plain, live_pids=live_pids, base=base)
        self.profile = profile
        self.session = session
        self.driver = driver
        self.plain = plain
        self.live_pids = live_pids
        self._monkeypatch = monkeypatch

    def run(self, args: List[str], **kwargs: Any) -> subprocess.CompletedProcess:
        """``subprocess.run`` on this test's mock (text output captured unless told otherwise)."""
        kwargs.setdefault("env", self.environ)
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        return subprocess.run(args, **kwargs)

    def use_in_process(self):
        """Points this process's pynvml at the mock, with this test's profile and session,
        until the test ends; returns the library (``ctypes.CDLL``).

        The mock joins one session per process, so the test process joins a session of its
        own (one per xdist worker), which this test's session process holds open and resets
        now and when the test ends: tests still see none of each other's changes, and
        ``ctl`` reaches it. The profile applies at pynvml's next first ``nvmlInit`` (gpustat
        and nvitop's queries init and shut down each time); a profile of another driver than
        the process loaded first needs ``plain=True`` or a subprocess.
        """
        shared = _process_session()
        if self.session != shared:
            self.close()
            self.name = self.session = shared
            self.environ = dict(self.environ, NVML_MOCK_SESSION=shared)
            self.start()
        for key in ("NVML_MOCK_PROFILE", "NVML_MOCK_SESSION", "NVML_MOCK_LIVE_PIDS", "NVML_MOCK_RUNTIME_DIR"):
            if key in os.environ:
                self._monkeypatch.setenv(key, os.environ[key])
            else:
                self._monkeypatch.delenv(key, raising=False)
        self._monkeypatch.setenv("NVML_MOCK_RUNTIME_DIR", self.environ["NVML_MOCK_RUNTIME_DIR"])
        lib = nvmlkit_mock.use_in_process(self.profile, shared, self.driver, plain=self.plain, live_pids=self.live_pids)
        self.ctl("reset")
        return lib


def _process_session() -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"pytest-{os.getpid()}-{worker}-process"


@pytest.fixture(scope="session")
def _nvml_mock_runtime_dir(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("nvml-mock-runtime")
    os.chmod(path, 0o700)
    return str(path)


@pytest.fixture
def nvml_mock(request, monkeypatch, _nvml_mock_runtime_dir) -> NvmlMock:
    """The mock of this test (see the module's documentation)."""
    options: Dict[str, Any] = {}
    marker = request.node.get_closest_marker("nvml_mock")
    if marker is not None:
        if marker.args:
            options["profile"] = marker.args[0]
        options.update(marker.kwargs)
    param = getattr(request, "param", None)
    if isinstance(param, str):
        options["profile"] = param
    elif isinstance(param, dict):
        options.update(param)
    elif param is not None:
        pytest.fail(f"nvml_mock's parameter is a profile name or a dict of options, not {param!r}", pytrace=False)
    unknown = set(options) - {"profile", "driver", "plain", "live_pids"}
    if unknown:
        pytest.fail(f"nvml_mock: unknown option(s) {', '.join(sorted(unknown))} (profile, driver, plain, live_pids)", pytrace=False)
    profile = options.get("profile") or request.config.getini("nvml_mock_profile")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    session = f"pytest-{os.getpid()}-{worker}-{next(_tests)}"
    try:
        mock = NvmlMock(
            profile,
            session,
            options.get("driver"),
            bool(options.get("plain", False)),
            bool(options.get("live_pids", False)),
            _nvml_mock_runtime_dir,
            monkeypatch,
        )
    except nvmlkit_mock.MockError as e:
        pytest.fail(f"nvml_mock: {e}", pytrace=False)
    try:
        mock.start()
    except nvmlkit_mock.MockError:
        # A profile its library refuses (another driver's, on purpose): the test's clients see
        # what a real driver answers; only ctl is unavailable, and says why (start_error).
        pass
    yield mock
    try:
        if mock.session == _process_session():
            mock.ctl("reset")
    finally:
        mock.close()
