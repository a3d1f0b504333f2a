#!/usr/bin/env bash
# bench/cli.sh - the surand command's performance targets, as ratios
# measured in one run:
#
#   j1/body       `surand -n SIZE -o /dev/null -j 1` MB/s over the bare
#                 ChaCha20 body's 64 KiB figure on 1 thread (expected: >= 0.85)
#   j2/j1         `-j 2` over `-j 1`, against the bare body's own 1->2 thread
#                 scaling (expected: j2/j1 >= 0.95 x body2/body1)
#
# The body is measured by `surand bench --sources bare`, in $REPS rounds
# (default 3) interleaved with the command's runs; each figure is its best
# round.
# Usage: bench/cli.sh [SIZE]   (default 4G; BUILD=build by default)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
REPS=${REPS:-3}
SIZE=${1:-4G}
S=$BUILD/surand
"$S" -n 1M -o /dev/null 2>/dev/null || { echo "cli.sh: $S -n $SIZE failed" >&2; exit 1; }
nbytes=$(awk -v s="$SIZE" 'BEGIN { m = 1; u = substr(s, length(s)); if (u == "G") m = 2^30; else if (u == "M") m = 2^20; else if (u == "K") m = 2^10;
	if (m > 1) s = substr(s, 1, length(s) - 1); printf "%.0f", s * m }')
body() { # threads: MB/s of the bare body at 64 KiB
	"$S" bench --sources bare --sizes 65536 --threads "$1" --seconds 1 --csv /dev/stdout 2>/dev/null |
		awk -F, '$1 == "bare" && $4 == '"$1"' { print $9 }' | tail -1
}
cmd() { # threads: MB/s of one run
	local t0 t1
	t0=$(date +%s.%N)
	"$S" -n "$SIZE" -o /dev/null -j "$1" </dev/null 2>/dev/null
	t1=$(date +%s.%N)
	awk -v n="$nbytes" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) / 1e6 }'
}
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a) ? b : a }'; }
# Rounds, interleaved: body 1, command -j 1, body 2, command -j 2.  On a
# shared host noise only slows a run, so each of the four figures is its best
# round, and a slow spell costs every figure a round instead of landing on
# one figure's only measurement (as `surand bench --rounds` does).
b1=0 b2=0 c1=0 c2=0
for _ in $(seq "$REPS"); do
	b1=$(max "$b1" "$(body 1)")
	c1=$(max "$c1" "$(cmd 1)")
	b2=$(max "$b2" "$(body 2)")
	c2=$(max "$c2" "$(cmd 2)")
done
echo "bare body 64 KiB: 1 thread $b1 MB/s, 2 threads $b2 MB/s (scaling $(awk -v a="$b1" -v b="$b2" 'BEGIN { printf "%.2f", b / a }')x)"
echo "surand -n $SIZE -o /dev/null: -j 1 $c1 MB/s, -j 2 $c2 MB/s (scaling $(awk -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", b / a }')x)"
awk -v b1="$b1" -v b2="$b2" -v c1="$c1" -v c2="$c2" 'BEGIN {
	r1 = c1 / b1; r2 = (c2 / c1) / (b2 / b1)
	printf "j1/body        %.2fx  (expected >= 0.85x)  %s\n", r1, (r1 >= 0.85) ? "PASS" : "MISS"
	printf "j2/j1 scaling  %.2fx of the body scaling  (expected >= 0.95x)  %s\n", r2, (r2 >= 0.95) ? "PASS" : "MISS"
}'
