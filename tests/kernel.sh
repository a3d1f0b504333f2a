#!/usr/bin/env bash
# make check entry for surand.ko: runs scripts/kernel-test.sh (Debian's 6.1
# kernel under qemu TCG, about 2-3 minutes) and passes its PASS/FAIL lines on.
# Missing prerequisites: SKIP with the apt-get line, FAIL under
# SURAND_REQUIRE_ALL=1 (CI).  The guest's summary becomes a "#" line: the
# run's only summary is scripts/run-tests.sh's.
set -u
cd "$(dirname "$0")/.." || exit 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# SURAND_TEST_QUICK=1: a smaller threads test (16 x 2,000 x 16 B).
if [ "${SURAND_TEST_QUICK:-0}" = 1 ] && [ -z "${KTEST_THREAD_READS:-}" ]; then
	export KTEST_THREAD_READS=2000
fi
bash scripts/kernel-test.sh >"$out" 2> >(sed 's/^/# /' >&2)
rc=$?
wait
if [ "$rc" = 77 ]; then
	word=SKIP
	[ "${SURAND_REQUIRE_ALL:-0}" = 1 ] && word="FAIL" && pre="skipped under SURAND_REQUIRE_ALL=1: "
	what=$(sed -n 's/^MISSING: //p' "$out" | sed 's/ (apt-get install [^)]*)//' | paste -sd ',' | sed 's/,/, /g')
	pkgs=$(grep -o 'apt-get install [^)]*' "$out" | sed 's/apt-get install //' | tr '\n' ' ' | sed 's/ $//')
	echo "$word kernel: ${pre:-}missing $what${pkgs:+ (apt-get install $pkgs)}"
	exit 0
fi
grep -E '^(PASS|FAIL|SKIP) ' "$out"
grep -E '^# ' "$out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$out"; then
	echo "FAIL kernel: scripts/kernel-test.sh exited $rc"
	tail -n 20 "$out" | sed 's/^/# /'
fi
exit 0
