#!/usr/bin/env bash
# bench/slot_size.sh - the thread backend's slot size (src/gen/thread.c,
# SURAND_THREAD_SLOT_BYTES) against the cost of a small call: the library is
# built once per size (1, 2 and 4 KiB) and bench/slot/call_loop.c times
# surand_bytes() of each request size on one thread.  The variants run
# interleaved, ROUNDS times each, and the minimum is reported (the machines
# are shared: the minimum is the run least disturbed by others).
#
#   bench/slot_size.sh [ROUNDS] [CALLS]     (defaults 10 and 5000000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-10}
CALLS=${2:-5000000}
SIZES="4 16 64 256"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for slot in 1024 2048 4096; do
	make -s -j2 BUILD="$tmp/b$slot" EXTRA_CFLAGS="-DSURAND_THREAD_SLOT_BYTES=${slot}u" \
		"$tmp/b$slot/libsurand.a" >/dev/null
	${CC:-gcc} -O2 -Iinclude -o "$tmp/loop$slot" bench/slot/call_loop.c "$tmp/b$slot/libsurand.a" -pthread
done
declare -A best
for _ in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		for slot in 1024 2048 4096; do
			v=$("$tmp/loop$slot" "$n" "$CALLS")
			best[$slot.$n]=$(awk -v a="${best[$slot.$n]:-}" -v b="$v" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		done
	done
done
printf '%-10s' "slot"
for n in $SIZES; do printf '%10s' "${n} B"; done
echo "   (ns per call, min of $ROUNDS interleaved runs of $CALLS calls)"
for slot in 1024 2048 4096; do
	printf '%-10s' "$slot B"
	for n in $SIZES; do printf '%10s' "${best[$slot.$n]}"; done
	echo
done
