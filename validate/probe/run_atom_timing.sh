#!/usr/bin/env bash
# Times shared-memory atomics on an NVIDIA GPU with clock64 (probe_atom_timing.cu): the
# latency of a dependent chain (one warp) and the throughput of 32 warps issuing
# independent operations, for atomicAdd with its result used (ATOMS.ADD) and unused
# (ATOMS.POPC.INC from CUDA C's atomicAdd(&x, 1), ATOMS.ADD into RZ from PTX red), with
# plain loads as the reference and the throughput of plain stores (STS), over lane
# patterns: distinct words, all lanes one word, k-way bank conflicts (lane l -> word
# l * k, k = 2, 4, 8, 16, 32), and every warp on the same words (xwarp, k = 1, 2). See
# the header of probe_atom_timing.cu for exactly what is timed.
#
# Prints the CSV and writes it to OUTDIR/atom_timing.csv:
#   op,pattern,k,latency_cycles,throughput_cycles_per_warp_instr,sass
# sass = the load and atomic opcodes (LDS, ATOMS, ...) the op's kernels compiled to, from
# `cuobjdump -sass` (kept in OUTDIR/atom_timing.sass); a latency is empty where the op
# returns nothing to chain through. Also writes OUTDIR/gpu.txt (nvidia-smi).
#
# Usage:  validate/probe/run_atom_timing.sh [--arch ARCH] OUTDIR
#   --arch ARCH   nvcc -arch (default sm_90, the H100)
#   -h, --help    this text
# Env:    ITERS_LAT (default 4096) chain steps, ITERS_THR (default 512) loop steps of 8
#         operations per warp. Needs nvcc and cuobjdump on PATH; no ncu, no network.
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=sm_90
OUTDIR=
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --arch) ARCH=${2:?--arch needs a value}; shift 2 ;;
        -*) echo "run_atom_timing.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) [ -z "$OUTDIR" ] || { echo "run_atom_timing.sh: one OUTDIR only" >&2; exit 2; }; OUTDIR=$1; shift ;;
    esac
done
[ -n "$OUTDIR" ] || { usage >&2; exit 2; }
for tool in nvcc cuobjdump; do
    command -v "$tool" > /dev/null || { echo "run_atom_timing.sh: $tool is not on PATH (the CUDA toolkit's bin/)" >&2; exit 2; }
done
mkdir -p "$OUTDIR"
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true) > "$OUTDIR/gpu.txt"
nvcc -O3 -arch="$ARCH" -o "$BIN/probe_atom_timing" "$HERE/probe_atom_timing.cu"
cuobjdump -sass "$BIN/probe_atom_timing" > "$OUTDIR/atom_timing.sass"

# kernel name -> its distinct shared or generic load / atomic opcodes (LDS, LD, ATOMS, ATOM,
# RED: a generic one would mean the compiler lost the shared address space), in order
opcodes() {
    awk -v fn="$1" '
        /Function : / { cur = $NF; next }
        cur == fn {
            for (i = 1; i <= NF; i++) if ($i ~ /^(LDS|LD|STS|ATOMS|ATOM|RED)(\.|$)/) {
                op = $i; sub(/[;,].*$/, "", op)
                if (!(op in seen)) { seen[op] = 1; out = out (out == "" ? "" : " ") op }
            }
        }
        END { print out }' "$OUTDIR/atom_timing.sass"
}
declare -A SASS
for op in ld atom red_inc red_add st; do
    s=$(opcodes "thr_$op")
    if [ "$op" = ld ] || [ "$op" = atom ]; then
        l=$(opcodes "lat_$op")
        [ "$l" = "$s" ] || s="lat: $l; thr: $s"
    fi
    # (every kernel's prologue stores the words' first values: STS is the st op's own)
    [ "$op" = st ] || s=$(echo "$s" | sed 's/STS *//g; s/ *$//')
    SASS[$op]=$s
done

"$BIN/probe_atom_timing" "${ITERS_LAT:-4096}" "${ITERS_THR:-512}" | while IFS= read -r line; do
    case "$line" in
        op,*) echo "$line,sass" ;;
        *) echo "$line,${SASS[${line%%,*}]}" ;;
    esac
done | tee "$OUTDIR/atom_timing.csv"
