#!/usr/bin/env bash
# nvmlkit's costs, measured against the mock, each beside a reference measured in the same run:
#   1. Device::power_usage() against the raw function pointer, and Nvml::init() + drop against
#      the same steps through the raw layer (crates/nvml/examples/bench/);
#   2. the same getter and init + drop against nvml-wrapper 0.13, in one process
#      (benches/nvml-wrapper-compare, a crate outside the workspace);
#   3. a clean release build of nvmlkit against one of a crate that depends only on
#      nvml-wrapper 0.13, each in a fresh target directory, with -j2, one after the other.
# Prints a table; ratios are nvmlkit / reference (below 1: nvmlkit is faster).
#
#   benches/compare.sh            # BUILD_RUNS=N repeats the clean builds (alternating; the
#                                 # fastest of each is shown); SKIP_BUILDS=1 leaves them out
# Needs network access to crates.io (or a warm cargo cache) for nvml-wrapper.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
build_runs=${BUILD_RUNS:-1}
export CARGO_TERM_COLOR=never

log() { printf '%s\n' "$*" >&2; }
# `value NAME FILE`: the number on the line of FILE that starts with NAME.
value() { awk -v k="$1" '$1 == k { print $2; found = 1 } END { exit !found }' "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
now() { date +%s.%N; }
since() { awk -v t0="$1" -v t1="$(now)" 'BEGIN { printf "%.1f", t1 - t0 }'; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

log "== building the bench example and the mock (release)"
CARGO_TARGET_DIR=$target cargo build -q -j2 --release -p nvmlkit --example bench
mock=$target/release/deps/libnvml_mock.so
log "== bench: nvmlkit against the raw layer"
NVML_LIBRARY_PATH=$mock "$target/release/examples/bench" | tee "$scratch/ours" >&2

log "== building benches/nvml-wrapper-compare (release)"
(cd benches/nvml-wrapper-compare && CARGO_TARGET_DIR=$target/nvml-wrapper-compare cargo build -q -j2 --release)
log "== nvmlkit against nvml-wrapper 0.13"
NVML_LIBRARY_PATH=$mock "$target/nvml-wrapper-compare/release/nvml-wrapper-compare" | tee "$scratch/theirs" >&2

rows=()
row() { rows+=("$(printf '%-44s %14s %14s %8s' "$@")"); }
row "getter Device::power_usage(), vs raw ptr" \
  "$(value getter.safe "$scratch/ours") ns" "$(value getter.raw "$scratch/ours") ns" "$(value getter.ratio "$scratch/ours")"
row "getter Device::power_usage(), vs nvml-wrapper" \
  "$(value getter.nvmlkit "$scratch/theirs") ns" "$(value getter.nvml_wrapper "$scratch/theirs") ns" "$(value getter.ratio "$scratch/theirs")"
us() { awk -v n="$1" 'BEGIN { printf "%.1f us", n / 1000 }'; }
row "Nvml init + drop, vs raw layer" \
  "$(us "$(value init_drop.safe "$scratch/ours")")" "$(us "$(value init_drop.raw "$scratch/ours")")" "$(value init_drop.ratio "$scratch/ours")"
row "Nvml init + drop, vs nvml-wrapper" \
  "$(us "$(value init_drop.nvmlkit "$scratch/theirs")")" "$(us "$(value init_drop.nvml_wrapper "$scratch/theirs")")" "$(value init_drop.ratio "$scratch/theirs")"

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
  (cd "$scratch/wrapper-only" && cargo fetch -q)
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
  row "clean release build, -j2 (vs nvml-wrapper)" "$best_ours s" "$best_theirs s" "$(ratio "$best_ours" "$best_theirs")"
fi

echo
printf '%-44s %14s %14s %8s\n' "measure (against the mock)" "nvmlkit" "reference" "ratio"
printf '%s\n' "${rows[@]}"
echo
echo "ratio = nvmlkit / reference; getters and init are medians of 9 runs, alternating in one process."
echo "Environment: $(rustc --version), $(nproc) cores, $(uname -sm)."
