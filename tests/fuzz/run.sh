#!/usr/bin/env bash
# tests/fuzz/run.sh - runs the libFuzzer harnesses (make fuzz).
#   FUZZ_DIR     where the binaries are (build/fuzz)
#   FUZZ_SECONDS seconds per harness (default 20)
#   FUZZ_TARGETS harnesses (default: all)
# getrandom and entropy are run once per backend (surand_backend_names(), as
# build/reliability/backend-names prints it; SURAND_BACKEND selects): the
# default for FUZZ_SECONDS, each other backend for a quarter of it (at least
# 5 s).  Each new input libFuzzer finds
# goes to $FUZZ_DIR/corpus-<target>; tests/corpus/<target>/ is the seed and
# regression corpus (read only here).  A crash stops the run: the input is in
# $FUZZ_DIR/crash-<target>-*; fix the code, then keep the input in
# tests/corpus/<target>/ (make check replays it).
# Prints one "RELIABILITY fuzz-<target>[<backend>]|..." line per run.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
FUZZ_DIR=${FUZZ_DIR:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_TARGETS=${FUZZ_TARGETS:-getrandom entropy cli_parse preload_match fuse_read}
BACKENDS=${FUZZ_BACKENDS:-$(build/reliability/backend-names 2>/dev/null || echo thread)}
fail=0
run() { # target backend seconds
	local t=$1 b=$2 s=$3 t0 log runs cov rc
	log=$FUZZ_DIR/fuzz-$t-$b.log
	mkdir -p "$FUZZ_DIR/corpus-$t" "tests/corpus/$t"
	t0=$(date +%s)
	SURAND_BACKEND=$b "$FUZZ_DIR/fuzz_$t" -max_total_time="$s" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$FUZZ_DIR/crash-$t-" \
		"$FUZZ_DIR/corpus-$t" "tests/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ "$rc" -ne 0 ]; then
		tail -40 "$log"
		echo "RELIABILITY fuzz-$t[$b]|$s s, libFuzzer + ASan + UBSan, ${runs:-?} inputs|FAIL|0|1|0"
		echo "fuzz $t ($b): CRASH; input in $FUZZ_DIR/crash-$t-* (fix, then keep it in tests/corpus/$t/)"
		fail=1
		return
	fi
	echo "RELIABILITY fuzz-$t[$b]|$s s, libFuzzer + ASan + UBSan, $runs inputs, $cov|pass|0|0|0"
	echo "=== fuzz $t ($b): $runs inputs, $cov, $(($(date +%s) - t0)) s"
}
for t in $FUZZ_TARGETS; do
	[ -x "$FUZZ_DIR/fuzz_$t" ] || { echo "fuzz: $FUZZ_DIR/fuzz_$t not built"; exit 2; }
	case $t in
	getrandom | entropy)
		first=1
		for b in ${BACKENDS//,/ }; do
			if [ $first = 1 ]; then run "$t" "$b" "$FUZZ_SECONDS"; first=0
			else q=$((FUZZ_SECONDS / 4)); [ $q -lt 5 ] && q=5; run "$t" "$b" "$q"; fi
			[ $fail = 0 ] || exit 1
		done ;;
	*) run "$t" thread "$FUZZ_SECONDS"; [ $fail = 0 ] || exit 1 ;;
	esac
done
exit $fail
