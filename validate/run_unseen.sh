#!/usr/bin/env bash
# Runs the held-out kernel suite of validate/kernels/unseen/ on a GPU: kernel families
# never used to fit the timing model (validate/suite_unseen.csv: every row `holdout`),
# each with a conflict-free reference variant first:
#
#   hist         shared-memory histogram, atomicAdd with unused result: distinct bins,
#                2-, 8-, 32-way bank conflicts, all lanes on one bin
#   stencil      3x3 blur of a 32x32 tile, lanes down a column: row pitch 33, 32, 34, 36, 40
#   transpose64  64x64 u32 tile: XOR swizzle, pad 1, no pad (32-way), pad 2, pad 4
#   matvec       16-byte (vec4) row loads and stores: 1-, 2-, 4-way, 1-way with wider rows
#   reduce64     64-bit (vec2<u32>) tree reductions: sequential / interleaved, vec2 / two u32 arrays
#   copy         memory-bound copy through a vec4 tile (512 MiB of global traffic per run):
#                permuted reads 1-, 1-, 2-, 4-, 8-way
#
# Writes into the folder given as $1 (as validate/run_gpu_suite.sh does):
#   measure.csv        one row per variant: median / min / max / quartiles (us), adapter, driver
#   json/*.json        every repetition's time, the adapter's name, driver and limits
#   traces/*.csv       the captured shared-memory trace of each variant (small dispatch)
#   sim/*.txt          `banksim run --cycles` of each captured trace on the h100 preset
#   shader_stats.csv   the driver's statistics of each variant (`banksim shader-stats`)
#   system.txt         nvidia-smi, vulkaninfo --summary, banksim --version, this script's args
#
# Usage:  validate/run_unseen.sh OUTDIR
# Env:    BANKSIM   the banksim binary (default: target/release/banksim, then `banksim` on PATH)
#         REPS      timed repetitions per variant (default 30), WARMUP (default 5)
#         ADAPTER   adapter name filter passed as --adapter (default: the best adapter)
#         QUICK=1   small dispatches and few repetitions (a smoke test, e.g. on lavapipe)
#         MEASURE_ONLY=1  time the kernels only (no capture, no simulation)
#         STATS_ONLY=1  only the driver's statistics of each variant's compiled code
#                   (`banksim shader-stats`, appended to shader_stats.csv; they are
#                   collected in every mode where the driver reports them)
#         CAPTURE_ONLY=1  capture the traces only (no timing); captures do not depend on
#                   the GPU. Every capture does the timed dispatch's per-workgroup work
#                   (scale 1 in validate/suite_unseen.csv) at 2 or 2x2 workgroups.
# The global parameters come from the `fit` families of validate/suite.csv, so predict
# these families beside that suite (SUITE: validate/run_gpu_suite.sh's folder, measured
# on the same GPU; captures anywhere with CAPTURE_ONLY=1):
#   { cat validate/suite.csv; grep -v '^#\|^label' validate/suite_unseen.csv; } > all.csv
#   { cat SUITE/measure.csv; tail -n +2 OUTDIR/measure.csv; } > all_measure.csv
#   mkdir all_traces; cp SUITE/traces/*.csv OUTDIR/traces/*.csv all_traces/
#   banksim calibrate --suite all.csv --measured all_measure.csv --traces all_traces --out DIR
# Run from the repository root. Nothing here needs network access.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

OUT=${1:?usage: validate/run_unseen.sh OUTDIR}
cd "$(dirname "$0")/.."
BANKSIM=${BANKSIM:-}
if [ -z "$BANKSIM" ]; then
    if [ -x target/release/banksim ]; then BANKSIM=target/release/banksim; else BANKSIM=banksim; fi
fi
REPS=${REPS:-30}
WARMUP=${WARMUP:-5}
QUICK=${QUICK:-0}
MEASURE_ONLY=${MEASURE_ONLY:-0}
CAPTURE_ONLY=${CAPTURE_ONLY:-0}
STATS_ONLY=${STATS_ONLY:-0}
STATS=1
K=validate/kernels/unseen
mkdir -p "$OUT/json" "$OUT/traces" "$OUT/sim"
ADAPTER_ARGS=()
if [ -n "${ADAPTER:-}" ]; then ADAPTER_ARGS=(--adapter "$ADAPTER"); fi

{
    echo "# validate/run_unseen.sh $*"
    echo "# banksim: $("$BANKSIM" --version)"
    echo "# REPS=$REPS WARMUP=$WARMUP QUICK=$QUICK ADAPTER=${ADAPTER:-}"
    (nvidia-smi | sed 1d || true) 2>&1   # its first line is the date
    (vulkaninfo --summary || true) 2>&1
} > "$OUT/system.txt"

# scale: full-size dispatches on a GPU (the `blocks` of validate/suite_unseen.csv),
# tiny ones for a smoke test
if [ "$QUICK" = 1 ]; then
    REPS=${REPS_QUICK:-3}; WARMUP=1
    G=8; G_T=4
else
    G=16384; G_T=128
fi

# one variant: NAME KERNEL MEASURE_DISPATCH CAPTURE_DISPATCH [measure args...] [-- capture args...]
# (kernel args: --override, --bind; without `--` the capture gets the measure args)
# variant NAME KERNEL MEASURE_DISPATCH CAPTURE_DISPATCH [ARGS..] [-- CAPTURE_ARGS..]
. validate/suite_variant.sh

# reference first in every family (the order of validate/suite_unseen.csv)
for k in 1 2 8 32 0; do
    variant "hist_k$k" hist.wgsl "$G" 2 --override "K=$k"
done
for pad in 1 0 2 4 8; do
    variant "stencil_pad$pad" stencil.wgsl "$G" 2 --override "PAD=$pad" --bind 0.0=zeros:65536
done
# 64 x 64 words per workgroup: (64 G_T)^2 words per matrix
TW=$((64 * G_T * 64 * G_T))
variant transpose64_swz transpose64.wgsl "$G_T,$G_T" 2,2 --override SWZ=true \
    --bind "0.0=zeros:$TW" --bind "0.1=zeros:$TW" -- --override SWZ=true
for pad in 1 0 2 4; do
    variant "transpose64_pad$pad" transpose64.wgsl "$G_T,$G_T" 2,2 --override "PAD=$pad" \
        --bind "0.0=zeros:$TW" --bind "0.1=zeros:$TW" -- --override "PAD=$pad"
done
for padv in 1 0 2 5; do
    variant "matvec_padv$padv" matvec.wgsl "$G" 2 --override "PADV=$padv" --bind 0.0=zeros:131072
done
for mode in 0 1 2 3; do
    variant "reduce64_mode$mode" reduce64.wgsl "$G" 2 --override "MODE=$mode" --bind 0.0=zeros:524288
done
# ITERS (4) tiles of 1024 words per workgroup in each buffer
CW=$((4 * 1024 * G))
for s in 1 3 2 4 8; do
    variant "copy_s$s" copy.wgsl "$G" 2 --override "S=$s" --bind "0.0=zeros:$CW" --bind "0.1=zeros:$CW" \
        -- --override "S=$s" --bind 0.0=zeros:8192 --bind 0.1=zeros:8192
done

[ "$CAPTURE_ONLY" = 1 ] && { echo "done: $OUT/traces"; exit 0; }
[ "$STATS_ONLY" = 1 ] && { echo "done: $OUT/shader_stats.csv"; exit 0; }
echo "done: $OUT/measure.csv ($(($(wc -l < "$OUT/measure.csv") - 1)) variants)"
