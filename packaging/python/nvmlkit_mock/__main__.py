"""``python -m nvmlkit_mock``: run a command on the mock, and the ``nvml-mock`` program's
subcommands.

    python -m nvmlkit_mock run --profile a100 [--driver V | --plain] [--session S] [--live-pids] -- CMD ARGS...
    python -m nvmlkit_mock env --profile a100 [...]     # the variables, as shell exports
    python -m nvmlkit_mock lib-dir [--driver V | --profile P]
    python -m nvmlkit_mock profiles                     # the built-in profiles and their drivers
    python -m nvmlkit_mock ctl [--session S] COMMAND... # nvml-mock ctl
    python -m nvmlkit_mock capture [...]                # nvml-mock capture (on a GPU machine)
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import List, Optional

import nvmlkit_mock as mock

PROGRAM_COMMANDS = ("ctl", "capture", "lib")


def _mock_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default=mock.DEFAULT_PROFILE, help="a built-in profile or a YAML file (default: %(default)s)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--driver", help="the library of this driver instead of the profile's own")
    which.add_argument("--plain", action="store_true", help="the plain mock: every function, whatever the profile's driver")
    p.add_argument("--session", help="join this session of `ctl` (NVML_MOCK_SESSION)")
    p.add_argument("--live-pids", action="store_true", help="the profile's processes get live process ids")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m nvmlkit_mock", description="A mock NVML (libnvidia-ml.so.1) for tests without a GPU.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run a command on the mock and pass its exit status through")
    _mock_options(run)
    run.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the command to run")
    env = sub.add_parser("env", help="print the mock's variables as shell exports")
    _mock_options(env)
    lib = sub.add_parser("lib-dir", help="print a directory holding libnvidia-ml.so.1")
    which = lib.add_mutually_exclusive_group()
    which.add_argument("--driver")
    which.add_argument("--profile")
    sub.add_parser("profiles", help="list the built-in profiles with the driver each runs")
    for name in PROGRAM_COMMANDS:
        sub.add_parser(name, help=f"nvml-mock {name} (its --help lists the options)", add_help=False)
    return p


def _variables(a: argparse.Namespace) -> dict:
    env = mock.environ(a.profile, a.session, a.driver, plain=a.plain, live_pids=a.live_pids)
    return env


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] and args[0] in PROGRAM_COMMANDS:
        return _exec(mock.program(), [mock.program(), *args], None)
    a = _parser().parse_args(args)
    try:
        if a.command == "run":
            command = a.argv[1:] if a.argv[:1] == ["--"] else a.argv
            if not command:
                print("python -m nvmlkit_mock run: give the command after --, e.g. run --profile a100 -- gpustat", file=sys.stderr)
                return 2
            env = _variables(a)
            return _exec(command[0], command, env)
        if a.command == "env":
            env = _variables(a)
            for key in ("LD_LIBRARY_PATH", "NVML_MOCK_PROFILE", "NVML_MOCK_SESSION", "NVML_MOCK_LIVE_PIDS", "PATH"):
                if key in env:
                    print(f"export {key}={shlex.quote(env[key])}")
            return 0
        if a.command == "lib-dir":
            print(mock.library_dir(a.driver, profile=a.profile))
            return 0
        if a.command == "profiles":
            for name, driver in mock.profiles().items():
                print(f"{name}\t{driver or '-'}")
            return 0
    except mock.MockError as e:
        print(f"python -m nvmlkit_mock {a.command}: {e}", file=sys.stderr)
        return 2
    _parser().print_help(sys.stderr)
    return 2


def _exec(file: str, argv: List[str], env: Optional[dict]) -> int:
    """Replaces this process with the command, so its exit status (a signal's too) is the
    command's; returns only when the command cannot be run."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if env is None:
            os.execvp(file, argv)
        else:
            os.execvpe(file, argv, env)
    except OSError as e:
        print(f"python -m nvmlkit_mock: cannot run {file}: {e.strerror}", file=sys.stderr)
        return 127
    return 127  # not reached: exec returns only by raising


def nvml_mock() -> int:
    """The ``nvml-mock`` command the package installs: the program itself."""
    return _exec(mock.program(), [mock.program(), *sys.argv[1:]], None)


if __name__ == "__main__":
    sys.exit(main())
