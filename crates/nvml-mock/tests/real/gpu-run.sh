#!/bin/bash
# One run on a GPU machine, from the bundle prepare.sh built (nothing is built here; only
# getters are called: the GPU's state does not change):
#   1. `nvml-mock capture` of the machine (this GPU's profile);
#   2. the questions script named by $QUESTIONS, if any (plain ctypes calls);
#   3. NVIDIA's Python binding (the differential test's dump) and nvml-wrapper 0.13's suite,
#      setters skipped, against the real driver and against the mock loaded with the capture;
#   4. every nvidia-smi view on the real driver (through the spy library when SPY=1: each
#      internal slot's arguments and memory before and after the driver's answer), and on the
#      mock loaded with the capture and with each extra profile NAME=FILE|BUILTIN, with the
#      call log and the verdict (verdict.py) for each.
# Usage: gpu-run.sh NAME [PROFILE_NAME=PROFILE ...]; the outputs go to $OUT/NAME.tgz (or /tmp).
set -u
D=$(cd "$(dirname "$0")" && pwd)
NAME=${1:?usage: gpu-run.sh NAME [PROFILE_NAME=PROFILE ...]}; shift
W=/tmp/$NAME; rm -rf "$W"; mkdir -p "$W/real" "$W/mock"
export PYTHONPATH=$(ls "$D"/nvidia_ml_py-*.whl)
START=$(date +%s)
step() { echo "== $(( $(date +%s) - START ))s: $*"; }
{
step machine
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,pstate,mig.mode.current --format=csv
REAL=$(python3 -c '
import ctypes
ctypes.CDLL("libnvidia-ml.so.1")
for line in open("/proc/self/maps"):
    if "libnvidia-ml.so" in line: print(line.split()[-1]); break')
echo "real library: $REAL"
step capture
timeout 150 "$D/nvml-mock" capture --library "$REAL" --mock "$D/libnvml_mock.so" --name "$NAME" --out "$W/capture.yaml" 2>"$W/capture.log"; echo "capture rc=$?"
cat "$W/capture.log"
if [ -n "${QUESTIONS:-}" ]; then
  step "questions ($QUESTIONS)"
  timeout 100 python3 "$D/$QUESTIONS" "$REAL" > "$W/questions.txt" 2>&1; echo "rc=$?"
fi
step "NVIDIA's Python binding"
timeout 100 python3 "$D/pynvml_dump.py" "$REAL" --getters-only > "$W/pynvml-real.json" 2>"$W/pynvml-real.err"; echo "real rc=$?"
NVML_MOCK_PROFILE=$W/capture.yaml timeout 100 python3 "$D/pynvml_dump.py" "$D/lib/libnvidia-ml.so.1" --getters-only > "$W/pynvml-mock.json" 2>"$W/pynvml-mock.err"; echo "mock rc=$?"
step "nvml-wrapper's suite"
SKIP="--skip set_ --skip clear_ --skip reset_ --skip discover_gpus"
timeout 120 "$D/nvml_wrapper_tests" $SKIP --test-threads=1 > "$W/wrapper-real.txt" 2>&1; echo "real rc=$?"; tail -2 "$W/wrapper-real.txt"
LD_LIBRARY_PATH=$D/lib NVML_MOCK_PROFILE=$W/capture.yaml timeout 120 "$D/nvml_wrapper_tests" $SKIP --test-threads=1 > "$W/wrapper-mock.txt" 2>&1; echo "mock rc=$?"; tail -2 "$W/wrapper-mock.txt"
step nvidia-smi
views=("default:" "L:-L" "q:-q" "qx:-q -x" "query:--query-gpu=index,name,uuid,driver_version,memory.total,memory.used,temperature.gpu,power.draw,utilization.gpu,clocks.sm,pstate,pcie.link.gen.max,pcie.link.gen.hostmax --format=csv" "apps:--query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv" "dmon:dmon -c 1" "pmon:pmon -c 1" "topo:topo -m" "nvlink:nvlink -s" "mig:mig -lgi")
for v in "${views[@]}"; do
  name=${v%%:*}; args=${v#*:}
  if [ "${SPY:-0}" = 1 ]; then
    LD_LIBRARY_PATH=$D/spy NVML_SPY_REAL=$REAL NVML_SPY_LOG=$W/real/$name.spy timeout 30 nvidia-smi $args > "$W/real/$name.txt" 2>&1
  else
    timeout 30 nvidia-smi $args > "$W/real/$name.txt" 2>&1
  fi
  echo "rc=$?" >> "$W/real/$name.txt"
done
for prof in "$NAME=$W/capture.yaml" "$@"; do
  pn=${prof%%=*}; pf=${prof#*=}; mkdir -p "$W/mock/$pn"
  if [ ! -f "$pf" ] && [ -f "$D/$pf" ]; then pf=$D/$pf; fi
  for v in "${views[@]}"; do
    name=${v%%:*}; args=${v#*:}
    LD_LIBRARY_PATH=$D/lib NVML_MOCK_PROFILE=$pf NVML_MOCK_LIVE_PIDS=1 NVML_MOCK_LOG=$W/mock/$pn/$name.log timeout 30 nvidia-smi $args > "$W/mock/$pn/$name.txt" 2>&1
    echo "rc=$?" >> "$W/mock/$pn/$name.txt"
  done
  LD_LIBRARY_PATH=$D/lib NVML_MOCK_PROFILE=$pf NVML_MOCK_LIVE_PIDS=1 timeout 60 python3 "$D/verdict.py" "$W/mock/$pn" > "$W/mock/$pn/verdict.txt" 2>&1
  echo "verdict $pn: rc=$?, $(tail -1 "$W/mock/$pn/verdict.txt")"
done
step done
} > "$W/run.log" 2>&1
cd /tmp && tar czf "${OUT:-/tmp}/$NAME.tgz" "$NAME"
tail -40 "$W/run.log"
