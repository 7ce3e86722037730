#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions (default 10 million) or MAX_SECONDS
# (default 1800), each from a copy of its seed corpus, and prints libFuzzer's summary.
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and the nightly toolchain; without
# nightly it builds on stable with RUSTC_BOOTSTRAP=1 and no sanitizer (panics and
# aborts are still found; memory errors in unsafe code are not).
#
# Usage:  fuzz/run_all.sh
# Env:    RUNS, MAX_SECONDS (per target), TARGETS (default: text_trace binary_trace config study journal study_check config_overrides)
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
cd "$(dirname "$0")"
RUNS=${RUNS:-10000000}
MAX_SECONDS=${MAX_SECONDS:-1800}
work=$(mktemp -d)
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz run)
else
    fuzz=(env RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none)
fi
for t in ${TARGETS:-text_trace binary_trace config study journal study_check config_overrides}; do
    mkdir -p "$work/$t"
    cp corpus/$t/* "$work/$t/"
    echo "== $t: up to $RUNS runs or $MAX_SECONDS s"
    "${fuzz[@]}" "$t" "$work/$t" -- -runs="$RUNS" -max_total_time="$MAX_SECONDS" -max_len=4096 -print_final_stats=1 2>&1 \
        | grep -E "^(stat::|Done|==|INFO: Loaded|#[0-9]+ *DONE|SUMMARY|ERROR|panicked)" || true
done
