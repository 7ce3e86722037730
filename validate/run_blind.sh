#!/usr/bin/env bash
# A blind check of `banksim predict`: kernels the model was never fitted to, predicted
# before they are timed. The manifest (e.g. validate/kernels/blind2/families.csv) lists
# one variant per row,
#
#   label,family,kernel,overrides,dispatch,binds,expected_conflict
#
# (overrides `NAME=VALUE;...`, dispatch `X` or `X,Y`, binds `G.B=SPEC ...`, the family's
# reference, its conflict-free variant, first). Three steps, each a mode:
#
#   PREDICT=1   anywhere (lavapipe too): `banksim predict` of every variant exactly as a
#               user runs it (its dispatch, its binds, the default capture) with no
#               measurement: OUT/predictions.csv (label, family, predicted_us,
#               no_conflicts_us, conflict_us) and OUT/json/LABEL.predict.json. Commit
#               these with the kernels before timing them: the commit is the proof.
#   MEASURE=1   on the GPU: `banksim measure` of every variant: OUT/measure.csv
#   REPORT=1    anywhere, after both: each variant's speedup over its family's reference
#               predicted from the reference's measured time (`banksim predict
#               --reference`), against the measured speedup, and the time with no
#               measurement against the measured time: OUT/report.csv and a summary on
#               standard output. Nothing of the model may change between PREDICT and
#               REPORT (the report says which banksim made each, and REPORT stops
#               where the tree's code or presets, tests and benchmarks aside, differ
#               from the predictions' commit).
#
# Usage:  PREDICT=1 validate/run_blind.sh MANIFEST OUTDIR     (then MEASURE=1, REPORT=1)
# Env:    BANKSIM (default target/release/banksim), REPS (30), WARMUP (5), ADAPTER
#         (--adapter for every command), CONFIG (preset, default h100)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
MANIFEST=${1:?usage: validate/run_blind.sh MANIFEST OUTDIR}
OUT=${2:?usage: validate/run_blind.sh MANIFEST OUTDIR}
cd "$(dirname "$0")/.."
BANKSIM=${BANKSIM:-target/release/banksim}
REPS=${REPS:-30}
WARMUP=${WARMUP:-5}
CONFIG=${CONFIG:-h100}
DIR=$(dirname "$MANIFEST")
ADAPTER_ARGS=()
if [ -n "${ADAPTER:-}" ]; then ADAPTER_ARGS=(--adapter "$ADAPTER"); fi
mkdir -p "$OUT/json"

# the arguments of a row: --override and --bind options
args_of() {
    local overrides=$1 binds=$2 o b
    ARGS=()
    IFS=';' read -ra os <<< "$overrides"
    for o in "${os[@]}"; do [ -n "$o" ] && ARGS+=(--override "$o"); done
    for b in $binds; do ARGS+=(--bind "$b"); done
    return 0
}

# the manifest's rows as `|`-separated fields (a CSV field may hold commas in quotes)
rows() {
    python3 -c 'import csv, sys
for r in csv.DictReader(l for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")):
    print("|".join(r[k] or "" for k in ("label", "family", "kernel", "overrides", "dispatch", "binds")))' "$MANIFEST"
}

if [ "${PREDICT:-0}" = 1 ]; then
    echo "label,family,predicted_us,no_conflicts_us,conflict_us,model" > "$OUT/predictions.csv"
    # the model: the commit the binary was built from (a tree with changes says so)
    version="$("$BANKSIM" --version) $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!validate/results' 2>/dev/null || echo +changes)"
    while IFS="|" read -r label family kernel overrides dispatch binds; do
        args_of "$overrides" "$binds"
        echo "== $label"
        "$BANKSIM" predict "$DIR/$kernel" --dispatch "$dispatch" "${ARGS[@]}" "${ADAPTER_ARGS[@]}" -c "$CONFIG" \
            --json "$OUT/json/$label.predict.json" > "$OUT/json/$label.predict.txt"
        python3 - "$OUT/json/$label.predict.json" "$label" "$family" "$version" >> "$OUT/predictions.csv" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]},{sys.argv[3]},{d['predicted_us']:.3f},{d['no_conflicts_us']:.3f},{d['conflict_us']:.3f},{sys.argv[4]}")
EOF
    done < <(rows)
    echo "done: $OUT/predictions.csv"
fi

if [ "${MEASURE:-0}" = 1 ]; then
    while IFS="|" read -r label family kernel overrides dispatch binds; do
        args_of "$overrides" "$binds"
        echo "== $label"
        "$BANKSIM" measure "$DIR/$kernel" --dispatch "$dispatch" "${ARGS[@]}" "${ADAPTER_ARGS[@]}" \
            --reps "$REPS" --warmup "$WARMUP" --label "$label" --json "$OUT/json/$label.json" --csv "$OUT/measure.csv"
    done < <(rows)
    echo "done: $OUT/measure.csv"
