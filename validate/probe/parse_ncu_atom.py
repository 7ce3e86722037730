#!/usr/bin/env python3
"""Join ncu CSV output of probe_atom (three kernels per pattern, in order) with the
pattern file into pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts."""
import csv, sys, io
pats = [l.split()[0] for l in open(sys.argv[1])]
lines = [l for l in open(sys.argv[2]) if l.startswith('"')]
rows = list(csv.DictReader(io.StringIO(''.join(lines))))
by_id = {}
for r in rows:
    d = by_id.setdefault(int(r['ID']), {'kernel': r['Kernel Name'].split('(')[0]})
    d[r['Metric Name']] = r['Metric Value'].replace(',', '')
ids = sorted(by_id)
assert len(ids) == 3 * len(pats), (len(ids), len(pats))
cols = ['smsp__inst_executed_op_shared_atom.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum',
        'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum',
        'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared.sum']
out = open(sys.argv[3], 'w')
out.write('pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts\n')
for k, i in enumerate(ids):
    m = by_id[i]
    out.write(pats[k // 3] + ',' + m['kernel'] + ',' + ','.join(m[c] for c in cols) + '\n')
