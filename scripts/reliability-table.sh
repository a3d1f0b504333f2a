#!/usr/bin/env bash
# scripts/reliability-table.sh - writes RELIABILITY.md from test output.
#
#   scripts/reliability-table.sh [--out FILE] [LOG...]
#
# Every reliability test prints machine-readable lines
#   RELIABILITY <test>[<backend>][ <build>]|<load>|<result>|<dups>|<crashes>|<leaks>
# (tests/reliability.h, tests/reliability.sh, tests/fuzz/run.sh,
# mk/reliability.mk, mk/ci-extra.sh).  This script collects them and writes
# the table: nothing in it is typed by hand.  With LOGs, only those are read
# (CI: mk/ci-extra.sh).  Without, it runs what produces them first:
#   make check's reliability tests (short loads)      -> build/reliability/check.log
#   make stress (the full design loads)               -> build/reliability/stress.log
# and adds whatever earlier `make fuzz`, `make valgrind`, `make lint` and CI
# battery logs are in build/reliability/ (ci-*.log).
# --out FILE: where to write (default RELIABILITY.md).
set -uo pipefail

# "Mutations": the last `make mutate` (tests/mutations.result, written by
# scripts/mutate.sh with MUTATE_RECORD=1), one row per mutation.
mutations_section() {
	local f=tests/mutations.result name file verdict detail
	[ -f "$f" ] || return 0
	printf '## Mutations\n\n'
	printf '`make mutate` (scripts/mutate.sh) applies each one-line mutation of `tests/mutations.txt` to a\n'
	printf 'copy of the tree, rebuilds and runs the tests the record names: a mutation they do not\n'
	printf 'catch is a gap in the tests, an equivalent one carries the reason no test can fail.\n'
	printf 'Last run: %s; %s.\n\n' "$(sed -n '1s/^# make mutate, //p' "$f")" "$(sed -n '2s/^# //p' "$f")"
	printf '| mutation | file | result |\n|---|---|---|\n'
	grep -v '^#' "$f" | while IFS='|' read -r name file verdict detail; do
		case $verdict in
		caught) printf '| %s | %s | caught by %s |\n' "$name" "$file" "$detail" ;;
		*) printf '| %s | %s | %s: %s |\n' "$name" "$file" "$verdict" "$detail" ;;
		esac
	done
	printf '\n'
}
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
R=$BUILD/reliability
out=RELIABILITY.md
logs=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	*) logs+=("$1"); shift ;;
	esac
done
mkdir -p "$R"
if [ ${#logs[@]} -eq 0 ]; then
	make -s -j2 reliability-deps >/dev/null || exit 1
	echo "reliability-table: make check's reliability tests ..." >&2
	BUILD=$BUILD SURAND_TESTS="test_stats_quality test_storms test_faults test_callstate test_entropy test_hygiene reliability" \
		bash scripts/run-tests.sh >"$R/check.log" 2>&1
	echo "reliability-table: make stress ..." >&2
	make -s stress >/dev/null 2>&1
	logs=("$R/check.log" "$R/stress.log")
	for f in "$R"/ci-valgrind.log "$R"/ci-fuzz.log "$R"/ci-batteries.log "$R"/ci-lint.log; do
		[ -f "$f" ] && logs+=("$f")
	done
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for f in "${logs[@]}"; do
	[ -f "$f" ] || { echo "reliability-table: no log $f" >&2; continue; }
	case $f in
	*check.log) run=check ;; *stress.log) run=stress ;; *) run=CI ;;
	esac
	grep -a '^RELIABILITY ' "$f" | sed "s/^RELIABILITY /$run|/" >>"$tmp"
done

section_of() {
	case $1 in
	stats-quality* | fips-vs-rngtest* | rngtest* | dieharder*) echo 1 ;;
	fork-storm* | thread-churn* | signal-storm* | cancel-storm*) echo 2 ;;
	seccomp* | kernel-refused* | fallback* | secmem* | slab-grow* | rlimit* | emfile* | droppable* | first-call* | \
		setup-not-in-handler* | signal-* | siglongjmp* | fork-paths* | jitter-qualification*) echo 3 ;;
	returned-bytes* | keys-in* | core-dump* | no-state* | stats-output*) echo 4 ;;
	fuzz-* | corpus-*) echo 5 ;;
	*) echo 6 ;;
	esac
}
titles=("" "Statistical quality" "Storms" "Faults" "Backtracking and hygiene" "Fuzzing" "Sanitizers and static analysis")

