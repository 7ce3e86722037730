#!/usr/bin/env bash
# Microbenchmarks of the dispatch's fixed costs and of global-memory latency, on a GPU;
# what `banksim calibrate` takes as measured constants rather than fitting them:
#
#   empty.wgsl          workgroups of 64 / 256 / 1024 invocations that do nothing, at 1 to
#                       65535 workgroups: time at 1 workgroup = the dispatch's fixed
#                       overhead; extra time per workgroup per SM at many = the block
#                       launch interval
#   global_chase.wgsl   one invocation chasing through a storage buffer of 16 KiB, 1 MiB
#                       and 64 MiB, 4096 steps of 4099 words (16 KiB): global-load latency
#                       of L1 and L2 hits (the 4096 lines a chain touches, 512 KiB, stay in
#                       the L2 from one repetition to the next); and through 1 GiB, 2^20
#                       steps (128 MiB of lines, beyond the L2: every step misses it): DRAM
#                       latency (global_chase_dram; DRAM_ONLY=1 runs this row alone)
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
#   run_copy.wgsl       DRAM bandwidth of short runs: copies of 256 MiB with the writes
#                       (MODE=1) or the reads (MODE=2) cut into runs of 128 B to 4 KiB laid
#                       out as a transpose (consecutive runs 2^H_LOG runs apart), and in
#                       order on both sides (MODE=0); rows run_copy_m<MODE>_<bytes>b_h<H_LOG>.
#                       RUNS_ONLY=1 runs these rows alone
#   tile32.wgsl         the 32x32 tile transpose's loads with its transposed writes (MODE=0),
#                       writes in order (MODE=1) or none (MODE=2), at 128 x 128 workgroups
#                       (64 MiB per buffer: DRAM) and 64 x 64 (16 MiB: the L2); rows
#                       tile32_m<MODE>_g<groups_x>. TILE_ONLY=1 runs these rows alone
#   load_mlp.wgsl       a global load's latency with many in flight: one wave of 1, 2, 4 or 8
#                       workgroups of 8 warps per SM (SMS, default 132), each warp making
#                       round trips of 1 or 4 independent line loads; time per round trip =
#                       the latency at LOADS x warps per SM lines in flight. From DRAM
#                       (512 MiB, each line read once; consecutive lines, or 16 KiB apart
#                       with SCATTER=7) and from the L2 (16 MiB); rows
#                       load_mlp_<dram|dram_s7|l2>_b<blocks per SM>_l<LOADS>_s<STEPS>.
#                       MLP_ONLY=1 runs these rows alone
#   wide_conflict.wgsl  shared-memory load throughput of 4-, 8- and 16-byte loads (entry points
#                       w1, w2, w4) at 1- to 32-way conflicts (STRIDE elements between lanes),
#                       independent loads from 792 workgroups of 8 warps (6 per SM): rows
#                       wide_conflict_w<bytes>_s<STRIDE>
#   phase_conflict.wgsl conflicts on a reduction's critical path: ACTIVE warps of each
#                       workgroup read two words and store their sum, then a barrier, 256
#                       times, at 1 and 8 workgroups per SM (one wave): rows
#                       phase_conflict_a<ACTIVE>_s<STRIDE>_b<per SM>; and with one active warp,
#                       rotated over the schedulers (_rot_) or in workgroups of 1 or 2 warps
#                       (_wg32_, _wg64_). CONFLICT_ONLY=1 runs
#                       the rows of these two alone
#   barrier_cost.wgsl   a barrier alone: workgroups of 32 to 1024 invocations meeting at
#                       1024 barriers with nothing between them, one wave of 1 workgroup per
#                       SM up to the SM's 2048 invocations: rows barrier_cost_wg<WG>_b<per SM>.
#                       BARRIER_ONLY=1 runs these rows alone
#   op_cost.wgsl        what an operation costs against an integer add: u32 / and %, f32 /,
#                       i32 / (OP=0..4), 8 or 16 dependent ones per loop iteration (REP),
#                       at 132 workgroups (8 warps per SM: latency) and 1056 (64 warps:
#                       issue); rows op_cost_op<OP>_rep<REP>_n<workgroups>. The time of 8
#                       operations = REP=16 minus REP=8. Also, where the driver reports
#                       them, its statistics (shader_stats.csv) of the loop with a trip
#                       count of 0 (run time), 1, 4, 16 and 64 known when compiled: a
#                       binary that grows with the trip count is an unrolled loop
#   atom_collide.wgsl   shared-memory atomicAdd by collision structure: LANES lanes of a warp on
#                       one word (1 to 32), STRIDE words between a warp's words (1: distinct
#                       banks; 32: one bank), the old value used (RET=1) or not; 8 or 16 per
#                       loop iteration (REP), at 132 workgroups (latency) and 1056 (the pipe);
#                       rows atom_collide_l<LANES>_s<STRIDE>_r<RET>_rep<REP>_n<workgroups>.
#                       ATOMS_ONLY=1 runs these rows alone
#   dead_load.wgsl      a global load whose value is used (USE=1) or deleted by the compiler
#                       (USE=0), 2^24 invocations over 64 MiB; rows dead_load_use<USE>
#   aos_global.wgsl     structs of K = 1 to 4 floats in a storage buffer read field by field,
#                       and vec4<f32> loads (VEC=1), 2^24 invocations; rows aos_global_k<K>,
#                       aos_global_vec4. COMPILER_ONLY=1 runs these two kernels' rows and the
#                       op_cost.wgsl rows of divisions, remainders and multiplies by a constant
#                       (OP=5, 6, 9 at C = 7 and 8), integer multiplies (7) and float
#                       multiply-adds (8), float multiplies then adds (10), multiplies (11)
#                       and adds (12)
#   smem_merge.wgsl     whether the driver merges neighbouring 4-byte workgroup loads into
#                       wider ones: F words of a record at stride S words, offset OFF, read
#                       from a u32 array with S known when compiled (MODE=0) or read at run
#                       time (1), as components of vec4s (2), as struct fields (3), and one
#                       vec4 load (4, the reference); 1056 workgroups of 1024: rows
#                       smem_merge_m<MODE>_s<S>_o<OFF>_f<F>
#   smem_merge_store.wgsl  the same for stores: 4 neighbouring u32 elements (MODE=0), 4
#                       struct fields (1), 4 vec4 components (2), one vec4 store (3), at
#                       record strides S; rows smem_merge_store_m<MODE>_s<S>. MERGE_ONLY=1
#                       runs the rows of both kernels alone
#   compiler_pairs.wgsl pairs of modes that compute the same value two ways: a
#                       subexpression written twice or once (OP=0, 1), a loop-invariant
#                       hash inside the loop or hoisted (2, 3), a function called with a
#                       constant or its folded form (4, 5); REP 8 and 16, 132 and 1056
#                       workgroups; rows compiler_pairs_op<OP>_rep<REP>_n<N>, and each
#                       mode's driver statistics (binary size) in OUTDIR/shader_stats.csv.
#                       PAIRS_ONLY=1 runs these rows alone
#   occ_smem.wgsl       workgroups an SM holds by the workgroup memory they declare (4 to
#                       48 KiB): one latency-bound warp per workgroup, 132 x k workgroups
#                       for k = 1, 7, 24; rows occ_smem_<bytes>b_k<k>. OCC_ONLY=1 runs
#                       these rows alone
#
# Usage:  validate/run_micro.sh OUTDIR      (writes OUTDIR/micro.csv and OUTDIR/json/)
# Env:    BANKSIM (default target/release/banksim), REPS (default 20), WARMUP (default 5),
#         STREAM_MIB (stream_copy buffer sizes in MiB, default "4 16 64 256 1024"),
#         OP_COST_ONLY=1 (only the op_cost.wgsl rows), L2_ONLY=1 (only the l2_read.wgsl rows),
#         RUNS_ONLY=1 (only the run_copy.wgsl rows), DRAM_ONLY=1 (only global_chase_dram),
#         TILE_ONLY=1 (only the tile32.wgsl rows), MLP_ONLY=1 (only the load_mlp.wgsl rows),
#         CONFLICT_ONLY=1 (only the wide_conflict.wgsl and phase_conflict.wgsl rows),
#         BARRIER_ONLY=1 (only the barrier_cost.wgsl rows), ATOMS_ONLY=1 (only the
#         atom_collide.wgsl rows), COMPILER_ONLY=1 (only the compiler-effect rows above),
#         MERGE_ONLY=1 (only the smem_merge*.wgsl rows), PAIRS_ONLY=1 (only
#         compiler_pairs.wgsl's), OCC_ONLY=1 (only occ_smem.wgsl's),
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
# one dependent load per step, each a line beyond the L2 (about 1 s per repetition)
dram_chase() {
    REPS=3 WARMUP=1 m global_chase_dram global_chase.wgsl 1 --bind "0.0=u32:4099,1048576,268435456" \
        --bind "0.1=iota:268435456" || echo "global_chase_dram: not measured (see the error above)"
}
[ "${DRAM_ONLY:-0}" = 1 ] && { dram_chase; echo "done: $OUT/micro.csv"; exit 0; }
# every row walks 2^22 lines (each once from the 2^22-line buffer, 32 times the 2^17-line one)
load_mlp() {
    local sms=${SMS:-132} b loads steps where
    for b in 1 2 4 8; do
        for loads in 1 4; do
            steps=$((4194304 / (sms * b * 8 * loads)))
            for where in dram:22:0 dram_s7:22:7 l2:17:0; do
                IFS=: read -r name lines scatter <<< "$where"
                m "load_mlp_${name}_b${b}_l${loads}_s$steps" load_mlp.wgsl "$((sms * b))" \
                    --override "LOADS=$loads" --override "STEPS=$steps" --override "LINES_LOG=$lines" \
                    --override "SCATTER=$scatter" --bind "0.0=zeros:$((32 << lines))" \
                    --bind "0.1=zeros:$((sms * b * 256))"
            done
        done
    done
}
[ "${MLP_ONLY:-0}" = 1 ] && { load_mlp; echo "done: $OUT/micro.csv"; exit 0; }
atoms() {
    local sms=${SMS:-132} n b lanes stride ret rep
    for b in 1 8; do
        n=$((sms * b))
        for lanes in 1 2 4 8 32; do
            for stride in 1 32; do
                [ "$lanes" = 32 ] && [ "$stride" = 32 ] && continue
                for ret in 1 0; do
                    for rep in 8 16; do
                        m "atom_collide_l${lanes}_s${stride}_r${ret}_rep${rep}_n$n" atom_collide.wgsl "$n" \
                            --override "LANES=$lanes" --override "STRIDE=$stride" --override "RET=$ret" \
                            --override "REP=$rep" --bind "0.0=u32:${ATOM_ITERS:-256}" --bind "0.1=zeros:$((n * 256))"
                    done
                done
            done
        done
    done
}
[ "${ATOMS_ONLY:-0}" = 1 ] && { atoms; echo "done: $OUT/micro.csv"; exit 0; }
compiler() {
    local use k n op c rep
    for use in 1 0; do
        m "dead_load_use$use" dead_load.wgsl 65535 --override "USE=$use" --bind 0.0=zeros:16777216 \
            --bind 0.1=zeros:16777216
    done
    for k in 1 2 3 4; do
        m "aos_global_k$k" aos_global.wgsl 65535 --override "K=$k" --bind "0.0=zeros:1" \
            --bind 0.1=zeros:16777216 --bind "0.$((k + 1))=zeros:$((k * 16777216))"
    done
    m aos_global_vec4 aos_global.wgsl 65535 --override VEC=1 --bind "0.0=zeros:1" \
        --bind 0.1=zeros:16777216 --bind 0.6=zeros:67108864
    for n in 132 1056; do
        for op in 7 8 10 11 12; do
            for rep in 8 16; do
                m "op_cost_op${op}_rep${rep}_n$n" op_cost.wgsl "$n" --override "OP=$op" --override "REP=$rep" \
                    --bind "0.0=u32:7,${OP_ITERS:-4096}"
            done
        done
        for op in 5 6 9; do
            for c in 7 8; do
                for rep in 8 16; do
                    m "op_cost_op${op}_c${c}_rep${rep}_n$n" op_cost.wgsl "$n" --override "OP=$op" \
                        --override "C=$c" --override "REP=$rep" --bind "0.0=u32:7,${OP_ITERS:-4096}"
                done
            done
        done
    done
}
[ "${COMPILER_ONLY:-0}" = 1 ] && { compiler; echo "done: $OUT/micro.csv"; exit 0; }
merges() {
    local row mode s off f
    for row in 4:4:0:4 4:16:0:4 0:4:0:1 0:4:0:4 0:4:1:4 0:4:2:4 0:4:0:2 0:2:0:2 0:8:0:4 0:16:0:4 0:5:0:4 \
        1:4:0:4 1:8:0:4 2:4:0:4 2:8:0:4 2:16:0:4 3:4:0:4 3:8:0:4 4:8:0:4; do
        IFS=: read -r mode s off f <<< "$row"
        m "smem_merge_m${mode}_s${s}_o${off}_f$f" smem_merge.wgsl 1056 --override "MODE=$mode" \
            --override "S=$s" --override "OFF=$off" --override "F=$f" --bind "0.0=u32:$s,0" \
            --bind 0.1=zeros:1081344
    done
    for row in 3:4 3:8 3:16 0:4 0:8 0:16 1:4 1:8 2:4 2:8 2:16; do
        IFS=: read -r mode s <<< "$row"
        m "smem_merge_store_m${mode}_s$s" smem_merge_store.wgsl 1056 --override "MODE=$mode" \
            --override "S=$s" --bind "0.0=u32:0" --bind 0.1=zeros:1081344
    done
}
[ "${MERGE_ONLY:-0}" = 1 ] && { merges; echo "done: $OUT/micro.csv"; exit 0; }
occupancy() {
    local sms=${SMS:-132} bytes k
    for bytes in 4096 8192 12288 16384 16640 17408 20480 24576 32768 40960 49152; do
        for k in 1 7 24; do
            m "occ_smem_${bytes}b_k$k" occ_smem.wgsl "$((sms * k))" --override "N=$((bytes / 4))" \
                --bind "0.0=u32:7,${OCC_STEPS:-2048}" --bind "0.1=zeros:$((sms * k * 32))"
        done
    done
}
[ "${OCC_ONLY:-0}" = 1 ] && { occupancy; echo "done: $OUT/micro.csv"; exit 0; }
pairs() {
    local n op rep
    for n in 132 1056; do
        for op in 0 1 2 3 4 5; do
            for rep in 8 16; do
                m "compiler_pairs_op${op}_rep${rep}_n$n" compiler_pairs.wgsl "$n" --override "OP=$op" \
                    --override "REP=$rep" --bind "0.0=u32:7,${OP_ITERS:-4096}"
            done
        done
    done
    # the driver's binary of each mode: a subexpression computed once, or a constant
    # argument folded, makes it smaller (16 bytes an instruction)
    for op in 0 1 2 3 4 5; do
        "$BANKSIM" shader-stats "$K/compiler_pairs.wgsl" --override "OP=$op" --override REP=16 \
            --label "compiler_pairs_op${op}_rep16" --csv "$OUT/shader_stats.csv" > /dev/null \
            || echo "compiler_pairs_op$op: no driver statistics (see the error above)"
    done
}
[ "${PAIRS_ONLY:-0}" = 1 ] && { pairs; echo "done: $OUT/micro.csv"; exit 0; }
conflicts() {
    local sms=${SMS:-132} w s a b
    for w in 1:4:"1 2 4 8 16 32" 2:8:"1 2 4 8 16" 4:16:"1 2 4 8"; do
        IFS=: read -r entry bytes strides <<< "$w"
        for s in $strides; do
            m "wide_conflict_w${bytes}_s$s" wide_conflict.wgsl "$((sms * 6))" --entry "w$entry" \
                --override "STRIDE=$s" --bind "0.0=zeros:$((sms * 6 * 256))"
        done
    done
    for a in 1 8; do
        for s in 1 2 4 8 16 32; do
            for b in 1 8; do
                m "phase_conflict_a${a}_s${s}_b$b" phase_conflict.wgsl "$((sms * b))" \
                    --override "ACTIVE=$a" --override "STRIDE=$s" --bind "0.0=zeros:$((sms * b * 256))"
            done
        done
    done
    # one active warp per workgroup at 8 workgroups per SM: the active warps on different
    # schedulers (rot), workgroups of 1 warp (wg32, and 64 of them per SM) and of 2 (wg64)
    for s in 1 16 32; do
        m "phase_conflict_rot_a1_s${s}_b8" phase_conflict.wgsl "$((sms * 8))" --override "STRIDE=$s" \
            --override "ROTATE=$sms" --bind "0.0=zeros:$((sms * 8 * 256))"
        for wb in 32:8 32:64 64:8; do
            IFS=: read -r wg b <<< "$wb"
            m "phase_conflict_wg${wg}_a1_s${s}_b$b" phase_conflict.wgsl "$((sms * b))" --override "STRIDE=$s" \
                --override "WG=$wg" --bind "0.0=zeros:$((sms * b * wg))"
        done
    done
}
[ "${CONFLICT_ONLY:-0}" = 1 ] && { conflicts; echo "done: $OUT/micro.csv"; exit 0; }
barriers() {
    local sms=${SMS:-132} wg b
    for wg in 32 64 128 256 512 1024; do
        for b in 1 2 4 8 16 32 64; do
            [ $((wg * b)) -le 2048 ] || continue
            m "barrier_cost_wg${wg}_b$b" barrier_cost.wgsl "$((sms * b))" --override "WG=$wg" \
                --bind "0.0=zeros:$((sms * b * wg))"
        done
    done
}
[ "${BARRIER_ONLY:-0}" = 1 ] && { barriers; echo "done: $OUT/micro.csv"; exit 0; }
# 32 x 32 floats per workgroup: 2^24 (64 MiB) per buffer at 128 x 128, 2^22 at 64 x 64
for g in 128 64; do
    [ "${RUNS_ONLY:-0}" = 1 ] && break
    for mode in 0 1 2; do
        m "tile32_m${mode}_g$g" tile32.wgsl "$g,$g" --override "MODE=$mode" \
            --bind "0.0=zeros:$((1024 * g * g))" --bind "0.1=zeros:$((1024 * g * g))"
    done
done
[ "${TILE_ONLY:-0}" = 1 ] && { echo "done: $OUT/micro.csv"; exit 0; }
# 2^24 vectors (256 MiB) per buffer: 65536 workgroups of 256 as 4096,16
rc() {
    local mode=$1 run_log=$2 h_log=$3
    m "run_copy_m${mode}_$((16 << run_log))b_h$h_log" run_copy.wgsl 4096,16 --override TOTAL_LOG=24 \
        --override "MODE=$mode" --override "RUN_LOG=$run_log" --override "H_LOG=$h_log" \
        --bind 0.0=zeros:67108864 --bind 0.1=zeros:67108864
}
rc 0 3 10
for mode in 1 2; do
    for run_log in 3 4 5 6 7 8; do rc "$mode" "$run_log" 10; done
done
for h_log in 6 14; do rc 1 3 "$h_log"; rc 1 4 "$h_log"; done
[ "${RUNS_ONLY:-0}" = 1 ] && { echo "done: $OUT/micro.csv"; exit 0; }
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
dram_chase
load_mlp
conflicts
merges
occupancy
pairs
barriers
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
