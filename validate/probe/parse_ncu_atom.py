#!/usr/bin/env python3
"""Join ncu CSV output of probe_atom (three kernels per pattern, in order) with the
pattern file into pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts."""
from patterns_common import ncu_launches, parse_args, pattern_names

ARGS = parse_args(__doc__)
pats = pattern_names(ARGS.patterns)
launches = ncu_launches(ARGS.ncu_csv)
assert len(launches) == 3 * len(pats), (len(launches), len(pats))
cols = ['smsp__inst_executed_op_shared_atom.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum',
        'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum',
        'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum']
out = open(ARGS.out, 'w')
out.write('pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts\n')
for k, m in enumerate(launches):
    out.write(pats[k // 3] + ',' + m['kernel'] + ',' + ','.join(m[c] for c in cols) + '\n')
