#!/usr/bin/env bash
# nvmlkit's costs, each beside a reference measured in the same run, against a library whose
# functions return at once (crates/nvml/examples/bench/instant.c, compiled here with `cc`), so
# that the figures are the bindings' own cost and not the library's work:
#   1. Device::power_usage() against the raw function pointer (resolved once through
#      nvml-sys) and against the raw accessor called at each call, and Nvml::init() + drop
#      against the same steps through the raw layer (crates/nvml/examples/bench/);
#   2. the same getter against the raw pointer and nvml-wrapper 0.13's Device::power_usage(),
#      all three in the same rounds of one process, and init + drop against nvml-wrapper's
#      (benches/nvml-wrapper-compare, a crate outside the workspace);
#   3. a clean release build of nvmlkit against one of a crate that depends only on
#      nvml-wrapper 0.13, each in a fresh target directory, with -j2, one after the other.
# Prints a table; ratios are nvmlkit / reference (below 1: nvmlkit is faster).
#
#   benches/compare.sh    # REPEATS=N runs each program N times (default 3; the table shows
#                         # the median of the N figures, each a median of BENCH_RUNS rounds);
#                         # NVML_LIBRARY_PATH=... measures another library (the mock);
#                         # BUILD_RUNS=N repeats the clean builds (alternating; the fastest of
#                         # each is shown); SKIP_BUILDS=1 leaves them out
# Needs a C compiler, and crates.io (or a warm cargo cache) for nvml-wrapper: when
# nvml-wrapper cannot be built, its rows are left out and the script says so.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
build_runs=${BUILD_RUNS:-1}
repeats=${REPEATS:-3}
export CARGO_TERM_COLOR=never

