"""The sample project's tests, on the nvml_mock fixture of nvmlkit-mock's pytest plugin."""

import json
import sys

import pytest

import nvmlkit_mock
from gpu_alerts import alert, hot_gpus


def test_a_hot_gpu_raises_the_alert(nvml_mock):
    # The profile is the ini option's, a100: eight A100s, none hot.
    nvml_mock.use_in_process()
    assert hot_gpus() == []
    assert alert() is None
    nvml_mock.ctl("set", 3, "temperature.gpu", 95)  # mid-test: GPU 3 runs hot from its next call
    assert hot_gpus() == [3]
    assert alert() == "ALERT: GPU 3 at 90 C or more"


def test_the_next_test_sees_none_of_that(nvml_mock):
    nvml_mock.use_in_process()
    assert hot_gpus() == []


@pytest.mark.nvml_mock(profile="a100")
def test_subprocesses_share_the_tests_session(nvml_mock):
    out = nvml_mock.run(["gpustat", "--json"])
    assert out.returncode == 0, out.stderr
    assert [g["temperature.gpu"] >= 90 for g in json.loads(out.stdout)["gpus"]] == [False] * 8
    nvml_mock.ctl("set", 5, "temperature.gpu", 97)
    out = nvml_mock.run(["gpustat", "--json"])
    temps = [g["temperature.gpu"] for g in json.loads(out.stdout)["gpus"]]
    assert temps[5] == 97 and max(temps[:5] + temps[6:]) < 90, temps


@pytest.mark.parametrize("nvml_mock, gpus", [("a100", 8), ("t4", 8), ({"profile": "h200"}, 1)], indirect=["nvml_mock"])
def test_every_profile_in_a_subprocess(nvml_mock, gpus):
    out = nvml_mock.run(["gpustat", "--json"])
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["gpus"]) == gpus


@pytest.mark.parametrize("value", [61, 62, 63, 64])
def test_each_test_has_its_own_session(nvml_mock, value):
    # Under pytest -n 2 these run at once on two workers: each sees its own change only.
    nvml_mock.ctl("set", 0, "temperature.gpu", value)
    out = nvml_mock.run(["gpustat", "--json"])
    assert json.loads(out.stdout)["gpus"][0]["temperature.gpu"] == value
    assert nvml_mock.session not in {"", None}


SYMBOL = "import pynvml; pynvml.nvmlInit(); print(hasattr(pynvml.nvmlLib, 'nvmlDeviceGetTemperatureV'))"


@pytest.mark.nvml_mock(profile="a100-r525")
def test_an_old_driver_lacks_newer_functions(nvml_mock):
    out = nvml_mock.run([sys.executable, "-c", SYMBOL])
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.nvml_mock(profile="a100-r525", plain=True)
def test_the_plain_library_has_every_function(nvml_mock):
    out = nvml_mock.run([sys.executable, "-c", SYMBOL])
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.nvml_mock(profile="a100", driver="525.147.05")
def test_another_drivers_library_refuses_the_profile(nvml_mock):
    out = nvml_mock.run([sys.executable, "-c", "import pynvml; pynvml.nvmlInit()"])
    assert out.returncode != 0 and "NVML_ERROR_LIB_RM_VERSION_MISMATCH" in out.stderr, out.stderr
    with pytest.raises(nvmlkit_mock.MockError, match="could not be held open"):
        nvml_mock.ctl("show")


def test_a_bad_ctl_command_is_an_error(nvml_mock):
    with pytest.raises(nvmlkit_mock.MockError, match="GPU"):
        nvml_mock.ctl("set", "x", "temperature.gpu", 95)
