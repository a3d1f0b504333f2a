#!/usr/bin/env bash
# bench/host/contention.sh - does a second busy vCPU slow a call that shares
# nothing with it?  For each probe the cost per call (per iteration) of one
# copy alone, of two threads in one process and of two single-thread
# processes side by side; ROUNDS interleaved rounds, the minimum of each kept
# (the host is shared: the minimum is the least disturbed run), the pair's
# figure being its slower member.
#   probe mem / alu   bench/host/probe.c: no surand code, private memory
#   S B               `surand bench --sources S --sizes B`: per thread ns/call
# Two processes share no memory at all, so a slowdown there that matches the
# two-thread one is the machine's, not the design's.
#
#   bench/host/contention.sh [ROUNDS] [SECONDS]    (defaults 5 and 0.3)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
SECS=${2:-0.3}
[ -x build/surand ] || make -s build/surand
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-gcc} -O2 -pthread -o "$tmp/probe" bench/host/probe.c
ITER=$(awk -v s="$SECS" 'BEGIN { printf "%d", s * 1e9 }') # about SECS at ~1 ns/iteration

# one value: the slowest of the figures on stdin
slowest() { tr ' ' '\n' | awk 'NF { if ($1 + 0 > m) m = $1 + 0 } END { printf "%.3f", m }'; }
bench_ns() { # source size threads -> per-thread ns/call (the CSV's column 10)
	build/surand bench --sources "$1" --sizes "$2" --threads "$3" --seconds "$SECS" \
		--csv "$tmp/c.$BASHPID.csv" >/dev/null 2>&1
	awk -F, 'NR == 2 { print $10 }' "$tmp/c.$BASHPID.csv"
}
run() { # probe-name mode(alone|threads|procs) -> one figure
	local name=$1 mode=$2 a
	case $name in
	mem | alu)
		case $mode in
		alone) "$tmp/probe" "$name" 1 "$ITER" ;;
		threads) "$tmp/probe" "$name" 2 "$ITER" | slowest ;;
		procs)
			a=$("$tmp/probe" "$name" 1 "$ITER" &
				"$tmp/probe" "$name" 1 "$ITER"
				wait)
			echo "$a" | slowest ;;
		esac ;;
	*)
		local src=${name% *} size=${name#* }
		case $mode in
		alone) bench_ns "$src" "$size" 1 ;;
		threads) bench_ns "$src" "$size" 2 ;;
		procs)
			a=$( (bench_ns "$src" "$size" 1 &
				bench_ns "$src" "$size" 1
				wait) | tr '\n' ' ')
			echo "$a" | slowest ;;
		esac ;;
	esac
}
PROBES=("mem" "alu" "surand 4" "surand 16" "bare 16" "vdso 4")
declare -A best
for _ in $(seq "$ROUNDS"); do
	for p in "${PROBES[@]}"; do
		for m in alone threads procs; do
			v=$(run "$p" "$m")
			k="$p/$m"
			best[$k]=$(awk -v a="${best[$k]:-}" -v b="$v" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		done
	done
done
printf '%-12s %10s %14s %14s %10s %10s\n' probe "alone ns" "2 threads ns" "2 procs ns" "thr/alone" "proc/alone"
for p in "${PROBES[@]}"; do
	a=${best[$p/alone]} t=${best[$p/threads]} q=${best[$p/procs]}
	printf '%-12s %10s %14s %14s %10s %10s\n' "$p" "$a" "$t" "$q" \
		"$(awk -v a="$a" -v b="$t" 'BEGIN { printf "%.2fx", b / a }')" \
		"$(awk -v a="$a" -v b="$q" 'BEGIN { printf "%.2fx", b / a }')"
done
echo "(min of $ROUNDS interleaved rounds, ${SECS} s per run; a pair's figure is its slower member; $(nproc) CPUs)"