log() { printf '%s\n' "$*" >&2; }
# `values NAME FILE`: the numbers on the lines of FILE that start with NAME, one a line.
values() { awk -v k="$1" '$1 == k { print $2; found = 1 } END { exit !found }' "$2"; }
# `value NAME FILE`: the median of those numbers (FILE holds REPEATS runs of a program).
value() { values "$1" "$2" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
now() { date +%s.%N; }
since() { awk -v t0="$1" -v t1="$(now)" 'BEGIN { printf "%.1f", t1 - t0 }'; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ -n "${NVML_LIBRARY_PATH:-}" ]; then
  lib=$NVML_LIBRARY_PATH
  against="$lib"
else
  log "== compiling the instant library (crates/nvml/examples/bench/instant.c)"
  lib=$scratch/libnvidia-ml.so.1
  "${CC:-cc}" -O2 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$lib" crates/nvml/examples/bench/instant.c
  against="a library whose functions return at once"
fi

log "== building the bench example (release)"
CARGO_TARGET_DIR=$target cargo build -q -j2 --release -p nvmlkit --example bench

log "== building benches/nvml-wrapper-compare (release)"
wrapper=1
if ! (cd benches/nvml-wrapper-compare && CARGO_TARGET_DIR=$target/nvml-wrapper-compare cargo build -q -j2 --release); then
  wrapper=0
  log "!! nvml-wrapper-compare could not be built (is crates.io, or a cargo cache holding"
  log "!! nvml-wrapper 0.13, reachable?): its rows are left out"
fi

: >"$scratch/ours" && : >"$scratch/theirs"
for i in $(seq "$repeats"); do
  log "== run $i/$repeats: nvmlkit against the raw layer (examples/bench)"
  NVML_LIBRARY_PATH=$lib "$target/release/examples/bench" | tee -a "$scratch/ours" >&2
  if [ $wrapper = 1 ]; then
    log "== run $i/$repeats: nvmlkit, the raw pointer and nvml-wrapper 0.13 (nvml-wrapper-compare)"
    NVML_LIBRARY_PATH=$lib "$target/nvml-wrapper-compare/release/nvml-wrapper-compare" | tee -a "$scratch/theirs" >&2
  fi
done

rows=()
row() { rows+=("$(printf '%-50s %11s %11s %7s %10s' "$@")"); }
ns() { printf '%s ns' "$1"; }
us() { awk -v n="$1" 'BEGIN { printf "%.1f us", n / 1000 }'; }
g=getter
row "getter Device::power_usage(), vs raw ptr" \
  "$(ns "$(value $g.nvmlkit "$scratch/ours")")" "$(ns "$(value $g.raw "$scratch/ours")")" \
  "$(value $g.nvmlkit/raw "$scratch/ours")" "$(value $g.nvmlkit-raw "$scratch/ours") ns"
row "getter raw accessor at each call, vs raw ptr" \
  "$(ns "$(value $g.lookup "$scratch/ours")")" "$(ns "$(value $g.raw "$scratch/ours")")" \
  "$(value $g.lookup/raw "$scratch/ours")" "$(value $g.lookup-raw "$scratch/ours") ns"
if [ $wrapper = 1 ]; then
  row "getter Device::power_usage(), vs raw ptr (*)" \
    "$(ns "$(value $g.nvmlkit "$scratch/theirs")")" "$(ns "$(value $g.raw "$scratch/theirs")")" \
    "$(value $g.nvmlkit/raw "$scratch/theirs")" "$(value $g.nvmlkit-raw "$scratch/theirs") ns"
  row "getter Device::power_usage(), vs nvml-wrapper (*)" \
    "$(ns "$(value $g.nvmlkit "$scratch/theirs")")" "$(ns "$(value $g.nvml_wrapper "$scratch/theirs")")" \
    "$(value $g.nvmlkit/nvml_wrapper "$scratch/theirs")" "$(value $g.nvmlkit-nvml_wrapper "$scratch/theirs") ns"
  row "getter nvml-wrapper, vs raw ptr (*)" \
    "$(ns "$(value $g.nvml_wrapper "$scratch/theirs")")" "$(ns "$(value $g.raw "$scratch/theirs")")" \
    "$(value $g.nvml_wrapper/raw "$scratch/theirs")" "$(value $g.nvml_wrapper-raw "$scratch/theirs") ns"
fi
row "Nvml init + drop, vs raw layer" \
  "$(us "$(value init_drop.nvmlkit "$scratch/ours")")" "$(us "$(value init_drop.raw "$scratch/ours")")" \
  "$(value init_drop.nvmlkit/raw "$scratch/ours")" ""
if [ $wrapper = 1 ]; then
  row "Nvml init + drop, vs nvml-wrapper" \
    "$(us "$(value init_drop.nvmlkit "$scratch/theirs")")" "$(us "$(value init_drop.nvml_wrapper "$scratch/theirs")")" \
    "$(value init_drop.nvmlkit/nvml_wrapper "$scratch/theirs")" ""
fi

if [ "${SKIP_BUILDS:-0}" != 1 ]; then
  # A crate that depends only on nvml-wrapper, and every source both builds need, fetched
  # before the clock starts; the timed builds are --offline.
  mkdir -p "$scratch/wrapper-only/src"
  cat >"$scratch/wrapper-only/Cargo.toml" <<'EOF'
[package]
name = "wrapper-only"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
nvml-wrapper = "0.13"
EOF
  echo 'pub use nvml_wrapper;' >"$scratch/wrapper-only/src/lib.rs"
  if ! (cd "$scratch/wrapper-only" && cargo fetch -q); then
    log "!! nvml-wrapper 0.13 cannot be fetched: the clean builds are left out"
    SKIP_BUILDS=1
  fi
fi
if [ "${SKIP_BUILDS:-0}" != 1 ]; then
  cargo fetch -q
  best_ours='' best_theirs=''
  for i in $(seq "$build_runs"); do
    log "== clean release build $i/$build_runs: nvmlkit (-j2)"
    rm -rf "$scratch/t-ours" && t0=$(now)
    CARGO_TARGET_DIR=$scratch/t-ours cargo build -q --offline -j2 --release -p nvmlkit
    t=$(since "$t0") && log "   $t s" && best_ours=$(awk -v a="$t" -v b="${best_ours:-$t}" 'BEGIN { print (a < b ? a : b) }')
    log "== clean release build $i/$build_runs: a crate depending only on nvml-wrapper 0.13 (-j2)"
    rm -rf "$scratch/t-theirs" && t0=$(now)
    (cd "$scratch/wrapper-only" && CARGO_TARGET_DIR=$scratch/t-theirs cargo build -q --offline -j2 --release)
    t=$(since "$t0") && log "   $t s" && best_theirs=$(awk -v a="$t" -v b="${best_theirs:-$t}" 'BEGIN { print (a < b ? a : b) }')
  done
  row "clean release build, -j2 (vs nvml-wrapper)" "$best_ours s" "$best_theirs s" "$(ratio "$best_ours" "$best_theirs")" ""
fi

echo
echo "Against $against:"
printf '%-50s %11s %11s %7s %10s\n' "measure" "nvmlkit" "reference" "ratio" "difference"
printf '%s\n' "${rows[@]}"
echo
echo "ratio and difference = nvmlkit against the reference, medians of per-round ratios and"
echo "differences; each figure is the median of $repeats runs of the program, each the median"
echo "of ${BENCH_RUNS:-51} alternating rounds. (*): the three measured in the same rounds of one process."
[ $wrapper = 1 ] || echo "nvml-wrapper could not be built: its rows are missing."
echo "Environment: $(rustc --version), $(nproc) cores, $(uname -sm)."
