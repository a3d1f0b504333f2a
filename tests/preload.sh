#!/usr/bin/env bash
# tests/preload.sh - libsurand-preload.so under real programs (dd, head,
# python3, openssl) and the test programs of tests/preload/ (mk/preload.mk).
# "Served by surand" is asserted on the calls counted in the stats line that
# SURAND_PRELOAD_STATS=1 prints at exit, never on byte totals.
# Prints PASS/FAIL/SKIP lines (scripts/run-tests.sh adds them up).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
SO=$top/$BUILD/libsurand-preload.so
T=$top/$BUILD/preload-test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS preload/$1"; }
fail() { echo "FAIL preload/$1: $2"; }
skip() { # name, why, package
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ]; then
		echo "FAIL preload/$1: skipped under SURAND_REQUIRE_ALL=1: $2 (apt-get install $3)"
	else
		echo "SKIP preload/$1: $2 (apt-get install $3)"
	fi
}

for f in "$SO" "$T/pltest" "$T/pltest-fortify" "$T/plearly"; do
	if [ ! -e "$f" ]; then
		fail build "$f missing (make $f)"
		exit 1
	fi
done

# Runs "$@" under the preload with stats; stdout -> $tmp/out, stderr -> $tmp/err.
run_pl() {
	# only the program is preloaded (timeout's own stats line would come last)
	SURAND_PRELOAD_STATS=1 timeout 60 env LD_PRELOAD="$SO" "$@" >"$tmp/out" 2>"$tmp/err"
}
# The stats line of pid $1 (or the only/last one) in $tmp/err:
#   surand-preload: pid N: served B bytes in M calls: read 1, ...; descriptors: open 1, ...
stats_line() {
	if [ -n "${1:-}" ]; then
		grep "^surand-preload: pid $1: " "$tmp/err" | tail -n 1
	else
		grep '^surand-preload: pid [0-9]*: ' "$tmp/err" | tail -n 1
	fi
}
# Value of counter $2 ("NAME N") in stats line $1; 0 when absent (only
# non-zero counters are printed).  "bytes" and "calls" are the served totals.
stat_of() {
	local v
	case $2 in
	bytes) v=$(echo "$1" | sed -n 's/.* served \([0-9]*\) bytes in .*/\1/p') ;;
	calls) v=$(echo "$1" | sed -n 's/.* bytes in \([0-9]*\) calls.*/\1/p') ;;
	to_kernel) v=$(echo "$1" | sed -n 's/.*; to the kernel: \([0-9]*\) calls.*/\1/p') ;;
	*) v=$(echo "$1" | grep -oE "[:,] $2 [0-9]+" | awk '{print $NF}' | tail -n 1) ;;
	esac
	echo "${v:-0}"
}
# Checks every "NAME=N" of the program's "expect" line against its stats line.
check_expect() { # name
	local exp line k v got bad=""
	exp=$(grep '^expect ' "$tmp/out" | tail -n 1)
	line=$(stats_line)
	if [ -z "$exp" ] || [ -z "$line" ]; then
		fail "$1" "no expect line or no stats line: $(tail -n 3 "$tmp/out" "$tmp/err" | tr '\n' ' ')"
		return 1
	fi
	for kv in ${exp#expect }; do
		k=${kv%%=*} v=${kv#*=}
		got=$(stat_of "$line" "$k")
		[ "$got" = "$v" ] || bad="$bad $k=$got(want $v)"
	done
	if [ -n "$bad" ]; then
		fail "$1" "counters differ:$bad"
		return 1
	fi
	return 0
}
prog_ok() { # name: the program exited 0 and said "ok"
	if [ "$rc" -ne 0 ] || ! grep -q '^ok ' "$tmp/out"; then
		fail "$1" "rc=$rc: $(grep -h FAIL "$tmp/out" | head -n 5 | tr '\n' ' ')$(tail -n 2 "$tmp/err" | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# ---- the .so itself ---------------------------------------------------------------
got=$(nm -D --defined-only "$SO" | awk '{print $3}' | sort)
want=$(sort "$BUILD/preload/exports.list")
if [ "$got" = "$want" ] && [ -n "$want" ]; then
	pass exports
else
	fail exports "exported symbols differ from tools/preload/preload.map: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
fi
if ldd "$SO" | grep -q libsurand.so; then
	fail self-contained "links libsurand.so instead of carrying the library"
else
	pass self-contained
fi

# ---- the pure decisions -------------------------------------------------------------
"$T/pltest" match >"$tmp/out" 2>&1
rc=$?
prog_ok match && pass match

# ---- every entry point, plain and fortified ----------------------------------------------
for b in pltest pltest-fortify; do
	run_pl "$T/$b" entries
	rc=$?
	prog_ok "entries-$b" && check_expect "entries-$b" && pass "entries-$b"
done
# The fortified build really calls the fortified entries (and the plain one does not).
fsyms=$(nm -u "$T/pltest-fortify" | awk '{print $2}' | sed 's/@.*//')
psyms=$(nm -u "$T/pltest" | awk '{print $2}' | sed 's/@.*//')
missing=""
for s in __read_chk __pread_chk __pread64_chk __open_2 __open64_2 __openat_2 __openat64_2; do
	echo "$fsyms" | grep -qx -- "$s" || missing="$missing $s"
	echo "$psyms" | grep -qx -- "$s" && missing="$missing plain:$s"
done
for s in read readv pread pread64 preadv preadv64 preadv2 preadv64v2 open open64 openat openat64 \
	dup dup2 dup3 fcntl fcntl64 close close_range closefrom fclose fopen fopen64 getrandom \
	getentropy arc4random arc4random_buf arc4random_uniform; do
	echo "$psyms" | grep -qx -- "$s" || missing="$missing plain-lacks:$s"
done
if [ -z "$missing" ]; then pass fortify-symbols; else fail fortify-symbols "$missing"; fi

# ---- real programs -----------------------------------------------------------------------
# dd: open + 64 reads of 1 MiB, all answered by surand
run_pl dd if=/dev/urandom bs=1M count=64 of=/dev/null
rc=$?
line=$(stats_line)
opens=$(($(stat_of "$line" open) + $(stat_of "$line" open64) + $(stat_of "$line" __open_2) + $(stat_of "$line" __open64_2)))
reads=$(($(stat_of "$line" read) + $(stat_of "$line" __read_chk)))
if [ "$rc" -eq 0 ] && [ "$opens" -ge 1 ] && [ "$reads" -ge 64 ] && grep -q '^64+0 records in' "$tmp/err"; then
	pass dd
else
	fail dd "rc=$rc opens=$opens reads=$reads: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
fi

run_pl head -c 1000 /dev/urandom
rc=$?
line=$(stats_line)
opens=$(($(stat_of "$line" open) + $(stat_of "$line" open64) + $(stat_of "$line" __open_2) + $(stat_of "$line" __open64_2)))
reads=$(($(stat_of "$line" read) + $(stat_of "$line" __read_chk)))
size=$(wc -c <"$tmp/out")
if [ "$rc" -eq 0 ] && [ "$size" -eq 1000 ] && [ "$opens" -ge 1 ] && [ "$reads" -ge 1 ]; then
	pass head
else
	fail head "rc=$rc size=$size opens=$opens reads=$reads"
fi

# A file that is not a random device reads unchanged.
if run_pl cat /etc/os-release && cmp -s "$tmp/out" /etc/os-release &&
	[ "$(stat_of "$(stats_line)" read)" = 0 ]; then
	pass passthrough
else
	fail passthrough "cat /etc/os-release differs under the preload (or was served)"
fi

# python3: os.urandom() calls getrandom(); one more counted call than without it
if command -v python3 >/dev/null 2>&1; then
	# the interpreter itself, not a wrapper script (pyenv shims run other programs)
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	run_pl "$py" -c 'pass'
	base=$(stat_of "$(stats_line)" getrandom)
	run_pl "$py" -c 'import os, sys; sys.stdout.write(os.urandom(32).hex())'
	rc=$?
	n=$(stat_of "$(stats_line)" getrandom)
	hex=$(cat "$tmp/out")
	if [ "$rc" -eq 0 ] && [ "${#hex}" -eq 64 ] && [ -n "$base" ] && [ -n "$n" ] && [ "$n" -gt "$base" ]; then
		pass python-urandom
	else
		fail python-urandom "rc=$rc getrandom calls $n (without os.urandom: $base), output '$hex'"
	fi
else
	skip python-urandom "python3 not found" python3
fi

# openssl rand: OpenSSL seeds its DRBG with getentropy()
if command -v openssl >/dev/null 2>&1; then
	run_pl openssl rand 32
	rc=$?
	n=$(stat_of "$(stats_line)" getentropy)
	size=$(wc -c <"$tmp/out")
	if [ "$rc" -eq 0 ] && [ "$size" -eq 32 ] && [ -n "$n" ] && [ "$n" -ge 1 ]; then
		pass openssl-rand
	else
		fail openssl-rand "rc=$rc size=$size getentropy calls '$n'"
	fi
else
	skip openssl-rand "openssl not found" openssl
fi

# ---- fork, recycled numbers, signals, stdio, early callers ----------------------------------
run_pl "$T/pltest" fork
rc=$?
if prog_ok fork; then
	pp=$(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\1/p' "$tmp/out")
	cp=$(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\2/p' "$tmp/out")
	pr=$(stat_of "$(stats_line "$pp")" read)
	cr=$(stat_of "$(stats_line "$cp")" read)
	d2=$(stat_of "$(stats_line "$pp")" dup2)
	if [ "$pr" = 1 ] && [ "$cr" = 1 ] && [ "$d2" = 1 ]; then
		pass fork
	else
		fail fork "served reads: parent '$pr' child '$cr', dup2 '$d2'"
	fi
fi

printf 'plain text, not random\nsecond line\n' >"$tmp/text"
run_pl "$T/pltest" recycle "$tmp/text"
rc=$?
prog_ok recycle && check_expect recycle && pass recycle

run_pl "$T/pltest" signal
rc=$?
if prog_ok signal; then
	r=$(stat_of "$(stats_line)" read)
	g=$(stat_of "$(stats_line)" getrandom)
	if [ "${r:-0}" -ge 1 ] && [ "${g:-0}" -ge 1 ]; then
		pass signal
	else
		fail signal "served reads '$r', getrandom '$g'"
	fi
fi

run_pl "$T/pltest" cookie kernel
rc=$?
prog_ok fopen-kernel && check_expect fopen-kernel && pass fopen-kernel
SURAND_PRELOAD_FOPEN=cookie run_pl "$T/pltest" cookie cookie
rc=$?
if prog_ok fopen-cookie && check_expect fopen-cookie; then
	c=$(stat_of "$(stats_line)" cookie_read)
	if [ "${c:-0}" -ge 1 ]; then pass fopen-cookie; else fail fopen-cookie "cookie_read '$c'"; fi
fi

# libplearly.so's constructor runs before the preload's (checked with LD_DEBUG) and is served.
SURAND_PRELOAD_STATS=1 timeout 60 env LD_DEBUG=files LD_PRELOAD="$SO" "$T/plearly" >"$tmp/out" 2>"$tmp/err"
rc=$?
order=$(grep -o 'calling init: [^ ]*' "$tmp/err" | sed 's/calling init: //' | grep -n -e 'libplearly.so' -e 'libsurand-preload.so')
first=$(echo "$order" | head -n 1)
line=$(stats_line)
if ! prog_ok early; then
	:
elif [ "$(echo "$order" | wc -l)" -ne 2 ] || ! echo "$first" | grep -q libplearly.so; then
	fail early "the early library's constructor did not run first: $(echo "$order" | tr '\n' ' ')"
elif [ "$(stat_of "$line" getrandom)" = 1 ] && [ "$(stat_of "$line" open)" = 1 ] &&
	[ "$(stat_of "$line" read)" = 1 ] && [ "$(stat_of "$line" close)" = 1 ]; then
	pass early
else
	fail early "calls before the constructor not served: $line"
fi

# ---- the stats line ---------------------------------------------------------------------------
# getrandom 40 + getentropy 24 + one read of 16: bytes of every kind counted,
# only the non-zero counters printed, in this exact form.
run_pl "$T/pltest" stats
rc=$?
line=$(stats_line)
want="surand-preload: pid [0-9]*: served 80 bytes in 3 calls: getrandom 1, getentropy 1, read 1; descriptors: open 1, close 1"
if prog_ok stats && echo "$line" | grep -qx -- "$want"; then
	pass stats-line
else
	fail stats-line "got '$line', want '$want'"
fi

# ---- descriptors the preload does not mark ------------------------------------------------------
# Past the mark table (65536 descriptors): never marked, the kernel serves
# them; only the read of the low number is counted.  The copy with a table of
# 256 (mk/preload.mk) runs the same code below any RLIMIT_NOFILE; the shipped
# table's size is checked in its object, and numbers past 65536 are read
# where RLIMIT_NOFILE can be raised that far (CAP_SYS_RESOURCE, or a hard
# limit above 70001).
highfd() { # name preload number
	SURAND_PRELOAD_STATS=1 timeout 60 env LD_PRELOAD="$2" "$T/pltest" highfd "$3" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 77 ] && return 77
	if prog_ok "$1"; then
		line=$(stats_line)
		# The copies made no mark, so they are not counted as descriptors.
		if [ "$(stat_of "$line" read)" = 1 ] && [ "$(stat_of "$line" calls)" = 1 ] &&
			[ "$(stat_of "$line" open)" = 1 ] && [ "$(stat_of "$line" dup2)" = 0 ] &&
			[ "$(stat_of "$line" fcntl)" = 0 ]; then
			pass "$1"
		else
			fail "$1" "want 1 served read (of the low number) and no dup2 or fcntl counted for descriptors $3 and $(($3 + 1)): $line"
		fi
	fi
}
highfd highfd-table-256 "$T/libsurand-preload-fd256.so" 300
size=$(nm -S "$BUILD/preload/preload.o" 2>/dev/null | awk '$4 == "pl_bits" {print $2}')
bits=$([ -n "$size" ] && echo $((16#$size * 8)))
if [ "$bits" = 65536 ]; then
	pass highfd-table-65536
else
	fail highfd-table-65536 "the mark table of $BUILD/preload/preload.o holds '$bits' descriptors, docs/preload.md says 65536"
fi
if highfd highfd-70000 "$SO" 70000; [ "$rc" -eq 77 ]; then
	echo "# highfd-70000 not run: $(sed -n 's/^limit: //p' "$tmp/out") (needs CAP_SYS_RESOURCE or ulimit -Hn above 70001); highfd-table-256 and highfd-table-65536 cover it"
fi
# Inherited across exec: not marked in the new program, whose own open is.
run_pl "$T/pltest" exec
rc=$?
line=$(stats_line)
if [ "$rc" -ne 0 ] || ! grep -q '^ok execed$' "$tmp/out"; then
	fail exec "rc=$rc: $(grep -h FAIL "$tmp/out" | head -n 5 | tr '\n' ' ')$(tail -n 2 "$tmp/err" | tr '\n' ' ')"
elif [ "$(grep -c '^surand-preload: pid ' "$tmp/err")" = 1 ] && [ "$(stat_of "$line" read)" = 1 ] &&
	[ "$(stat_of "$line" calls)" = 1 ] && [ "$(stat_of "$line" open)" = 1 ]; then
	pass exec
else
	fail exec "want one stats line with 1 served read (the new program's own open), got: $(grep '^surand-preload' "$tmp/err" | tr '\n' ' ')"
fi

# ---- fail-safe fallthrough --------------------------------------------------------------------
# /dev/urandom opened, then a seccomp filter refuses getrandom and open:
# surand has no seed, and the reads (read, pread, readv) and getrandom get the
# kernel's answers instead of an abort ("surand: FATAL: no seed", SIGABRT).
for b in pltest pltest-fortify; do
	run_pl "$T/$b" sandbox
	rc=$?
	line=$(stats_line)
	if prog_ok "sandbox-$b" && [ "$(stat_of "$line" calls)" = 0 ] &&
		[ "$(stat_of "$line" to_kernel)" -ge 5 ] && ! grep -q FATAL "$tmp/err"; then
		pass "sandbox-$b"
	else
		fail "sandbox-$b" "rc=$rc, stats '$line': $(head -n 2 "$tmp/err" | tr '\n' ' ')"
	fi
	# its RELIABILITY row: tests/test_faults.c preload_sandbox
done

# A bad SURAND_PRELOAD_FOPEN value: one line, and the default is kept.
SURAND_PRELOAD_FOPEN=bogus run_pl "$T/pltest" cookie kernel
rc=$?
if prog_ok fopen-bad-env && grep -q 'SURAND_PRELOAD_FOPEN=bogus unknown' "$tmp/err"; then
	pass fopen-bad-env
else
	fail fopen-bad-env "no warning for SURAND_PRELOAD_FOPEN=bogus: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
fi
exit 0
