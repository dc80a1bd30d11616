#!/bin/sh
# The differential test against this machine's NVIDIA driver, from a test binary built
# elsewhere: pynvml and nvmlkit make the same getter calls (nothing that changes state) on the
# machine's own GPUs, and a report says where they differ (differential/real.rs: how values that
# change between calls are told apart from misreadings).
#
#   real_driver.sh bundle TEST_BINARY DIR
#       Where cargo is (a checkout of this repository): puts into DIR what a machine without
#       cargo needs: the test binary (stripped, as DIR/differential), pynvml_dump.py, this
#       script, and the wheel of nvidia-ml-py the known mismatches were written against
#       (13.615.71; fetched with pip unless NVML_DIFF_WHEEL names it, left out if neither works).
#       TEST_BINARY: the path `cargo test -p nvmlkit --test differential --no-run` prints.
#
#   real_driver.sh run [TEST_BINARY [LIBRARY]]
#       On the machine with the GPUs. TEST_BINARY defaults to DIR/differential beside this
#       script; LIBRARY to the libnvidia-ml.so.1 the dynamic loader finds. A wheel of
#       nvidia-ml-py beside this script is imported in place of the installed one. The report
#       goes to $NVML_DIFF_REPORT_DIR, else $OUT, else ./differential-real, as at most eight
#       files: summary.txt, report.txt, report.json, machine.txt, test.log and raw.tar.gz (both
#       pynvml dumps, the calls nvmlkit replayed, its answers and logs).
#
# Exit status 0 when the comparison ran, whatever it found; otherwise the setup broke (no
# driver, no pynvml, a test binary that does not run, a library nvmlkit cannot initialise).
set -u
here=$(cd "$(dirname "$0")" && pwd)
wheel_version=13.615.71

case "${1:-}" in
bundle)
    bin=${2:?usage: real_driver.sh bundle TEST_BINARY DIR}
    dir=${3:?usage: real_driver.sh bundle TEST_BINARY DIR}
    mkdir -p "$dir" || exit 2
    if command -v strip >/dev/null 2>&1; then
        strip -o "$dir/differential" "$bin" || exit 2
    else
        cp "$bin" "$dir/differential" || exit 2
    fi
    chmod +x "$dir/differential"
    if [ "$(cd "$dir" && pwd)" != "$here" ]; then
        cp "$here/pynvml_dump.py" "$here/real_driver.sh" "$dir/" || exit 2
    fi
    if [ -n "${NVML_DIFF_WHEEL:-}" ]; then
        cp "$NVML_DIFF_WHEEL" "$dir/" || exit 2
    elif ! ls "$dir"/nvidia_ml_py-*.whl >/dev/null 2>&1; then
        python3 -m pip download -q --no-deps "nvidia-ml-py==$wheel_version" -d "$dir" \
            || echo "warning: no nvidia-ml-py wheel in $dir: the machine's own pynvml will be used" >&2
    fi
    du -sh "$dir"
    ls -l "$dir"
    echo "on the machine: $dir/real_driver.sh run"
    exit 0
    ;;
run)
    shift
    ;;
*)
    echo "usage: real_driver.sh bundle TEST_BINARY DIR | real_driver.sh run [TEST_BINARY [LIBRARY]]" >&2
    exit 2
    ;;
esac

bin=${1:-$here/differential}
lib=${2:-}
python=${NVML_DIFF_PYTHON:-python3}
out=${NVML_DIFF_REPORT_DIR:-${OUT:-./differential-real}}
[ -x "$bin" ] || { echo "setup: $bin is not an executable test binary" >&2; exit 2; }
mkdir -p "$out" || exit 2

# The wheel beside this script, imported from the zip itself (pynvml is pure Python).
for w in "$here"/nvidia_ml_py-*.whl; do
    [ -f "$w" ] && export PYTHONPATH="$w${PYTHONPATH:+:$PYTHONPATH}"
done
"$python" -c 'import pynvml' || { echo "setup: $python cannot import pynvml (nvidia-ml-py)" >&2; exit 2; }

# The driver's library: where the dynamic loader finds it, as pynvml would.
if [ -z "$lib" ]; then
    lib=$("$python" -c '
import ctypes
ctypes.CDLL("libnvidia-ml.so.1")
for line in open("/proc/self/maps"):
    if "libnvidia-ml.so" in line:
        print(line.split()[-1]); break
' 2>/dev/null)
fi
[ -n "$lib" ] && [ -f "$lib" ] || { echo "setup: no libnvidia-ml.so.1 found (pass its path)" >&2; exit 2; }

work=$(mktemp -d) || exit 2
{
    date -u
    uname -a
    echo "library: $lib"
    "$python" -c 'import sys, pynvml; print("python", sys.version.split()[0], "pynvml from", pynvml.__file__)'
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,pstate,temperature.gpu,power.draw,clocks.sm,mig.mode.current,persistence_mode --format=csv
} >"$out/machine.txt" 2>&1

start=$(date +%s)
NVML_DIFF_REAL_LIBRARY=$lib NVML_DIFF_REPORT_DIR=$work NVML_DIFF_SCRIPT=$here/pynvml_dump.py NVML_DIFF_PYTHON=$python \
    "$bin" against_pynvml_on_real_driver --exact --include-ignored --nocapture --test-threads=1 >"$out/test.log" 2>&1
rc=$?
echo "($(($(date +%s) - start)) s)" >>"$out/test.log"
for f in summary.txt report.txt report.json; do
    [ -f "$work/$f" ] && cp "$work/$f" "$out/"
done
(cd "$work" && tar czf "$out/raw.tar.gz" --exclude=summary.txt --exclude=report.txt --exclude=report.json .) 2>/dev/null \
    || "$python" -c 'import shutil, sys; shutil.make_archive(sys.argv[1], "gztar", sys.argv[2])' "$out/raw" "$work"
rm -rf "$work"

if [ "$rc" -ne 0 ] || ! grep -q "1 passed" "$out/test.log"; then
    tail -n 40 "$out/test.log"
    echo "setup broke (exit $rc): see $out/test.log" >&2
    exit 1
fi
cat "$out/summary.txt"
grep '^MISMATCH' "$out/report.txt" | cut -c1-400 | head -n 40
echo "report: $out/report.txt (every difference, live ones with their reason), $out/report.json"
exit 0
