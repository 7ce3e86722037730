#!/bin/bash
# Runs on the H100 device machine: ncu counters for the second batch of patterns.
set -o pipefail
OUTDIR=$(realpath -m "${1:-${OUT:-./probe-out}}"); mkdir -p "$OUTDIR"
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o /tmp/probe probe.cu || exit 1
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
timeout 400 ncu --clock-control none --kernel-name regex:probe --metrics $M --csv /tmp/probe probe patterns_extra2.txt > "$OUTDIR/ncu_extra2_raw.csv" 2> "$OUTDIR/ncu_extra2.err"; echo "ncu rc=$?"
python3 parse_ncu.py patterns_extra2.txt "$OUTDIR/ncu_extra2_raw.csv" "$OUTDIR/ncu_counts_extra2.csv" && echo "wrote ncu_counts_extra2.csv"
