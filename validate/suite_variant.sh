# One variant of a kernel suite, shared by validate/run_gpu_suite.sh and
# validate/run_unseen.sh (sourced, not run): `variant NAME KERNEL MEASURE_DISPATCH
# CAPTURE_DISPATCH [ARGS..] [-- CAPTURE_ARGS..]` collects the driver's statistics of the
# kernel (its --override arguments), times it with ARGS, captures it with CAPTURE_ARGS
# (default: ARGS) and simulates the capture, each as the script's mode asks. Uses the
# sourcing script's BANKSIM, K (kernel folder), OUT, REPS, WARMUP, ADAPTER_ARGS, STATS,
# STATS_ONLY, MEASURE_ONLY and CAPTURE_ONLY.
variant() {
    local name=$1 kernel=$2 mdisp=$3 cdisp=$4
    shift 4
    local margs=() cargs=() seen=0
    for a in "$@"; do
        if [ "$a" = "--" ]; then seen=1; elif [ $seen = 0 ]; then margs+=("$a"); else cargs+=("$a"); fi
    done
    if [ $seen = 0 ]; then cargs=("${margs[@]}"); fi
    echo "== $name"
    if [ "$STATS" = 1 ]; then
        # the driver's statistics of the code it compiles (only overrides change it)
        local oargs=() i
        for ((i = 0; i < ${#margs[@]}; i++)); do
            if [ "${margs[i]}" = "--override" ]; then oargs+=(--override "${margs[i + 1]}"); fi
        done
        "$BANKSIM" shader-stats "$K/$kernel" "${oargs[@]}" "${ADAPTER_ARGS[@]}" --label "$name" \
            --csv "$OUT/shader_stats.csv" > /dev/null || { [ "$STATS_ONLY" = 1 ] && exit 1; STATS=0; }
    fi
    if [ "$STATS_ONLY" = 1 ]; then return; fi
    if [ "$CAPTURE_ONLY" != 1 ]; then "$BANKSIM" measure "$K/$kernel" --dispatch "$mdisp" "${margs[@]}" "${ADAPTER_ARGS[@]}" \
        --reps "$REPS" --warmup "$WARMUP" --label "$name" \
        --json "$OUT/json/$name.json" --csv "$OUT/measure.csv"; fi
    if [ "$MEASURE_ONLY" = 1 ]; then return; fi
    "$BANKSIM" capture "$K/$kernel" --dispatch "$cdisp" "${cargs[@]}" "${ADAPTER_ARGS[@]}" \
        -o "$OUT/traces/$name.csv" > "$OUT/traces/$name.log"
    if [ "$CAPTURE_ONLY" != 1 ]; then
        "$BANKSIM" run --config h100 --cycles "$OUT/traces/$name.csv" > "$OUT/sim/$name.txt"
    fi
}