rows=$(wc -l <"$tmp")
fails=$(awk -F'|' '$4 != "pass"' "$tmp" | wc -l)
dups=$(awk -F'|' '{s += $5} END {print s + 0}' "$tmp")
crashes=$(awk -F'|' '{s += $6} END {print s + 0}' "$tmp")
leaks=$(awk -F'|' '{s += $7} END {print s + 0}' "$tmp")
# REL_COMMIT: the commit the logs came from, when that is not HEAD
commit=${REL_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

{
	cat <<'EOF'
# surand reliability

What was tried against the library, how hard, and what broke.  **This file is
generated** by `scripts/reliability-table.sh` from the `RELIABILITY ...` lines
the tests print (regenerate: `make reliability-table`); the prose is fixed, the
tables and counts are test output.  Target: zero duplicates, crashes and leaks
in every row.  Loads: `make check` runs short versions (column *run* =
check), `make stress` the full design loads (stress), and CI's extra
stages (`mk/ci-extra.sh`: valgrind, fuzzing, rngtest and dieharder) add
their rows (CI).  Every backend in `surand_backend_names()` is run; rows carry
the backend in brackets.

## How the verdicts are reached

- **FIPS 140-2** (monobit, poker, runs, long run; the 2001-10-10 intervals
  rngtest applies) on the consecutive 20,000-bit blocks of 10 MB per backend.
  A true random source fails some blocks too: about 0.08% of them.  The
  per-block false-positive rate of each test is computed at run time
  (`tests/stress/fips.h`: the binomial tails of monobit exactly, poker by its
  chi-square(15) approximation, the 12 run counts exactly by dynamic
  programming and summed, which is an upper bound, the long run exactly), and
  a run fails only when more blocks fail than a true random source exceeds
  with probability 10^-6 (for 4000 blocks: 15, against 3.2 expected).  The
  same implementation agrees with rngtest block for block
  (`fips-vs-rngtest` rows) once it files runs as rngtest does (rngtest puts a
  run that ends at a bit change under the new bit's colour and, at a block's
  start, counts one spurious run, into poker[15] for a 0 bit: tests/stress/fips.h,
  `fips_block_peer`; either moves a block next to a bound across it), and the
  CI's rngtest on 20 MB is held to the same tolerance for 8000 blocks.
- **Chi-square** of bytes (255 df) and of 16-bit pairs (65535 df): p in
  [10^-6, 1 - 10^-6]; **serial correlation** of bytes within 5 standard
  deviations.  Control streams with one known defect each are rejected by
  the statistic meant to catch it, and splitmix64 is accepted.
- **dieharder** (CI): birthdays, count-the-1s, parking lot, runs, STS monobit,
  fed through stdin by `surand -n inf`; no FAILED; a WEAK result (p outside
  [0.005, 0.995], one test in 100 by chance) is counted and that test is run
  once more on fresh bytes, where it must pass.  The 2015 pool backends make
  a few MB/s (one SHA-1 per 10 bytes), so their p-samples per test are fewer
  (what fits their share of the 5-minute budget; at least 10).  Below 100
  p-samples dieharder's final p has a far too heavy upper tail (its own
  AES_OFB generator at -p 10: 17% of results above 0.995, 2.4% above
  1 - 10^-6, none below 0.005), so there only the lower tail is judged, where
  a non-random stream lands; upper-tail results are counted as "high" in the
  row and not failed (mk/ci-extra.sh says why, with the figures).
- **Storms** check that no 16- or 32-byte value repeats among everything
  recorded (children, parent, threads, handlers) and that no value holds a
  zero 8-byte word (probability 2^-64 per word by chance).
- **Faults**: the library must fall back (seccomp: /dev/urandom) or fail
  closed exactly as `include/surand.h` promises: `surand_getrandom` and
  `surand_getentropy` return -1 with errno, `surand_bytes` and the integer
  calls print one line and abort; never zeros, never output of a key read
  from a dropped page (the zero key's ChaCha20 streams are searched for).
- **Hygiene**: memory is searched byte by byte (every writable mapping, each
  core dump) for 16-byte windows of keys, state pages and returned output; a
  control secret in ordinary memory must be found, so a search that finds
  nothing means something.
- **Leaks**: LeakSanitizer after the thread churn and the cancellation storm
  in `make sanitize`; descriptors counted before and after the cancellation
  storm; definite leaks under valgrind.

## Notes

- MAP_DROPPABLE pages *can* be dropped on demand: `madvise(MADV_PAGEOUT)` on
  a droppable mapping drops it (the reclaim path discards such pages instead
  of swapping them) and the page reads back as zeros; the `droppable-pageout`
  rows drop every droppable mapping of the process 1,000 times between calls
  and continuously from a thread while three others draw.  On a kernel
  without MAP_DROPPABLE (< 6.11) the row says so and nothing can be dropped.
- Cancellation is deferred (the library is not async-cancel-safe, nor is
  any of libc): a cancel takes effect at a cancellation point.  The library
  itself has none (its /dev/urandom reads are raw system calls), so threads
  die at the test's own points, between and after (re)seeds.
- The signal storm's timers expire every 50 us, but a busy 2-core machine
  merges expirations of a thread that is not running: the row gives the
  handler calls that really ran and how many nested inside a surand call.
  TSan delays asynchronous signals, so the storm is also run without it.
- valgrind does not run `test_storms` and `test_stats_quality` (thousands of
  forks and threads, or 10 MB per backend through the portable body: hours
  under valgrind, for code the API tests cover), `test_hygiene` (it reads the
  whole address space and core files on purpose), `test_chacha_diff` (every
  SIMD body by name; valgrind has no AVX-512), `test_chacha20` (it re-executes
  /proc/self/exe, which under valgrind is valgrind's own binary) or
  `test_bench`; in `test_faults` it skips the seccomp cases (valgrind has no
  seccomp(2)) and the 380-thread signal round.  See VALGRIND_TESTS in
  `mk/reliability.mk`.  Memory scans and core dumps run in plain builds only
  (a sanitizer's shadow memory is terabytes); RLIMIT_AS is not set under a
  sanitizer either.

## Defects the tests found or now guard (and the fixes)

| test | defect | fixed in |
|---|---|---|
| signal storm | a handler drawing while its thread was inside `surand_reseed()` re-entered the base lock: deadlock | src/api.c (control calls mark the thread busy) |
| cancellation storm (getrandom refused) | a thread cancelled inside the /dev/urandom fallback leaked the descriptor | src/entropy/kernel.c (raw system calls) |
| pages dropped (concurrent) | `surand_bytes` returned all-zero 64-byte outputs: a page dropped between the refill pass and the header rewrite left a valid generation over a zero batch; a key read from a dropped page could be used | src/gen/thread.c (generation sealed before the data) |
| first call in a handler | a thread's first call from a handler that interrupted `malloc` deadlocked in the slab's `calloc` | src/gen/thread.c (mmap) |
| core dump right after a refill | the next key and batch were in the register notes and in stack spills of the core (every body but AVX-512) | src/gen/thread.c (registers and stack cleared after each pass) |
| TSan under storms | lock-free reads of the base's birth time raced with reseeds | src/gen/base.c |
| valgrind | `tests/test_backends.c` chose its first length from an uninitialised byte, `tests/test_entropy.c` mixed an uninitialised buffer into the pool; the signal tests of `test_generator` and `test_entropy` could be killed by a SIGALRM delivered after the default action was back; `t_exec_child` exec'd valgrind's own binary | tests/test_backends.c, tests/test_generator.c, tests/test_entropy.c, tests/harness.c |
| signal in the thread-exit destructor, during set-up, during `surand_backend_names()` | a handler's draw deadlocked on the slab lock (the destructor was not marked busy), on the configuration's `pthread_once` (run unmarked by `surand_add_entropy/event`) and on `init_lock`; a thread's first call with 32 or more pthread keys callocs in `pthread_setspecific` | src/api.c (set-up in the library constructor, the busy mark on every entry point) |
| siglongjmp out of a call | the thread stayed busy forever: every later call took the syscall path | src/api.c (`recover_abandoned`) |
| fork paths x memory kinds | without wipe-on-fork memory, `_Fork()`, a raw `clone()` and an application atfork handler that drew first repeated the parent's bytes | src/api.c (the kernel serves every call there) |
| a file bound over /dev/urandom (getrandom refused) | its bytes seeded the generator: three runs printed the same 16 bytes | src/entropy/kernel.c (the device must be 1:9 / 1:8) |
| preload in a seccomp sandbox | a program that had opened /dev/urandom was aborted ("no seed") where the kernel would have answered | tools/preload/preload.c (falls through to the real call) |
| jitter on an AMD EPYC host | the real timer alarmed and the source was disabled after crediting up to 5,183 bits; credit was granted before its APT window closed and kept after an alarm | src/entropy/jitter.c (power-up qualification, credit per clean window) |
| single-stepped calls, handlers at every instruction boundary (`test_callstate`, `test_inline`) | a handler between the busy mark's two stores left its own return address behind; a second handler inside the same call then took the live call for abandoned and dropped its slot: `surand_bytes(64)` returned 64 zero bytes, an inline `surand_u64()` 0 | src/api.c, include/surand.h (the mark in one store, tagged with the return address) |
| a key destructor drawing after surand's at thread exit (`late_destructor_takes_no_slot`) | in the C library's last destructor round the draw took a slot never given back or wiped; `surand_stats()` then read the exited thread's TLS | src/api.c (an exited thread's draws go to the kernel) |
| a design switch racing a thread's first draw (`set_backend_races_first_draw`) | the draw was served by the old design while `surand_set_backend()` switched and returned 0 | src/api.c (both under `init_lock`) |
| a seek back to a buffered block's start (`test_stream` seek_equals_read) | a read of whole blocks and a tail served the tail from the stale buffer | src/stream.c |
| vector registers after `surand_reseed()` (`reseed_leaves_no_key_in_registers`) | the new base key stayed in xmm1 and xmm2 | src/gen/base.c (every reseed scrubs them) |
| the command started with standard error closed (`cli.sh` progress_closed_stderr_not_in_output) | `open()` handed back fd 2 for the output file or the wiped target, and progress lines went into it | tools/surand/stdfds.h (fds 0-2 held with /dev/null) |
| copies of a /dev/urandom descriptor past the mark table (`preload.sh` highfd-table-256) | the stats line counted a `dup2` or `F_DUPFD` copy at or above the table's size as a descriptor the preload served, though the kernel serves it | tools/preload/preload.c (a copy is counted only when it is marked) |

EOF
	printf '## Summary\n\n%s rows; %s not passing; %s duplicates, %s crashes, %s leaks in all.  ' \
		"$rows" "$fails" "$dups" "$crashes" "$leaks"
	printf 'Commit %s, kernel %s, %s, %s cores.\n\n' "$commit" "$(uname -r)" "${cpu:-?}" "$(nproc)"
	for s in 1 2 3 4 5 6; do
		body=$(while IFS='|' read -r run name load result d c l; do
			[ "$(section_of "$name")" = "$s" ] || continue
			test=${name%%\[*}
			rest=${name#"$test"}
			printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$test" "$rest" "$run" \
				"$load" "$result" "$d" "$c" "$l"
		done <"$tmp")
		[ -n "$body" ] || continue
		printf '## %s\n\n' "${titles[$s]}"
		printf '| test | backend / build | run | load | result | dups | crashes | leaks |\n'
		printf '|---|---|---|---|---|---|---|---|\n'
		printf '%s\n\n' "$body"
	done
	mutations_section
} >"$out"
echo "reliability-table: $rows rows ($fails not passing) -> $out" >&2
[ "$fails" -eq 0 ]
