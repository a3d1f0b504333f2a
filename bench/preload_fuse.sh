#!/usr/bin/env bash
# bench/preload_fuse.sh - the performance targets of the preload and of surandfs
# as ratios measured in one run:
#
#   preload_dd/body     dd if=/dev/urandom bs=1M of=/dev/null under
#                       libsurand-preload.so, over the bare ChaCha20 body
#                       filling the same 1 MiB buffer (expected: >= 0.8); also
#                       against the body's 64 KiB (cache-resident) figure
#   fuse_1M/urandom     dd bs=1M from surandfs's urandom over dd bs=1M from
#                       /dev/urandom (expected: >= 4)
#   fuse_4K/urandom     the same at bs=4K (reported)
#   crossover           the smallest block size from which surandfs is at
#                       least as fast as /dev/urandom (dd, 512 B .. 1 MiB)
#
# Every figure is the best of $REPS runs (default 3) of about $SECS seconds.
# Usage: bench/preload_fuse.sh [--quick] [--no-fuse]   (BUILD=build by default)
# Needs: make (the preload, build/surandfs), root or fusermount3 for the mount.
# Prints one "name value" line per figure; exit 0, or 1 if something could not
# be measured.  The lead runs it for BENCHMARKS.md; docs/fuse.md explains it.
set -u
BUILD=${BUILD:-build}
REPS=${REPS:-3}
SECS=${SECS:-1}
fuse=1
for a in "$@"; do
	case $a in
	--quick) REPS=1 SECS=0.3 ;;
	--no-fuse) fuse=0 ;;
	*) echo "usage: $0 [--quick] [--no-fuse]" >&2; exit 64 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export LC_ALL=C
CC=${CC:-gcc}
SO=$top/$BUILD/libsurand-preload.so
SFS=$top/$BUILD/surandfs
tmp=$(mktemp -d)
mnt=$tmp/mnt
sfs_pid=
cleanup() {
	if [ -n "$sfs_pid" ]; then
		grep -q " $mnt fuse" /proc/mounts && timeout 10 fusermount3 -u -z "$mnt" 2>/dev/null
		kill "$sfs_pid" 2>/dev/null
		wait "$sfs_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
bad=0

for f in "$SO" "$BUILD/libsurand.a"; do
	[ -e "$f" ] || { echo "preload_fuse: $f missing (make)" >&2; exit 1; }
done

# ---- the bare ChaCha20 body, into a 1 MiB buffer as dd's bs=1M ------------------------
cat >"$tmp/body.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "internal.h"
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
	size_t len = (size_t)atol(argv[1]);
	double secs = atof(argv[2]), t0, t;
	uint8_t *buf = malloc(len);
	uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint64_t ctr = 0, n = 0;

	t0 = now();
	do {
		surand_chacha20_blocks(key, ctr, 0, buf, len / 64);
		ctr += len / 64;
		n += len;
	} while ((t = now() - t0) < secs);
	printf("%.1f %s %u\n", n / t / 1e6, surand_chacha20_impl_name(), buf[n % len]);
	return 0;
}
EOF
if ! $CC -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -o "$tmp/body" "$tmp/body.c" \
	"$BUILD/libsurand.a" -pthread -ldl 2>"$tmp/cc.err"; then
	echo "preload_fuse: cannot build the body probe: $(head -n 3 "$tmp/cc.err")" >&2
	exit 1
fi

