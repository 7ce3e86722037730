#!/usr/bin/env bash
# Text-trace speed on a many-core machine, side by side: `wc -l` (the floor: reading the
# file), `banksim run --threads N` for several N, and the plain-Python reference model
# (tools/compare.py, on the trace's first records), with the ratios between them.
#
# The trace is a mix made with `banksim gen` alone (no cargo, no network): BLOCKS blocks
# of 256 threads, each one of 16 block kinds of about 64 steps, built from strided
# 4-byte loads and stores (strides 1 to 33), random 4-byte loads, 16-byte GEMM tile
# loads, AoS loads, a padded/unpadded 16x16 tile with its barrier, and loads with every
# third lane masked off; block b is kind b mod 16, blocks in order. 1024 blocks make
# about 16 M records, 350 MB (the size of docs/performance.md's /tmp/mix.csv).
#
# Usage:  tools/text_speed.sh [options]
#   --banksim PATH    the banksim binary (default: target/release/banksim, else banksim on PATH)
#   --blocks N        blocks of the generated mix (default 1024)
#   --trace FILE      time this text trace instead of generating one
#   --dir DIR         where the generated trace goes (default: a new folder in $TMPDIR,
#                     removed at the end unless --keep)
#   --keep            keep the generated trace (its path is printed)
#   --threads "N..."  banksim thread counts (default "1 2 4 8 16", those above nproc
#                     dropped, nproc added)
#   --reps R          runs per timing, the best kept (default 3)
#   --py-records N    records of the trace given to tools/compare.py (default 1000000)
#   -h, --help        this text
# Examples:
#   tools/text_speed.sh                               # 1024-block mix, all the defaults
#   tools/text_speed.sh --blocks 4096 --threads "1 16"
#   tools/text_speed.sh --trace /tmp/mix.csv --reps 5
# Run from anywhere; prints a table on standard output. Needs bash, awk, python3.
set -euo pipefail
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "text_speed.sh: $*" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BANKSIM=; BLOCKS=1024; TRACE=; DIR=; KEEP=0; THREADS=; REPS=3; PYREC=1000000
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --banksim) BANKSIM=${2:?--banksim needs a path}; shift 2 ;;
        --blocks) BLOCKS=${2:?--blocks needs a number}; shift 2 ;;
        --trace) TRACE=${2:?--trace needs a file}; shift 2 ;;
        --dir) DIR=${2:?--dir needs a folder}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --threads) THREADS=${2:?--threads needs a list}; shift 2 ;;
        --reps) REPS=${2:?--reps needs a number}; shift 2 ;;
        --py-records) PYREC=${2:?--py-records needs a number}; shift 2 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: expected a positive whole number, got '$2'"; }
posint --blocks "$BLOCKS"; posint --reps "$REPS"; posint --py-records "$PYREC"
if [ -z "$BANKSIM" ]; then
    if [ -x "$ROOT/target/release/banksim" ]; then BANKSIM=$ROOT/target/release/banksim; else BANKSIM=banksim; fi
fi
command -v "$BANKSIM" > /dev/null || die "--banksim: '$BANKSIM' is not an executable"
NPROC=$(nproc)
if [ -z "$THREADS" ]; then
    THREADS=
    for n in 1 2 4 8 16; do [ "$n" -le "$NPROC" ] && THREADS="$THREADS $n"; done
    case " $THREADS " in *" $NPROC "*) ;; *) THREADS="$THREADS $NPROC" ;; esac
fi
for n in $THREADS; do posint --threads "$n"; done

