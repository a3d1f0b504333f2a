#!/usr/bin/env bash
# tests/stress/valgrind.sh - make valgrind: memcheck over the API tests with
# the ChaCha20 body forced to each of VALGRIND_IMPLS (valgrind has no
# AVX-512), the bodies run side by side (one per core).  Children are traced
# (--trace-children=yes), every process logs to its own file, and a run
# passes when the test passes and no process reported a memcheck error or a
# definite leak.  One RELIABILITY line per test and body.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
R=$BUILD/reliability
TESTS=${VALGRIND_TESTS:?}
IMPLS=${VALGRIND_IMPLS:-avx2 portable}
OPTS=${VALGRIND_OPTS:--q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --trace-children=yes --child-silent-after-fork=no}
# With -q memcheck prints only its reports; each starts with one of these.
ERR_RE='^==[0-9]+== (Invalid |Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function|.* definitely lost|Process terminating)'
mkdir -p "$R"
one_impl() {
	local impl=$1 t t0 rc errs p f res fail=0 dir
	for t in $TESTS; do
		[ -x "$BUILD/test/$t" ] || continue
		dir=$R/valgrind-$t-$impl
		rm -rf "$dir"; mkdir -p "$dir"
		t0=$(date +%s)
		SURAND_VALGRIND=1 SURAND_CHACHA_IMPL=$impl valgrind $OPTS --log-file="$dir/%p.log" \
			"$BUILD/test/$t" >"$dir/out" 2>&1
		rc=$?
		errs=$(cat "$dir"/*.log 2>/dev/null | grep -cE "$ERR_RE")
		p=$(grep -c '^PASS ' "$dir/out"); f=$(grep -c '^FAIL ' "$dir/out")
		res=pass
		if [ "$rc" -ne 0 ] || [ "$errs" -ne 0 ]; then res=FAIL; fail=1; fi
		echo "RELIABILITY valgrind-$t[$impl]|memcheck (children traced), $p cases passed, $f failed, $(($(date +%s) - t0)) s|$res|0|0|$errs"
		if [ $res = FAIL ]; then
			grep '^FAIL' "$dir/out"
			cat "$dir"/*.log | head -80
		else
			rm -rf "$dir"
		fi
	done
	return $fail
}
pids=()
for impl in $IMPLS; do
	one_impl "$impl" >"$R/valgrind-$impl.txt" 2>&1 &
	pids+=($!)
done
fail=0
for pid in "${pids[@]}"; do wait "$pid" || fail=1; done
for impl in $IMPLS; do cat "$R/valgrind-$impl.txt"; done
exit $fail
