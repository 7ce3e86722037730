#!/usr/bin/env python3
"""Join ncu CSV output of probe_atom (three kernels per pattern, in order) with the
pattern file into pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts."""
import argparse
import csv
import io

_ap = argparse.ArgumentParser(description=__doc__)
_ap.add_argument("patterns", metavar="PATTERNS.txt", help="the pattern file the probe ran, in the same order")
_ap.add_argument("ncu_csv", metavar="NCU_RAW.csv", help="ncu --csv output of that run")
_ap.add_argument("out", metavar="OUT.csv", help="the table to write")
ARGS = _ap.parse_args()
pats = [l.split()[0] for l in open(ARGS.patterns)]
lines = [l for l in open(ARGS.ncu_csv) if l.startswith('"')]
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
out = open(ARGS.out, 'w')
out.write('pattern,kernel,atom_insts,atom_wavefronts,atom_conflicts,ld_wavefronts,st_wavefronts,all_wavefronts\n')
for k, i in enumerate(ids):
    m = by_id[i]
    out.write(pats[k // 3] + ',' + m['kernel'] + ',' + ','.join(m[c] for c in cols) + '\n')
