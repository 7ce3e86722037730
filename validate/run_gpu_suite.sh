#!/usr/bin/env bash
# Runs the kernel suite of validate/kernels/ on a GPU and writes everything calibration
# needs into the folder given as $1:
#
#   measure.csv        one row per variant: median / min / max / quartiles (us), adapter, driver
#   json/*.json        every repetition's time, the adapter's name, driver and limits
#   traces/*.csv       the captured shared-memory trace of each variant (small dispatch)
#   sim/*.txt          `banksim run --cycles` of each captured trace on the h100 preset
#   shader_stats.csv   the driver's statistics of each variant (`banksim shader-stats`)
#   system.txt         nvidia-smi, vulkaninfo --summary, banksim --version, this script's args
#
# Usage:  validate/run_gpu_suite.sh OUTDIR
# Env:    BANKSIM   the banksim binary (default: target/release/banksim, then `banksim` on PATH)
#         REPS      timed repetitions per variant (default 30), WARMUP (default 5)
#         ADAPTER   adapter name filter passed as --adapter (default: the best adapter)
#         QUICK=1   small dispatches and few repetitions (a smoke test, e.g. on lavapipe)
#         MEASURE_ONLY=1  time the kernels only (no capture, no simulation): captures do not
#                   depend on the GPU, so they can be made anywhere (lavapipe) afterwards
#         STATS_ONLY=1  only the driver's statistics of each variant's compiled code
#                   (`banksim shader-stats`, appended to shader_stats.csv; they are
#                   collected in every mode where the driver reports them)
#         CAPTURE_ONLY=1  capture the traces only (no timing): what `banksim calibrate` reads
#                   beside a measure.csv; validate/suite.csv says how each capture scales
#                   to the timed dispatch
# Run from the repository root. Nothing here needs network access.
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

OUT=${1:?usage: validate/run_gpu_suite.sh OUTDIR}
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
K=validate/kernels
mkdir -p "$OUT/json" "$OUT/traces" "$OUT/sim"
ADAPTER_ARGS=()
if [ -n "${ADAPTER:-}" ]; then ADAPTER_ARGS=(--adapter "$ADAPTER"); fi

{
    echo "# validate/run_gpu_suite.sh $*"
    echo "# banksim: $("$BANKSIM" --version)"
    echo "# REPS=$REPS WARMUP=$WARMUP QUICK=$QUICK ADAPTER=${ADAPTER:-}"
    (nvidia-smi | sed 1d || true) 2>&1   # its first line is the date
    (vulkaninfo --summary || true) 2>&1
} > "$OUT/system.txt"

# scale: full-size dispatches on a GPU, tiny ones for a smoke test
if [ "$QUICK" = 1 ]; then
    REPS=${REPS_QUICK:-3}; WARMUP=1
    G_T=4; G_1D=8; G_STRIDE=8; ITERS=64; G_GEMM_X=2; G_GEMM_Y=2; GEMM_K=64
else
    G_T=128; G_1D=16384; G_STRIDE=4224; ITERS=4096; G_GEMM_X=64; G_GEMM_Y=16; GEMM_K=1024
fi

# one variant: NAME KERNEL MEASURE_DISPATCH CAPTURE_DISPATCH [measure args...] [-- capture args...]
# (kernel args: --override, --bind; without `--` the capture gets the measure args)
# variant NAME KERNEL MEASURE_DISPATCH CAPTURE_DISPATCH [ARGS..] [-- CAPTURE_ARGS..]
. validate/suite_variant.sh

variant transpose32_pad0 transpose32.wgsl "$G_T,$G_T,1" 2,2,1
variant transpose32_pad1 transpose32_pad1.wgsl "$G_T,$G_T,1" 2,2,1
for pad in 0 1 2 3 4; do
    variant "tile16_pad$pad" tile16.wgsl "$G_1D,1,1" 2,1,1 --override "PAD=$pad"
done
for mode in interleaved sequential; do
    variant "reduce_$mode" "reduce_$mode.wgsl" "$G_1D,1,1" 2,1,1 \
        --bind "0.0=zeros:$((512 * G_1D))" --bind "0.1=zeros:$G_1D" -- --bind "0.0=zeros:1024"
done
for padded in false true; do
    variant "scan_padded_$padded" scan.wgsl "$G_1D,1,1" 1,1,1 --override "PADDED=$padded" \
        --bind "0.0=zeros:$((512 * G_1D))" --bind "0.1=zeros:$((512 * G_1D))" \
        -- --override "PADDED=$padded" --bind "0.0=zeros:512" --bind "0.1=zeros:512"
done
for k in aos_k2 aos_k3 aos_k4 soa_k4; do
    variant "$k" "$k.wgsl" "$G_1D,1,1" 2,1,1
done
# the stride sweep of fixtures/h100/wgpu_stridebench.txt (4224 workgroups, 4096
# loads); the captured trace keeps 512 loads (every load has the same bank pattern), so
# validate/suite.csv scales its time by 4096 / 512 = 8
for s in 1 0 2 3 4 5 8 16 17 32 33 64; do
    for dep in dependent independent; do
        variant "stride_${dep}_s$s" "stride_$dep.wgsl" "$G_STRIDE,1,1" 2,1,1 \
            --bind "0.0=u32:$s,$ITERS" -- --bind "0.0=u32:$s,512"
    done
done
# the same chase with ALU fused multiply-adds after every load: where bank time and
# other work cross tells how they overlap
for alu in 4 16 64; do
    for s in 1 2 4 8 16 32; do
        variant "stride_alu${alu}_s$s" stride_alu.wgsl "$G_STRIDE,1,1" 2,1,1 --override "ALU=$alu" \
            --bind "0.0=u32:$s,$ITERS" -- --override "ALU=$alu" --bind "0.0=u32:$s,512"
    done
done
# the same chase with a 4 KiB array: eight workgroups (64 warps) per SM share the issue
# slots and the pipe, where the kernels above run one
for alu in 0 16; do
    for s in 1 8 16 32; do
        variant "stride_occ_alu${alu}_s$s" stride_alu.wgsl "$G_STRIDE,1,1" 2,1,1 \
            --override "ALU=$alu" --override WORDS=1024 --bind "0.0=u32:$s,$ITERS" \
            -- --override "ALU=$alu" --override WORDS=1024 --bind "0.0=u32:$s,512"
    done
done
for skew in 0 4; do
    # (the capture's one workgroup: A 64 x K, B K x 16, C 64 x 16 floats)
    variant "gemm_skew$skew" gemm_skew.wgsl "$G_GEMM_X,$G_GEMM_Y,1" 1,1,1 --override "SKEW=$skew" --override "K=$GEMM_K" \
        -- --override "SKEW=$skew" --override "K=$GEMM_K" \
        --bind "0.0=zeros:$((64 * GEMM_K))" --bind "0.1=zeros:$((GEMM_K * 16))" --bind "0.2=zeros:1024"
done

[ "$CAPTURE_ONLY" = 1 ] && { echo "done: $OUT/traces"; exit 0; }
[ "$STATS_ONLY" = 1 ] && { echo "done: $OUT/shader_stats.csv"; exit 0; }
echo "done: $OUT/measure.csv ($(($(wc -l < "$OUT/measure.csv") - 1)) variants)"