best() { # prints the largest of its arguments
	printf '%s\n' "$@" | sort -g | tail -n 1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

# MB/s of one dd run: dd_rate [env...] -- if=... bs=... count=...
dd_rate() {
	local envs=() out bytes s
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	out=$(env "${envs[@]}" timeout 120 dd of=/dev/null "$@" 2>&1 | tail -n 1)
	bytes=$(echo "$out" | awk '{print $1}')
	s=$(echo "$out" | sed -n 's/.*copied, \([0-9.e+-]*\) s,.*/\1/p')
	awk -v b="$bytes" -v s="$s" 'BEGIN { if (s > 0) printf "%.1f", b / s / 1e6; else print 0 }'
}
# Best MB/s over $REPS runs of about $SECS s each: best_dd GUESS_MBps BS [env...] -- if=...
# (the first run is sized by the guess, the others by the rate it measured)
best_dd() {
	local guess=$1 bs=$2 cnt r rs=() i
	shift 2
	for i in $(seq "$REPS"); do
		cnt=$(awk -v g="$guess" -v s="$SECS" -v b="$bs" \
			'BEGIN { c = int(g * 1e6 * s / b); if (c < 8) c = 8; print c }')
		r=$(dd_rate "$@" bs="$bs" count="$cnt")
		rs+=("$r")
		awk -v r="$r" 'BEGIN { exit !(r > 0) }' && guess=$r
	done
	best "${rs[@]}"
}

rs=()
for i in $(seq "$REPS"); do rs+=("$("$tmp/body" 1048576 "$SECS" | awk '{print $1}')"); done
body=$(best "${rs[@]}")
rs=()
for i in $(seq "$REPS"); do rs+=("$("$tmp/body" 65536 "$SECS" | awk '{print $1}')"); done
body64=$(best "${rs[@]}")
impl=$("$tmp/body" 65536 0.01 | awk '{print $2}')
echo "body_1MiB_MBps $body ($impl)"
echo "body_64KiB_MBps $body64 ($impl, cache-resident outputs)"

pre=$(best_dd "$body" 1048576 LD_PRELOAD="$SO" -- if=/dev/urandom)
echo "preload_dd_1M_MBps $pre"
echo "preload_dd/body $(ratio "$pre" "$body") (expected >= 0.8; same 1 MiB buffer as dd)"
echo "preload_dd/body_64KiB $(ratio "$pre" "$body64") (against the cache-resident figure)"

ku=$(best_dd 300 1048576 -- if=/dev/urandom)
echo "urandom_dd_1M_MBps $ku"

[ "$fuse" = 1 ] || exit "$bad"
# ---- surandfs ------------------------------------------------------------------------------
if [ ! -x "$SFS" ] || [ ! -c /dev/fuse ]; then
	echo "preload_fuse: $SFS or /dev/fuse missing: FUSE figures skipped" >&2
	exit 1
fi
mkdir -p "$mnt"
"$SFS" "$mnt" -f >"$tmp/sfs.log" 2>&1 &
sfs_pid=$!
for i in $(seq 100); do
	grep -q " $mnt fuse.surandfs " /proc/mounts && break
	sleep 0.1
done
if ! grep -q " $mnt fuse.surandfs " /proc/mounts; then
	echo "preload_fuse: surandfs did not mount: $(head -c 200 "$tmp/sfs.log")" >&2
	exit 1
fi

f1=$(best_dd 2000 1048576 -- if="$mnt/urandom")
echo "fuse_dd_1M_MBps $f1"
echo "fuse_1M/urandom $(ratio "$f1" "$ku") (expected >= 4)"
f4=$(best_dd 300 4096 -- if="$mnt/urandom")
k4=$(best_dd 300 4096 -- if=/dev/urandom)
echo "fuse_dd_4K_MBps $f4"
echo "urandom_dd_4K_MBps $k4"
echo "fuse_4K/urandom $(ratio "$f4" "$k4")"

# Crossover: the smallest size from which surandfs stays at least as fast.
cross=none
echo "# bs fuse_MBps urandom_MBps ratio"
for bs in 512 1024 2048 4096 8192 16384 65536 262144 1048576; do
	g=$(awk -v b="$bs" 'BEGIN { print (b < 4096 ? 20 : 200) }')
	f=$(best_dd "$g" "$bs" -- if="$mnt/urandom")
	k=$(best_dd "$g" "$bs" -- if=/dev/urandom)
	r=$(ratio "$f" "$k")
	echo "# $bs $f $k $r"
	if awk -v r="$r" 'BEGIN { exit !(r >= 1) }'; then
		[ "$cross" = none ] && cross=$bs
	else
		cross=none
	fi
done
echo "crossover_bytes $cross"
exit "$bad"
