#!/bin/bash
# Builds, on this machine, the bundle that gpu-run.sh runs on a GPU machine (which needs no
# Rust): the mock and `nvml-mock` (release), a libnvidia-ml.so.1 of driver 580.159.04, NVIDIA's
# Python binding as a wheel, the differential test's pynvml dump, nvml-wrapper 0.13's own test
# suite (its lib tests, built from the crates.io package), the spy library for nvidia-smi, and
# the scripts. Usage: prepare.sh BUNDLE_DIR [DRIVER] (default driver 580.159.04).
set -euo pipefail
B=${1:?usage: prepare.sh BUNDLE_DIR [DRIVER]}
DRIVER=${2:-580.159.04}
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
HERE=$ROOT/crates/nvml-mock/tests
mkdir -p "$B"
cd "$ROOT"
cargo build --release -p nvmlkit-mock
cp target/release/nvml-mock target/release/libnvml_mock.so "$B/"
strip "$B/nvml-mock"
rm -rf "$B/lib"
target/release/nvml-mock lib --driver "$DRIVER" --out "$B/lib" --mock target/release/libnvml_mock.so
SPY_C=$(mktemp --suffix=.c)
python3 "$HERE/nvidia-smi/spy/make_spy.py" "$B/lib/forwarder.c" "$SPY_C"
mkdir -p "$B/spy"
cc -shared -fPIC -O1 -o "$B/spy/libnvidia-ml.so.1" "$SPY_C" -ldl
python3 -m pip download -q --no-deps -d "$B" nvidia-ml-py==13.615.71
cp crates/nvml/tests/differential/pynvml_dump.py "$HERE/nvidia-smi/verdict.py" "$HERE/real/gpu-run.sh" "$B/"
cp "$HERE"/real/questions/*.py "$B/"
# nvml-wrapper 0.13's test suite, built as a test binary.
if [ ! -x "$B/nvml_wrapper_tests" ]; then
  W=$(mktemp -d)
  curl -sSfL https://crates.io/api/v1/crates/nvml-wrapper/0.13.0/download | tar xz -C "$W"
  (cd "$W/nvml-wrapper-0.13.0" && cargo test --release --lib --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("profile", {}).get("test") and m.get("executable"): print(m["executable"])' > "$W/exe")
  cp "$(cat "$W/exe")" "$B/nvml_wrapper_tests"
  strip "$B/nvml_wrapper_tests"
fi
du -sh "$B"
