#!/usr/bin/env bash
# tests/reliability.sh - the reliability area's tool-level checks (make check):
#   corpus_<target>[<backend>]  tests/corpus/<target>/ replayed through each
#                               fuzz harness built with gcc (build/fuzz-replay/);
#                               getrandom and entropy once per backend
#   fips_vs_rngtest_*           tests/stress/fips.h agrees with rngtest
#                               (rng-tools5) block for block on streams with
#                               known defects (bias, long runs) and a good one,
#                               counted with rngtest's carry of the last bit
#                               from block to block (fips.h, fips_block_peer)
#   stats_output_*[<backend>]   `surand stats` (with SURAND_DEBUG=1 too) prints
#                               printable counters only: no run of 16 or more
#                               hex digits or 22 base64 characters, which is
#                               what a printed key or state would look like
# Prints PASS/FAIL/SKIP lines and RELIABILITY lines for RELIABILITY.md.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
R=$BUILD/reliability
pass() { echo "PASS reliability/$1"; }
fail() { echo "FAIL reliability/$1: $2"; }
skip() {
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ]; then
		echo "FAIL reliability/$1: skipped under SURAND_REQUIRE_ALL=1: $2"
	else
		echo "SKIP reliability/$1: $2"
	fi
}
backends=$("$R/backend-names" 2>/dev/null || echo thread)

# ---- corpus replay ------------------------------------------------------------
for t in getrandom entropy cli_parse preload_match fuse_read; do
	bin=$BUILD/fuzz-replay/fuzz_$t
	case $t in getrandom | entropy) bs=${backends//,/ } ;; *) bs=thread ;; esac
	for b in $bs; do
		name="corpus_$t[$b]"
		if [ ! -x "$bin" ]; then fail "$name" "$bin not built"; continue; fi
		n=$(ls "tests/corpus/$t" | wc -l)
		if out=$(SURAND_BACKEND=$b "$bin" "tests/corpus/$t" 2>&1); then
			pass "$name"
			echo "RELIABILITY corpus-$t[$b]|$n regression inputs replayed (gcc, no libFuzzer)|pass|0|0|0"
		else
			fail "$name" "$(echo "$out" | tail -3 | tr '\n' ' ')"
			echo "RELIABILITY corpus-$t[$b]|$n regression inputs replayed|FAIL|0|1|0"
		fi
	done
done

# ---- FIPS implementation against rngtest ----------------------------------------
if ! command -v rngtest >/dev/null 2>&1; then
	skip fips_vs_rngtest "rngtest is not installed (apt-get install rng-tools5)"
else
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	for kind in biased longruns good; do
		case $kind in
		good) "$BUILD/surand" -n 2500004 >"$tmp" ;;
		*) "$R/fipscheck" --$kind 2500004 7 >"$tmp" ;;
		esac
		# Counted as rngtest counts across blocks (tests/stress/fips.h,
		# fips_block_peer): its first-bit run count lands in poker[15] or
		# in the long zero runs, which moves a block near a bound.
		ours=$("$R/fipscheck" --skip 4 --as-rngtest <"$tmp")
		theirs=$(rngtest <"$tmp" 2>&1)
		tf=$(echo "$theirs" | sed -n 's/.*FIPS 140-2 failures: //p')
		tm=$(echo "$theirs" | sed -n 's/.*Monobit: //p')
		tp=$(echo "$theirs" | sed -n 's/.*Poker: //p')
		tr_=$(echo "$theirs" | sed -n 's/.*) Runs: //p')
		tl=$(echo "$theirs" | sed -n 's/.*Long run: //p')
		want="blocks 1000 fail $tf monobit $tm poker $tp runs $tr_ long $tl"
		if [ "$ours" = "$want" ]; then
			pass "fips_vs_rngtest_$kind"
			echo "RELIABILITY fips-vs-rngtest[$kind]|2.5 MB, 1000 blocks: ours and rngtest agree ($ours)|pass|0|0|0"
		else
			fail "fips_vs_rngtest_$kind" "ours: $ours; rngtest: $want"
		fi
		case $kind in
		biased) [ "${tm:-0}" -gt 20 ] || fail "fips_vs_rngtest_${kind}_control" "only $tm monobit failures on a biased stream" ;;
		longruns) [ "${tl:-0}" -ge 100 ] || fail "fips_vs_rngtest_${kind}_control" "only $tl long-run failures" ;;
		esac
	done
fi

# ---- surand stats holds no state ---------------------------------------------------
for b in ${backends//,/ }; do
	for dbg in 0 1; do
		name="stats_output_debug$dbg[$b]"
		out=$(SURAND_BACKEND=$b SURAND_DEBUG=$dbg "$BUILD/surand" stats 2>&1)
		rc=$?
		if [ $rc -ne 0 ]; then fail "$name" "surand stats exited $rc"; continue; fi
		bad=$(printf '%s' "$out" | LC_ALL=C grep -aE '[0-9a-fA-F]{16,}|[A-Za-z0-9+/]{22,}' | head -1)
		nonprint=$(printf '%s' "$out" | LC_ALL=C tr -d '[:print:]\n\t' | wc -c)
		lines=$(printf '%s\n' "$out" | wc -l)
		if [ -n "$bad" ]; then
			fail "$name" "a key-like run in the output: $bad"
		elif [ "$nonprint" -ne 0 ]; then
			fail "$name" "$nonprint non-printable bytes in the output"
		elif ! printf '%s' "$out" | grep -q "^backend: *$b\$"; then
			fail "$name" "the output does not name backend $b"
		else
			pass "$name"
			echo "RELIABILITY stats-output[$b]$([ $dbg = 1 ] && echo ' SURAND_DEBUG=1')|surand stats: $lines lines, no key-like run, printable only|pass|0|0|0"
		fi
	done
done
exit 0
