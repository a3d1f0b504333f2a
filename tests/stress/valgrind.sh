#!/usr/bin/env bash
# tests/stress/valgrind.sh - make valgrind: memcheck over the API tests with
# the ChaCha20 body forced to each of VALGRIND_IMPLS (valgrind has no
# AVX-512), in two workers side by side (one per core; the plan is below).  Children are traced
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
# One (test, body) pair under memcheck; prints its RELIABILITY line.
one_run() {
	local t=$1 impl=$2 t0 rc errs p f res dir
	[ -x "$BUILD/test/$t" ] || return 0
	dir=$R/valgrind-$t-$impl
	rm -rf "$dir"; mkdir -p "$dir"
	t0=$(date +%s)
	SURAND_VALGRIND=1 SURAND_CHACHA_IMPL=$impl valgrind $OPTS --log-file="$dir/%p.log" \
		"$BUILD/test/$t" >"$dir/out" 2>&1
	rc=$?
	errs=$(cat "$dir"/*.log 2>/dev/null | grep -cE "$ERR_RE")
	p=$(grep -c '^PASS ' "$dir/out"); f=$(grep -c '^FAIL ' "$dir/out")
	res=pass
	if [ "$rc" -ne 0 ] || [ "$errs" -ne 0 ]; then res=FAIL; fi
	echo "RELIABILITY valgrind-$t[$impl]|memcheck (children traced), $p cases passed, $f failed, $(($(date +%s) - t0)) s|$res|0|0|$errs"
	if [ $res = FAIL ]; then
		grep '^FAIL' "$dir/out"
		cat "$dir"/*.log | head -80
		return 1
	fi
	rm -rf "$dir"
}
one_worker() { # test:body pairs, one after the other
	local job fail=0
	for job in "$@"; do one_run "${job%%:*}" "${job#*:}" || fail=1; done
	return $fail
}
# The plan: every test under every body of IMPLS, except the SLOW ones
# (VALGRIND_SLOW, default test_faults: minutes under memcheck), which run under
# the first body only ("forced to AVX2 or portable").  Two workers,
# one per core: the first runs the slow tests and the PAIRED ones
# (VALGRIND_PAIRED, default test_backends) under the first body; the second
# runs everything else.  On 2 cores the two take about as long.
SLOW=${VALGRIND_SLOW:-test_faults}
PAIRED=${VALGRIND_PAIRED:-test_backends}
first=${IMPLS%% *}
w1=() w2=()
for t in $TESTS; do
	case " $SLOW $PAIRED " in *" $t "*) w1+=("$t:$first") ;; esac
done
for impl in $IMPLS; do
	for t in $TESTS; do
		case " $SLOW " in *" $t "*) continue ;; esac
		[ "$impl" = "$first" ] && case " $PAIRED " in *" $t "*) continue ;; esac
		w2+=("$t:$impl")
	done
done
# Without a slow test the first worker takes the first body's half.
if [ ${#w1[@]} -eq 0 ]; then
	half=$(( ${#w2[@]} / 2 ))
	w1=("${w2[@]:0:$half}") w2=("${w2[@]:$half}")
fi
one_worker "${w1[@]}" >"$R/valgrind-w1.txt" 2>&1 &
p1=$!
one_worker "${w2[@]}" >"$R/valgrind-w2.txt" 2>&1 &
p2=$!
fail=0
wait $p1 || fail=1
wait $p2 || fail=1
cat "$R/valgrind-w1.txt" "$R/valgrind-w2.txt"
exit $fail