WORK=
if [ -z "$DIR" ]; then WORK=$(mktemp -d); DIR=$WORK; else mkdir -p "$DIR"; fi
cleanup() { if [ "$KEEP" = 0 ] && [ -n "$WORK" ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# ---- the mix: 16 block kinds, each a run of `banksim gen` outputs with their steps
# shifted to follow one another, then BLOCKS blocks, block b a copy of kind b mod 16
if [ -z "$TRACE" ]; then
    TRACE=$DIR/mix_$BLOCKS.csv
    T=$DIR/kinds.csv
    : > "$T"
    # append `banksim gen ARGS` to kind $kind after step $step (MASK=1: every third lane dropped)
    part() {
        local mask=$1
        shift
        "$BANKSIM" gen -q "$@" | sed 1d \
            | awk -F, -v OFS=, -v k="$kind" -v off="$step" -v m="$mask" '!m || $2 % 3 != 0 { $1 = k; $3 += off; print }' >> "$T"
        step=$(($(awk -F, -v k="$kind" '$1 == k && $3 > m { m = $3 } END { print m + 0 }' "$T") + 1))
    }
    for kind in $(seq 0 15); do
        step=0
        s=$((2 * kind + 1))
        while [ "$step" -lt 64 ]; do
            part 0 strided threads=256 stride=$s
            part 0 strided threads=256 stride=$((s + 1)) store=1
            part 0 random threads=256 steps=4 range=8192 seed=$((kind * 97 + step + 1))
            part 0 gemm skew=$((kind % 2 * 4))
            part 0 aos threads=256 k=$((kind % 4 + 1))
            part 0 tile pad=$((kind % 3))
            part 1 strided threads=256 stride=1 offset=$step
        done
    done
    echo "generating $BLOCKS blocks into $TRACE" >&2
    awk -F, -v OFS=, -v blocks="$BLOCKS" '
        { n[$1]++; line[$1, n[$1]] = $0 }
        END {
            print "block,thread,step,op,addr,bytes"
            for (b = 0; b < blocks; b++) {
                k = b % 16
                for (i = 1; i <= n[k]; i++) { $0 = line[k, i]; $1 = b; print }
            }
        }' "$T" > "$TRACE"
    rm -f "$T"
else
    [ -r "$TRACE" ] || die "--trace: cannot read '$TRACE'"
fi

RECORDS=$(($(wc -l < "$TRACE") - 1))
BYTES=$(wc -c < "$TRACE")
cat "$TRACE" > /dev/null   # page cache warm for every reader

# best of REPS wall times of a command, in seconds
best() {
    local b= t0 t1 s
    for _ in $(seq "$REPS"); do
        t0=$(date +%s%N); "$@" > /dev/null; t1=$(date +%s%N)
        s=$(awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.4f", (z - a) / 1e9 }')
        if [ -z "$b" ] || awk -v x="$s" -v y="$b" 'BEGIN { exit !(x < y) }'; then b=$s; fi
    done
    echo "$b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n / s / 1e6 }'; }

echo "trace $TRACE: $RECORDS records, $((BYTES / 1048576)) MiB; $NPROC CPUs; best of $REPS runs"
echo "banksim: $("$BANKSIM" --version)"
T_WC=$(best wc -l "$TRACE")
printf '%-34s %9s s  %8s M records/s\n' "wc -l" "$T_WC" "$(rate "$RECORDS" "$T_WC")"
T1=
declare -A TN
for n in $THREADS; do
    t=$(best "$BANKSIM" run -q --config h100 --threads "$n" "$TRACE")
    TN[$n]=$t
    [ -n "$T1" ] || T1=$t
    printf '%-34s %9s s  %8s M records/s  %6sx wc -l  speedup %5s over %s thread(s)\n' \
        "banksim run --threads $n" "$t" "$(rate "$RECORDS" "$t")" "$(ratio "$t" "$T_WC")" \
        "$(ratio "$T1" "$t")" "${THREADS%% *}"
done

# the plain-Python reference on the first PYREC records (its own timing, in compare.py)
SMALL=$DIR/first_$PYREC.csv
head -n $((PYREC + 1)) "$TRACE" > "$SMALL"
PYREC_REAL=$(($(wc -l < "$SMALL") - 1))
PYOUT=$(python3 "$ROOT/tools/compare.py" --banksim "$BANKSIM" "$SMALL") || { echo "$PYOUT"; die "tools/compare.py failed"; }
rm -f "$SMALL" "${SMALL%.csv}.bsim"
echo "tools/compare.py on the first $PYREC_REAL records:"
echo "$PYOUT" | sed 's/^/    /'
T_PY=$(echo "$PYOUT" | awk '/^python reference, whole script/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s") { print $i; exit } }')
[ -n "$T_PY" ] || die "tools/compare.py printed no 'python reference, whole script' time"
PY_RATE=$(awk -v n="$PYREC_REAL" -v s="$T_PY" 'BEGIN { printf "%.4f", n / s / 1e6 }')
printf '%-34s %9s s  %8s M records/s (on %s records)\n' "python reference, whole script" "$T_PY" "$PY_RATE" "$PYREC_REAL"
echo "banksim run on the whole trace against the Python reference, records per second:"
for n in $THREADS; do
    printf '    --threads %-4s %10sx\n' "$n" "$(awk -v n="$RECORDS" -v s="${TN[$n]}" -v p="$PY_RATE" 'BEGIN { printf "%.0f", n / s / 1e6 / p }')"
done
if [ "$KEEP" = 1 ] && [ -n "$WORK" ]; then echo "kept: $TRACE"; fi
