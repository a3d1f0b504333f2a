#!/usr/bin/env bash
# Runs every test: the binaries $BUILD/test/test_* and the scripts tests/*.sh.
# Each prints PASS/FAIL/SKIP lines; this adds them up and ends with the plain
# line "N passed, N failed, N skipped".  Exit 1 on any failure, on a binary that
# died without saying FAIL (a crash), or, with SURAND_REQUIRE_ALL=1, on a skip
# (SURAND_SKIP_ALLOWED, an extended regular expression: skips whose line
# matches it are allowed even then; the cross build's emulator stage names
# the features the emulator lacks there, and nothing else may skip).
# SURAND_TESTS="a b" runs only the named tests (binary or script base names).
# SURAND_TEST_RUNNER="qemu-aarch64-static -L /usr/aarch64-linux-gnu" starts
# each test binary through it (a cross build, mk/arm64.mk); SURAND_SCRIPTS="a b"
# limits the scripts to those named (the others drive host programs).
set -u
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0 crashed=0 allowed=0
want() { [ -z "${SURAND_TESTS:-}" ] && return 0; case " $SURAND_TESTS " in *" $1 "*) return 0;; esac; return 1; }
run_one() { # name, command...
	local name=$1; shift
	want "$name" || return 0
	local t0=$SECONDS rc
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	local p f s
	p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ -n "${SURAND_SKIP_ALLOWED:-}" ]; then
		allowed=$((allowed + $(grep '^SKIP ' "$log" | grep -cE "$SURAND_SKIP_ALLOWED")))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc without a FAIL line (crash?)"
		failed=$((failed + 1)); crashed=$((crashed + 1))
	fi
	echo "# $name: $p passed, $f failed, $s skipped ($((SECONDS - t0)) s)"
}
for bin in "$BUILD"/test/test_*; do
	[ -x "$bin" ] || continue
	# shellcheck disable=SC2086 # the runner is a command line: split on purpose
	run_one "$(basename "$bin")" ${SURAND_TEST_RUNNER:-} "$bin"
done
# Sanitizer builds run the C tests only: the scripts (FUSE, qemu, preload,
# statistical batteries) run once, in the plain build.
[ "${SURAND_SKIP_SCRIPTS:-}" = 1 ] || for sh in tests/*.sh; do
	[ -f "$sh" ] || continue
	if [ -n "${SURAND_SCRIPTS+x}" ]; then
		case " $SURAND_SCRIPTS " in *" $(basename "$sh" .sh) "*) ;; *) continue;; esac
	fi
	run_one "$(basename "$sh" .sh)" bash "$sh"
done
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ "$allowed" -gt 0 ]; then echo "# $allowed of the skips name a feature the emulator lacks (SURAND_SKIP_ALLOWED)"; fi
if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ] && [ "$skipped" -gt "$allowed" ]; then exit 1; fi
exit 0