fi

if [ "${REPORT:-0}" = 1 ]; then
    # the report's speedups come from this tree's model: it must be the one that made
    # the predictions (their commit, and no change since to its code and presets)
    model=$(python3 -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['model'].split()[-1])" "$OUT/predictions.csv")
    case "$model" in *+changes|unknown)
        echo "error: $OUT/predictions.csv was made from a tree with changes ($model): no commit holds its model" >&2; exit 1;;
    esac
    # the model: the code and presets, not the tests and benchmarks
    model_paths=('*.rs' '*.ron' '*.toml' Cargo.lock ':!*/tests/*' ':!*/benches/*')
    if ! git diff --quiet "$model" -- "${model_paths[@]}"; then
        echo "error: the model changed since the predictions were made (commit $model):" >&2
        git diff --stat "$model" -- "${model_paths[@]}" | tail -5 >&2
        echo "build banksim at $model (git worktree add /tmp/model $model) and run REPORT=1 there" >&2
        exit 1
    fi
    [ -f "$OUT/measure.csv" ] || { echo "$OUT/measure.csv: missing (MEASURE=1 first)" >&2; exit 1; }
    # column COLUMN of the row of label LABEL in CSV FILE
    lookup() { python3 -c "import csv,sys; print(next(r[sys.argv[3]] for r in csv.DictReader(open(sys.argv[1])) if r['label']==sys.argv[2]))" "$1" "$2" "$3"; }
    median() { lookup "$OUT/measure.csv" "$1" median_us; }
    predicted() { lookup "$OUT/predictions.csv" "$1" predicted_us; }
    declare -A ref_label ref_kernel ref_args
    echo "label,family,reference,measured_us,preset_us,preset_error,measured_speedup,predicted_speedup,speedup_error,solved" > "$OUT/report.csv"
    while IFS="|" read -r label family kernel overrides dispatch binds; do
        args_of "$overrides" "$binds"
        us=$(median "$label")
        preset=$(predicted "$label")
        if [ -z "${ref_label[$family]:-}" ]; then
            ref_label[$family]=$label; ref_kernel[$family]=$kernel; ref_args[$family]="$overrides"
            echo "$label,$family,1,$us,$preset,$(python3 -c "print(f'{$preset/$us-1:.4f}')"),1,1,0,1" >> "$OUT/report.csv"
            continue
        fi
        rlabel=${ref_label[$family]}; rus=$(median "$rlabel")
        rargs=()
        IFS=';' read -ra ros <<< "${ref_args[$family]}"
        for o in "${ros[@]}"; do [ -n "$o" ] && rargs+=(--reference-override "$o"); done
        # where no cost of an operation reproduces the reference's time, the speedup is
        # the ratio of the two predictions with no measurement (and the report says so)
        solved=1
        "$BANKSIM" predict "$DIR/$kernel" --dispatch "$dispatch" "${ARGS[@]}" "${ADAPTER_ARGS[@]}" -c "$CONFIG" \
            --reference "$DIR/${ref_kernel[$family]}" --reference-us "$rus" "${rargs[@]}" \
            --json "$OUT/json/$label.reference.json" > "$OUT/json/$label.reference.txt" 2>&1 || solved=0
        rpreset=$(predicted "$rlabel")
        python3 - "$OUT/json/$label.reference.json" "$label" "$family" "$rlabel" "$us" "$rus" "$preset" "$solved" "$rpreset" >> "$OUT/report.csv" <<'EOF'
import json, sys
label, family, ref, us, rus, preset = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
solved, rpreset = sys.argv[8] == "1", float(sys.argv[9])
measured = rus / us
predicted = rus / json.load(open(sys.argv[1]))["predicted_us"] if solved else rpreset / preset
print(f"{label},{family},0,{us},{preset},{preset / us - 1:.4f},{measured:.4f},{predicted:.4f},{predicted / measured - 1:.4f},{int(solved)}")
EOF
    done < <(rows)
    python3 - "$OUT/report.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sp = [abs(float(r["speedup_error"])) for r in rows if r["reference"] == "0"]
ab = [abs(float(r["preset_error"])) for r in rows]
unsolved = sum(r["solved"] == "0" for r in rows)
print(f"speedups over the family's measured reference: {sum(e <= 0.10 for e in sp)} of {len(sp)} within 10%, median {100 * statistics.median(sp):.1f}%, worst {100 * max(sp):.1f}%")
if unsolved:
    print(f"  ({unsolved} of them from the predictions with no measurement: no cost of an operation reproduced the reference's time)")
print(f"absolute times with no measurement: {sum(e <= 0.25 for e in ab)} of {len(ab)} within 25%, median {100 * statistics.median(ab):.1f}%, worst {100 * max(ab):.1f}%")
EOF
fi
