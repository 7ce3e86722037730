#!/bin/bash
# Runs on the H100 device machine: ncu counters for the extra load/store and atomic patterns.
# usage: run_extra.sh OUTDIR
set -o pipefail
OUTDIR=$(realpath -m "${1:-${OUT:-./probe-out}}"); mkdir -p "$OUTDIR"
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUTDIR/gpu.txt"
nvcc -O3 -arch=sm_90 -o /tmp/probe probe.cu || exit 1
nvcc -O3 -arch=sm_90 -o /tmp/probe_atom probe_atom.cu || exit 1
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
timeout 400 ncu --clock-control none --kernel-name regex:probe --metrics $M --csv /tmp/probe probe patterns_extra.txt > "$OUTDIR/ncu_extra_raw.csv" 2> "$OUTDIR/ncu_extra.err"; echo "ncu rc=$?"
python3 parse_ncu.py patterns_extra.txt "$OUTDIR/ncu_extra_raw.csv" "$OUTDIR/ncu_counts_extra.csv" && echo "wrote ncu_counts_extra.csv"
A=smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
timeout 150 ncu --clock-control none --metrics $A --csv /tmp/probe_atom atom_patterns_extra.txt > "$OUTDIR/ncu_atom_extra_raw.csv" 2> "$OUTDIR/ncu_atom_extra.err"; echo "ncu atom rc=$?"
