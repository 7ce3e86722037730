#!/usr/bin/env bash
# Microbenchmarks of the dispatch's fixed costs and of global-memory latency, on a GPU;
# what `banksim calibrate` takes as measured constants rather than fitting them:
#
#   empty.wgsl          workgroups of 64 / 256 / 1024 invocations that do nothing, at 1 to
#                       65535 workgroups: time at 1 workgroup = the dispatch's fixed
#                       overhead; extra time per workgroup per SM at many = the block
#                       launch interval
#   global_chase.wgsl   one invocation chasing through a storage buffer of 16 KiB, 1 MiB
#                       and 64 MiB: global-load latency (L1, L2, DRAM)
#   tile16, aos_k2      the launch-bound suite kernels at 4x their suite dispatch
#   stream_copy.wgsl    global-memory bandwidth: every invocation copies one vec4<u32>
#                       between two buffers of 4 MiB and 16 MiB each (L2 hits), 64 MiB,
#                       256 MiB and 1 GiB (DRAM; the H100's L2 is 50 MiB); rows
#                       stream_copy_<MiB>m. Bytes moved per run = read + write = 2 x the
#                       buffer size: bandwidth in bytes per us = 2 * MiB * 1048576 / median_us. On an adapter whose
#                       max_storage_buffer_binding_size is below a size (JSON `limits`),
#                       that row fails and says so; STREAM_MIB lists the sizes
#                       (default "4 16 64 256 1024")
#   l2_read.wgsl        read bandwidth of a buffer of 1, 4, 16 and 32 MiB (the L2) and 256 MiB
#                       (DRAM): 4 M invocations, each reading 16 vec4<u32>, 1 GiB in all;
#                       rows l2_read_<MiB>m. Bandwidth in bytes per us = 1073741824 /
#                       median_us. L2_MIB lists the sizes; L2_ONLY=1 runs these rows alone
#   op_cost.wgsl        what an operation costs against an integer add: u32 / and %, f32 /,
#                       i32 / (OP=0..4), 8 or 16 dependent ones per loop iteration (REP),
#                       at 132 workgroups (8 warps per SM: latency) and 1056 (64 warps:
#                       issue); rows op_cost_op<OP>_rep<REP>_n<workgroups>. The time of 8
#                       operations = REP=16 minus REP=8. Also, where the driver reports
#                       them, its statistics (shader_stats.csv) of the loop with a trip
#                       count of 0 (run time), 1, 4, 16 and 64 known when compiled: a
#                       binary that grows with the trip count is an unrolled loop
#
# Usage:  validate/run_micro.sh OUTDIR      (writes OUTDIR/micro.csv and OUTDIR/json/)
# Env:    BANKSIM (default target/release/banksim), REPS (default 20), WARMUP (default 5),
#         STREAM_MIB (stream_copy buffer sizes in MiB, default "4 16 64 256 1024"),
#         OP_COST_ONLY=1 (only the op_cost.wgsl rows), L2_ONLY=1 (only the l2_read.wgsl rows),
#         L2_MIB (l2_read buffer sizes in MiB, default "1 4 16 32 256")
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
OUT=${1:?usage: validate/run_micro.sh OUTDIR}
cd "$(dirname "$0")/.."
BANKSIM=${BANKSIM:-target/release/banksim}
REPS=${REPS:-20}
WARMUP=${WARMUP:-5}
K=validate/kernels
mkdir -p "$OUT/json"
m() {
    local name=$1 kernel=$2 dispatch=$3
    shift 3
    echo "== $name"
    "$BANKSIM" measure "$K/$kernel" --dispatch "$dispatch" "$@" --reps "$REPS" --warmup "$WARMUP" \
        --label "$name" --json "$OUT/json/$name.json" --csv "$OUT/micro.csv"
}
# 4096 x 4 workgroups of 256: 2^22 invocations reading 16 x 16 bytes each, 1 GiB in all (and
# writing 16 MiB)
for mib in ${L2_MIB:-1 4 16 32 256}; do
    m "l2_read_${mib}m" l2_read.wgsl 4096,4 --override R=16 --bind "0.0=zeros:$((mib * 262144))" \
        --bind "0.1=zeros:4194304" || echo "l2_read_${mib}m: not measured (see the error above)"
done
[ "${L2_ONLY:-0}" = 1 ] && { echo "done: $OUT/micro.csv"; exit 0; }
for n in 132 1056; do
    for op in 0 1 2 3 4; do
        for rep in 8 16; do
            m "op_cost_op${op}_rep${rep}_n$n" op_cost.wgsl "$n" --override "OP=$op" --override "REP=$rep" \
                --bind "0.0=u32:7,${OP_ITERS:-4096}"
        done
    done
done
for trip in 0 1 4 16 64; do
    "$BANKSIM" shader-stats "$K/op_cost.wgsl" --override "TRIP=$trip" --label "op_cost_trip$trip" \
        --csv "$OUT/shader_stats.csv" > /dev/null || echo "op_cost_trip$trip: no driver statistics (see the error above)"
done
[ "${OP_COST_ONLY:-0}" = 1 ] && { echo "done: $OUT/micro.csv"; exit 0; }
for wg in 64 256 1024; do
    for n in 1 132 1056 4224 16384 65535; do
        m "empty_wg${wg}_n$n" empty.wgsl "$n" --override "WG=$wg" --bind 0.0=zeros:4
    done
done
for words in 4096 262144 16777216; do
    m "global_chase_w$words" global_chase.wgsl 1 --bind "0.0=u32:4099,4096,$words" --bind "0.1=iota:$words"
done
m tile16_pad0_n65535 tile16.wgsl 65535 --override PAD=0
m aos_k2_n65535 aos_k2.wgsl 65535
m soa_k4_n65535 soa_k4.wgsl 65535
# W words per buffer: W / 1024 workgroups of 256 vec4, as 4096,Y beyond 4096 workgroups
for mib in ${STREAM_MIB:-4 16 64 256 1024}; do
    words=$((mib * 262144)); groups=$((words / 1024))
    if [ "$groups" -gt 4096 ]; then disp="4096,$((groups / 4096))"; else disp=$groups; fi
    m "stream_copy_${mib}m" stream_copy.wgsl "$disp" --bind "0.0=zeros:$words" --bind "0.1=zeros:$words" \
        || echo "stream_copy_${mib}m: not measured (see the error above)"
done
echo "done: $OUT/micro.csv"
