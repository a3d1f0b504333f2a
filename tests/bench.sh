#!/usr/bin/env bash
# tests/bench.sh - `surand bench` at the tool level: every bad input
# exits 64 with one line and does no work; a tiny run prints the table, the
# comparisons with the peers of the run as ratios, the README's claims checked,
# and the scales, in words; output files; the --quick plan; the default thread list;
# optional sources as rows or absent with why (the Rust and libbsd peers: the
# apt-get line, a failure under SURAND_REQUIRE_ALL=1); the "few calls" flag; the
# progress line on a terminal; the bench build's counters and marker;
# bench/overhead's rows.
# Prints PASS/FAIL/SKIP lines for scripts/run-tests.sh.  Under ~10 s.
set -u
BUILD=${BUILD:-build}
S=$BUILD/surand
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS bench/$1"; }
fail() { echo "FAIL bench/$1: $2"; }
skip() {
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ]; then echo "FAIL bench/$1: skipped under SURAND_REQUIRE_ALL=1: $2"
	else echo "SKIP bench/$1: $2"; fi
}

if [ ! -x "$S" ]; then
	fail setup "$S not built"
	exit 1
fi

# ---- bad input: exit 64, one line on stderr, nothing on stdout (no work) ----
bad() { # name, args...
	local name=$1; shift
	local out err rc lines
	out=$("$S" bench "$@" 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$rc" -ne 64 ]; then
		fail "$name" "exit $rc, want 64 (args: $*)"
	elif [ -n "$out" ]; then
		fail "$name" "printed on stdout before refusing: $(printf '%s' "$out" | head -c 80)"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "want exactly one line on stderr, got $lines: $err"
	else
		pass "$name"
	fi
}
bad unknown_backend --backends nosuchdesign
bad unknown_backend_in_list --backends thread,nosuchdesign
bad unknown_source --sources bare,nosuchsource
bad empty_source_item --sources bare,,getrandom
bad size_zero --sizes 0
bad size_zero_in_list --sizes 16,0
bad size_not_number --sizes abc
bad size_trailing_junk --sizes 16x
bad size_negative --sizes -4
bad size_too_large --sizes 17M
bad threads_zero --threads 0
bad threads_above_4096 --threads 4097
bad threads_not_number --threads two
bad seconds_zero --seconds 0
bad seconds_not_number --seconds fast
bad rounds_zero --rounds 0
bad rounds_above_20 --rounds 21
bad rounds_not_number --rounds three
bad unknown_option --fastest
bad missing_value --sizes

# the unknown-name messages say what is valid
msg=$("$S" bench --backends nosuchdesign 2>&1)
case $msg in
*thread*) pass unknown_backend_names_valid ;;
*) fail unknown_backend_names_valid "message does not list the backends: $msg" ;;
esac
msg=$("$S" bench --sources nosuchsource 2>&1)
case $msg in
*getrandom*vdso*|*vdso*getrandom*) pass unknown_source_names_valid ;;
*) fail unknown_source_names_valid "message does not list the sources: $msg" ;;
esac

# an unwritable output file: 74 before any work
out=$("$S" bench --sources bare --sizes 16 --threads 1 --seconds 0.01 --csv /nonexistent/dir/x.csv 2>/dev/null)
rc=$?
if [ "$rc" -eq 74 ] && [ -z "$out" ]; then pass unwritable_output; else fail unwritable_output "exit $rc, stdout '${out:0:60}'"; fi

# table rows (source size unit threads calls/s MB/s ns p50 p99 p99.9 ...), "< N ns" joined
table_cells_full() {
	awk '/^source .*calls\/s/ { t = 1; next } t && (/^$/ || /^note: /) { exit } t' | sed 's/< \([0-9]*\) ns/<\1ns/g'
}

# ---- sizes: the same parser and suffixes as surand -n (1kB = 1000 B, 1K = 1024 B) ----
out=$("$S" bench --sources bare --sizes 1kB,1K --threads 1 --seconds 0.01 2>"$tmp/err")
rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^bare +1000 B +1 ' && printf '%s\n' "$out" | grep -Eq '^bare +1 KiB +1 '; then
	pass sizes_same_parser_as_n
else
	fail sizes_same_parser_as_n "exit $rc: $(printf '%s\n' "$out" | grep '^bare' | head -3) $(head -c 200 "$tmp/err")"
fi
msg=$("$S" bench --sizes 3x 2>&1)
case $msg in *KiB*kB*inf*) pass size_message_lists_suffixes ;; *) fail size_message_lists_suffixes "$msg" ;; esac

# The comparisons section of a run's stdout (stdin): its lines under the heading.
comparisons_of() {
	sed -n '/^comparisons, surand (/,/^$/p' | grep '^  '
}
# The claims section of a run's stdout (stdin).
claims_of() {
	sed -n '/^claims of the README, on this machine/,/^$/p' | grep '^  '
}
# Lines of a run's stdout that grade the project against a fixed number.
graded_lines() {
	grep -E '(^|[^A-Za-z])(PASS|MISS)([^A-Za-z]|$)|[Tt]arget|goal not reached'
}
# The claims, each "holds (N.NNx, ...)", "does not hold here (N.NNx, ...)",
# "not judged: ..." or "not measured (...)"; prints the lines that are none of these.
claims_unworded() {
	grep -Ev ': (holds|does not hold here) \([0-9.]+x|: not judged: .|: not measured \(.'
}

# ---- a tiny run: the table, the comparisons, the claims, the scales ----
out=$("$S" bench --seconds 0.05 --threads 1 --sizes 16 --sources bare,getrandom \
	--csv "$tmp/b.csv" --json "$tmp/b.json" 2>"$tmp/err")
rc=$?
if [ "$rc" -ne 0 ]; then
	fail tiny_run "exit $rc: $(head -c 300 "$tmp/err")"
else
	pass tiny_run_exit
	# one table row per source, with numbers and a passed buffer check
	for src in bare getrandom; do
		if printf '%s\n' "$out" | grep -Eq "^$src +16 B +1 +[0-9.]+[kMG]? +[0-9.]+ +[0-9.]+ .* ok$"; then
			pass "tiny_run_row_$src"
		else
			fail "tiny_run_row_$src" "no table row for $src at 16 B, 1 thread"
		fi
	done
	if printf '%s\n' "$out" | grep -q '^source .*calls/s .*MB/s .*ns/call/thr .*p50 ns .*p99 ns .*p99.9 ns'; then
		pass tiny_run_header
	else
		fail tiny_run_header "no table header"
	fi
	# all 13 comparisons are printed, each naming the default backend as
	# "surand (NAME)", with a ratio as a number or "not measured (why)"
	def0=$("$S" bench --list | sed -n 's/^backends (default first): \([^,]*\).*/\1/p')
	tl=$(printf '%s\n' "$out" | comparisons_of | grep "^  surand ($def0) ")
	nb=$(printf '%s\n' "$tl" | grep -c .)
	nw=$(printf '%s\n' "$tl" | grep -Ec ': [0-9.]+x the [A-Za-z].*  \(.*\)$|: not measured \(.+\)$')
	if printf '%s\n' "$out" | grep -q "^comparisons, surand ($def0) against peers measured in this run" && [ "$nb" -eq 13 ] && [ "$nw" -eq 13 ]; then
		pass tiny_run_comparisons
	else
		fail tiny_run_comparisons "want the comparisons heading and 13 lines, each a ratio or not measured, got $nb lines, $nw worded"
	fi
	# the README's two claims; this run has no vDSO and one thread count: neither is judged as holding
	cl=$(printf '%s\n' "$out" | claims_of)
	if printf '%s\n' "$out" | grep -q '^claims of the README, on this machine' &&
		[ "$(printf '%s\n' "$cl" | grep -c .)" -eq 2 ] && [ -z "$(printf '%s\n' "$cl" | claims_unworded)" ] &&
		printf '%s\n' "$cl" | grep -q "^  faster than the kernel's own vDSO getrandom (.*): not measured (" &&
		printf '%s\n' "$cl" | grep -Eq '^  scales with cores \(.*\): not (judged: .|measured \()'; then
		pass tiny_run_claims
	else
		fail tiny_run_claims "want the claims heading and 2 claims in words: $(printf '%s' "$cl" | tr '\n' ';')"
	fi
	if [ -z "$(printf '%s\n' "$out" | graded_lines)" ]; then
		pass tiny_run_no_grades
	else
		fail tiny_run_no_grades "$(printf '%s\n' "$out" | graded_lines | head -2 | tr '\n' ';')"
	fi
	if printf '%s\n' "$out" | grep -Eq '^  bare +scales: ' && printf '%s\n' "$out" | grep -Eq '^  getrandom +scales: '; then
		pass tiny_run_scales
	else
		fail tiny_run_scales "no scales line per source"
	fi
	# on 2 CPUs or fewer no source gets a yes/no scaling verdict, nor the claim
	if [ "$(nproc)" -le 2 ]; then
		if printf '%s\n' "$out" | grep -E '^  [a-z0-9-]+ +scales: ' | grep -qv 'cannot be judged on'; then
			fail scales_not_judged_on_few_cpus "a verdict on $(nproc) CPUs: $(printf '%s\n' "$out" | grep 'scales: ' | head -2)"
		elif ! printf '%s\n' "$cl" | grep -q "^  scales with cores (.*): not judged: $(nproc) CPUs\?$"; then
			fail scales_not_judged_on_few_cpus "the claim is judged on $(nproc) CPUs: $(printf '%s\n' "$cl" | grep 'scales with cores')"
		else
			pass scales_not_judged_on_few_cpus
		fi
	else
		if printf '%s\n' "$out" | grep -q 'cannot be judged'; then
			fail scales_judged_on_many_cpus "'cannot be judged' on $(nproc) CPUs"
		else
			pass scales_judged_on_many_cpus
		fi
	fi
	# a busy-machine warning, when there is one, comes before everything else
	wl=$(printf '%s\n' "$out" | grep -n 'warning: this machine was busy' | cut -d: -f1 | head -1)
	if [ -z "$wl" ] || [ "$wl" = 1 ]; then pass busy_warning_first; else fail busy_warning_first "the warning is on line $wl"; fi
	# no latency prints as a bare 0 (below the clock's resolution it is "< N ns")
	zeros=$(printf '%s\n' "$out" | table_cells_full | awk '$8 == "0" || $9 == "0" || $10 == "0"' | wc -l)
	if [ "$zeros" -eq 0 ]; then pass no_zero_latency; else fail no_zero_latency "$zeros rows with a 0 ns percentile"; fi
	# CSV: header + 2 rows whose calls/s are positive; JSON parses
	rows=$(awk -F, 'NR > 1 && $8 > 0 && $16 == "ok"' "$tmp/b.csv" | wc -l)
	if head -n 1 "$tmp/b.csv" | grep -q '^source,kind,size,threads,' && [ "$rows" -eq 2 ]; then
		pass tiny_run_csv
	else
		fail tiny_run_csv "want a header and 2 good rows, got $rows"
	fi
	if command -v python3 >/dev/null; then
		if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["results"])==2 and len(d["comparisons"])==13 and all(set(c)>={"what","ratio","peer"} for c in d["comparisons"]) and "targets" not in d and [c["claim"] for c in d["claims"]]==["faster than the kernel'"'"'s own vDSO getrandom","scales with cores"] and all(c["holds"] is None and isinstance(c["ratios"],list) for c in d["claims"]) and all(r["calls_per_s"]>0 for r in d["results"])' "$tmp/b.json" 2>"$tmp/perr"; then
			pass tiny_run_json
		else
			fail tiny_run_json "$(tail -n 1 "$tmp/perr")"
		fi
	else
		skip tiny_run_json "no python3 to parse the JSON (apt-get install python3)"
	fi
	# thousands of calls per cell: no "few calls" flag, no legend, CSV and JSON say 0 / false
	if ! printf '%s\n' "$out" | grep -q 'few calls' &&
		[ "$(awk -F, 'NR > 1 && $19 == "0"' "$tmp/b.csv" | wc -l)" -eq 2 ] &&
		! grep -q '"few_calls": true' "$tmp/b.json" && grep -q '"few_calls": false' "$tmp/b.json"; then
		pass tiny_run_not_few_calls
	else
		fail tiny_run_not_few_calls "a fast cell flagged, or no few_calls column in the CSV/JSON"
	fi
	# progress goes to stderr only on a terminal: here stderr is a file
	if grep -q 'ETA' "$tmp/err"; then fail no_progress_off_tty "progress line written to a non-terminal"; else pass no_progress_off_tty; fi
fi

# --rounds: the plan runs N times, but each cell is reported once (its best round)
out=$("$S" bench --rounds 3 --seconds 0.02 --threads 1,2 --sizes 16 --sources bare,getrandom \
	--csv "$tmp/r.csv" --json "$tmp/r.json" 2>"$tmp/err")
rc=$?
rows=$(awk -F, 'NR > 1 && $8 > 0 && $16 == "ok"' "$tmp/r.csv" 2>/dev/null | wc -l)
if [ "$rc" -eq 0 ] && [ "$rows" -eq 4 ] && printf '%s\n' "$out" | grep -q 'run 3 times' &&
	grep -q '"rounds": 3' "$tmp/r.json"; then
	pass rounds_one_row_per_cell
else
	fail rounds_one_row_per_cell "exit $rc, $rows good CSV rows (want 4), $(head -c 200 "$tmp/err")"
fi

# --plot: charts with gnuplot, or the install hint and a CSV without it
out=$("$S" bench --seconds 0.02 --threads 1,2 --sizes 16,4096 --sources bare --plot "$tmp/p.png" 2>"$tmp/err")
rc=$?
if command -v gnuplot >/dev/null; then
	if [ "$rc" -eq 0 ] && [ -s "$tmp/p.png" ] && [ -s "$tmp/p-latency.png" ] &&
		[ "$(head -c 4 "$tmp/p.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
		pass plot_png
	else
		fail plot_png "exit $rc, $(ls "$tmp" | tr '\n' ' '): $(head -c 200 "$tmp/err")"
	fi
else
	if [ "$rc" -eq 0 ] && grep -q 'apt-get install gnuplot-nox' "$tmp/err" && [ -s "$tmp/p.csv" ]; then
		pass plot_without_gnuplot
	else
		fail plot_without_gnuplot "exit $rc, no install hint or no CSV"
	fi
fi
# without gnuplot on PATH: the hint, and the CSV still written
if out=$(PATH=/nonexistent "$(cd "$(dirname "$S")" && pwd)/$(basename "$S")" bench --seconds 0.02 --threads 1 \
	--sizes 16 --sources bare --plot "$tmp/q.png" 2>"$tmp/err"); then
	if grep -q 'apt-get install gnuplot-nox' "$tmp/err" && [ -s "$tmp/q.csv" ] && [ ! -e "$tmp/q.png" ]; then
		pass plot_hint_without_gnuplot
	else
		fail plot_hint_without_gnuplot "no hint, no CSV, or an empty PNG left: $(head -c 200 "$tmp/err")"
	fi
else
	fail plot_hint_without_gnuplot "exit status $?"
fi

# the chart script (a stand-in gnuplot on PATH keeps it): a panel per size
# measured, the x axis at the thread counts measured, a style of its own
# (colour and point type) for every source
mkdir -p "$tmp/fakegp"
printf '#!/bin/sh\ncp "$1" "%s/plot.gp"\n' "$tmp" > "$tmp/fakegp/gnuplot"
chmod +x "$tmp/fakegp/gnuplot"
if PATH="$tmp/fakegp:$PATH" "$S" bench --seconds 0.02 --threads 1,2 --sizes 16,4096,64K \
	--sources bare,getrandom,urandom,vdso --plot "$tmp/g.png" --csv "$tmp/g.csv" >/dev/null 2>"$tmp/err" && [ -s "$tmp/plot.gp" ]; then
	gp=$tmp/plot.gp
	want_sizes=$(awk -F, 'NR > 1 && $8 > 0 { print $3 }' "$tmp/g.csv" | sort -nu | wc -l)
	want_thr=$(awk -F, 'NR > 1 && $8 > 0 { print $4 }' "$tmp/g.csv" | sort -nu | paste -sd, | sed 's/,/, /g')
	panels=$(grep -c "^set title '.* calls'" "$gp")
	if [ "$panels" -eq "$want_sizes" ] && ! grep -q 'NaN notitle' "$gp"; then
		pass plot_panels_measured_sizes
	else
		fail plot_panels_measured_sizes "$panels panels, $want_sizes sizes measured"
	fi
	if grep -qx "set xtics ($want_thr)" "$gp"; then
		pass plot_xtics_measured_threads
	else
		fail plot_xtics_measured_threads "want 'set xtics ($want_thr)': $(grep xtics "$gp" | head -2)"
	fi
	styles=$(grep -c '^set style line ' "$gp")
	distinct=$(sed -n "s/^set style line [0-9]* lc rgb '\(#[0-9a-f]*\)' pt \([0-9]*\).*/\1 \2/p" "$gp" | sort -u | wc -l)
	colours=$(sed -n "s/^set style line [0-9]* lc rgb '\(#[0-9a-f]*\)'.*/\1/p" "$gp" | sort -u | wc -l)
	# every plotted source names its own style, the same in both charts
	per_src=$(grep -o "ls [0-9]* title '[^']*'" "$gp" | sort -u | awk '{ print $4 }' | uniq -d | wc -l)
	per_ls=$(grep -o "ls [0-9]* title '[^']*'" "$gp" | sort -u | awk '{ print $2 }' | uniq -d | wc -l)
	if [ "$styles" -ge 4 ] && [ "$distinct" -eq "$styles" ] && [ "$colours" -eq "$styles" ] &&
		[ "$per_src" -eq 0 ] && [ "$per_ls" -eq 0 ]; then
		pass plot_distinct_styles
	else
		fail plot_distinct_styles "$styles styles, $distinct distinct, $colours colours, $per_src sources with 2 styles, $per_ls styles shared"
	fi
else
	fail plot_script "exit $?, no script: $(head -c 200 "$tmp/err")"
fi

# the table's rows as "source size threads" (size as printed, e.g. "16 B"),
# measured and unmeasured cells alike; reads the run's stdout on stdin
table_cells() {
	awk '/^source .*calls\/s/ { t = 1; next } t && (/^$/ || /^note: /) { exit }
		t && NF >= 4 && $4 ~ /^[0-9]+$/ { print $1, $2, $3, $4 }'
}

# ---- --quick: its fixed plan ----
# Each source where the report reads it: the default backend at the main sizes
# (4 B, 8 B, 16 B, 4 KiB, 64 KiB) and threads 1, 2, 64; the 2015 pools at 4 B,
# 16 B, 4 KiB, 64 KiB and every thread count; bare at the main sizes on 1 and 2
# threads; the other peers at the main sizes on 1 thread; surand_bytes() at 1..32
# bytes on 1 thread; surand_add_event at 4 B on 1 thread.
backends=$("$S" bench --list | sed -n 's/^backends (default first): //p')
def=${backends%%,*}
out=$("$S" bench --quick --seconds 0.01 2>"$tmp/err")
rc=$?
if [ "$rc" -ne 0 ]; then
	fail quick_plan "exit $rc: $(head -c 300 "$tmp/err")"
else
	cells=$(printf '%s\n' "$out" | table_cells)
	absent=$(printf '%s\n' "$out" | sed -n '/^absent:/,/^$/p')
	is_absent_q() { printf '%s\n' "$absent" | grep -Eq "^  $1 +[^ ].*$2"; }
	main="4B 8B 16B 4KiB 64KiB"
	want() { # source, sizes, threads: the expected "source size threads" lines
		for sz in $2; do for t in $3; do echo "$1 $sz $t"; done; done
	}
	{
		want "$def*" "$main" "1 2 64"
		want legacy "4B 16B 4KiB 64KiB" "1 2 64"
		case ",$backends," in *,legacy-spin,*) want legacy-spin "4B 16B 4KiB 64KiB" "1 2 64" ;; esac
		want bare "$main" "1 2"
		want surand-bytes "$(seq 1 32 | sed 's/$/B/' | tr '\n' ' ')" 1
		want add-event 4B 1
		want getrandom "$main" 1
		want urandom "$main" 1
		# run-time peers: a row, or listed absent with why
		for src in vdso arc4random rust-rand libbsd openssl-chacha; do
			is_absent_q "$src" '' || want "$src" "$main" 1
		done
	} | sort >"$tmp/want_cells"
	printf '%s\n' "$cells" | awk '{ print $1, $2 $3, $4 }' | sort >"$tmp/got_cells"
	if cmp -s "$tmp/want_cells" "$tmp/got_cells"; then
		pass quick_plan_cells
	else
		fail quick_plan_cells "cells differ from the plan: $(diff "$tmp/want_cells" "$tmp/got_cells" | grep '^[<>]' | head -5 | tr '\n' ';')"
	fi
	ct=$(printf '%s\n' "$out" | comparisons_of | grep "^  surand ($def) ")
	nt=$(printf '%s\n' "$ct" | grep -Ec ': [0-9.]+x the [A-Za-z].*  \(.*\)$|: not measured \(.+\)$')
	if [ "$nt" -eq 13 ]; then pass quick_plan_comparisons; else fail quick_plan_comparisons "$nt of 13 comparisons worded after --quick"; fi
	# a peer in the table gives its comparison a number: getrandom(2) and the bare body always are
	for w in "vs getrandom(2), 16-byte calls, 1 thread" "vs the bare ChaCha20 body, 64 KiB calls, 1 thread"; do
		if ! printf '%s\n' "$ct" | grep -F "$w" | grep -Eq ': [0-9.]+x the '; then fail quick_plan_comparison_ratios "no ratio for '$w': $(printf '%s\n' "$ct" | grep -F "$w")"; w=; break; fi
	done
	[ -n "$w" ] && pass quick_plan_comparison_ratios
	# each small-draw comparison is there in plain words
	for w in "vs the vDSO getrandom, 4-byte calls" "vs the vDSO getrandom, 16-byte calls" "surand_u32() vs Rust's thread_rng" \
		"surand_u64() vs Rust's thread_rng" "vs Rust's thread_rng(), 16-byte" "surand_u64() vs surand_u32()" \
		"surand_bytes() at 1..32 bytes" "surand_add_event() vs the vDSO" "vs OpenSSL's EVP ChaCha20, 64 KiB" \
		"1 -> 2 threads, its scaling vs the bare" "at 64 threads vs itself at 2 threads"; do
		if ! printf '%s\n' "$ct" | grep -qF "$w"; then fail quick_plan_comparison_words "no comparison line with '$w'"; w=; break; fi
	done
	[ -n "$w" ] && pass quick_plan_comparison_words
	# the claims: "faster" is judged wherever the vDSO has a row, from the two ratios
	cl=$(printf '%s\n' "$out" | claims_of)
	fc=$(printf '%s\n' "$cl" | grep "^  faster than the kernel's own vDSO getrandom ")
	if [ "$(printf '%s\n' "$cl" | grep -c .)" -ne 2 ] || [ -n "$(printf '%s\n' "$cl" | claims_unworded)" ]; then
		fail quick_plan_claims "want 2 claims in words: $(printf '%s' "$cl" | tr '\n' ';')"
	elif printf '%s\n' "$cells" | awk '{ print $1 }' | grep -qx vdso &&
		! printf '%s\n' "$fc" | grep -Eq ': (holds|does not hold here) \([0-9.]+x, [0-9.]+x\)$'; then
		fail quick_plan_claims "the vDSO was measured but the claim has no two ratios: $fc"
	elif [ "$(nproc)" -le 2 ] && ! printf '%s\n' "$cl" | grep -q "^  scales with cores (.*): not judged: $(nproc) CPUs\?$"; then
		fail quick_plan_claims "scaling judged on $(nproc) CPUs: $(printf '%s\n' "$cl" | grep 'scales with')"
	elif [ "$(nproc)" -gt 2 ] && ! printf '%s\n' "$cl" | grep -Eq '^  scales with cores \(.*\): (holds|does not hold here) \([0-9.]+x at [0-9]+ threads'; then
		fail quick_plan_claims "scaling not judged on $(nproc) CPUs: $(printf '%s\n' "$cl" | grep 'scales with')"
	else
		pass quick_plan_claims
	fi
	if [ -z "$(printf '%s\n' "$out" | graded_lines)" ]; then
		pass quick_plan_no_grades
	else
		fail quick_plan_no_grades "$(printf '%s\n' "$out" | graded_lines | head -2 | tr '\n' ';')"
	fi
	# the words section (bench words): its comparisons against Rust's loop, the FFI call, the bare body
	wl=$(printf '%s\n' "$out" | sed -n '/^comparisons of the inline path and the bulk calls with the peers of this run/,/^$/p' | grep '^  ')
	nwl=$(printf '%s\n' "$wl" | grep -Ec ': [0-9.]+x the (time per draw|bytes/s)  \(|: not measured \(.+\)$')
	if [ "$(printf '%s\n' "$wl" | grep -c .)" -eq 6 ] && [ "$nwl" -eq 6 ] &&
		printf '%s\n' "$wl" | grep -Eq '^  surand_u32s\(\) vs the bare ChaCha20 body, 64 KiB per call: [0-9.]+x the bytes/s' &&
		printf '%s\n' "$wl" | grep -q 'native Rust loop' && printf '%s\n' "$wl" | grep -q 'via FFI per call'; then
		pass quick_plan_words_comparisons
	else
		fail quick_plan_words_comparisons "want 6 comparisons in words, got $nwl: $(printf '%s' "$wl" | head -2 | tr '\n' ';')"
	fi
	# the peers of the small-draw comparisons: measured, or absent with the packages to install
	for src in rust-rand:'apt-get install cargo librust-rand-dev' libbsd:'apt-get install libbsd0'; do
		name=${src%%:*} apt=${src#*:}
		if printf '%s\n' "$cells" | awk '{ print $1 }' | grep -qx "$name"; then
			pass "quick_peer_${name}_measured"
		elif is_absent_q "$name" "$apt"; then
			skip "quick_peer_${name}_measured" "$(printf '%s\n' "$absent" | grep -E "^  $name " | sed 's/^ *//')"
		else
			fail "quick_peer_${name}_measured" "neither a row nor absent with '$apt'"
		fi
	done
fi

# ---- a source with one call size (add-event: 4 B): only there ----
out=$("$S" bench --sources add-event,bare --sizes 4,16 --threads 1 --seconds 0.01 2>"$tmp/err")
rc=$?
rows=$(printf '%s\n' "$out" | table_cells | awk '$1 == "add-event" { print $2 $3 }' | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$rows" = "4B " ]; then pass add_event_only_4_bytes; else fail add_event_only_4_bytes "exit $rc, add-event rows at '$rows'"; fi
out=$("$S" bench --sources add-event --sizes 16 --threads 1 --seconds 0.01 2>"$tmp/err")
rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | sed -n '/^absent:/,/^$/p' | grep -Eq '^  add-event +measured at 4-byte calls only'; then
	pass add_event_absent_at_other_sizes
else
	fail add_event_absent_at_other_sizes "exit $rc, not listed absent with why: $(printf '%s\n' "$out" | grep add-event | head -2)"
fi

# ---- the default thread list: 1, 2, 4, nproc, 4*nproc, 64, duplicates removed ----
n=$(nproc)
want_thr=$(printf '%s\n' 1 2 4 "$n" $((4 * n)) 64 | awk '$1 <= 4096' | sort -nu | tr '\n' ' ')
out=$("$S" bench --sources bare --sizes 16 --seconds 0.01 2>"$tmp/err")
rc=$?
got_thr=$(printf '%s\n' "$out" | table_cells | awk '$1 == "bare" { print $4 }' | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$got_thr" = "$want_thr" ]; then
	pass default_threads
else
	fail default_threads "exit $rc, threads '$got_thr', want '$want_thr' (nproc $n)"
fi

# ---- optional sources: a row each, or listed absent with why ----
# The build has OpenSSL / libsodium when pkg-config finds them (the Makefile's
# HAVE_OPENSSL / HAVE_SODIUM test); the vDSO and arc4random depend on the
# kernel and glibc at run time.
have_pc() { command -v pkg-config >/dev/null && pkg-config --exists "$1" 2>/dev/null; }
out=$("$S" bench --sources vdso,arc4random,openssl-rand,openssl-chacha,sodium,rust-rand,libbsd --sizes 16 --threads 1 \
	--seconds 0.01 2>"$tmp/err")
rc=$?
absent=$(printf '%s\n' "$out" | sed -n '/^absent:/,/^$/p')
rows=$(printf '%s\n' "$out" | table_cells | awk '{ print $1 }')
is_row() { printf '%s\n' "$rows" | grep -qx "$1"; }
is_absent() { printf '%s\n' "$absent" | grep -Eq "^  $1 +[^ ].*$2"; }
if [ "$rc" -ne 0 ]; then
	fail optional_sources "exit $rc: $(head -c 300 "$tmp/err")"
else
	for src in openssl-rand openssl-chacha sodium; do
		case $src in openssl-*) pc=libcrypto ;; *) pc=libsodium ;; esac
		if have_pc "$pc"; then
			if is_row "$src" && ! is_absent "$src" ''; then pass "optional_${src}_row"
			else fail "optional_${src}_row" "the build has $pc but $src is not a table row"; fi
		else
			if is_absent "$src" 'apt-get install' && ! is_row "$src"; then pass "optional_${src}_absent_why"
			else fail "optional_${src}_absent_why" "built without $pc but $src not listed absent with the apt-get line"; fi
		fi
	done
	for src in vdso arc4random; do
		if is_row "$src" || is_absent "$src" ''; then pass "optional_${src}_row_or_why"
		else fail "optional_${src}_row_or_why" "$src is neither a row nor listed absent with why"; fi
	done
	# loaded at run time: a row, or absent with the apt-get line (a failure in CI,
	# where scripts/install-deps.sh installs them)
	for src in rust-rand:'apt-get install cargo librust-rand-dev' libbsd:'apt-get install libbsd0'; do
		name=${src%%:*} apt=${src#*:}
		if is_row "$name" && ! is_absent "$name" ''; then pass "optional_${name}_row"
		elif is_absent "$name" "$apt" && ! is_row "$name"; then
			skip "optional_${name}_row" "$(printf '%s\n' "$absent" | grep -E "^  $name " | sed 's/^ *//')"
		else fail "optional_${name}_row" "$name is neither a row nor absent with '$apt'"; fi
	done
fi

# ---- the peers' libraries are opened at run time, never linked ----
# The command has OpenSSL's and libsodium's rows without either library in its
# NEEDED entries: the surand package only suggests them (debian/control).
needed=$(readelf -d "$S" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ -z "$needed" ]; then
	fail peers_not_linked "readelf -d $S printed no NEEDED entry (apt-get install binutils)"
elif printf '%s\n' "$needed" | grep -Eq '^lib(crypto|ssl|sodium)\.so'; then
	fail peers_not_linked "$S links $(printf '%s\n' "$needed" | grep -E '^lib(crypto|ssl|sodium)' | tr '\n' ' ')"
else
	pass peers_not_linked
fi

# ---- "few calls": cells with fewer calls than 4 x threads are flagged ----
# legacy serialises every call on one lock, so 64 KiB calls at 8 and 64 threads
# in a 0.01 s window make about one call per thread (or none: "no call
# completed"); bare 16 B on 1 thread makes thousands.  The flag in the table,
# the CSV's few_calls and the JSON's must agree with calls < 4 x threads.
out=$("$S" bench --sources legacy,bare --sizes 16,4096,65536 --threads 1,8,64 --seconds 0.01 \
	--csv "$tmp/f.csv" --json "$tmp/f.json" 2>"$tmp/err")
rc=$?
if [ "$rc" -ne 0 ]; then
	fail few_calls "exit $rc: $(head -c 300 "$tmp/err")"
else
	ntab=$(printf '%s\n' "$out" | sed -n '/^source .*calls\/s/,/^$/p' | grep -c ' few calls$')
	ncsv=$(awk -F, 'NR > 1 && $19 == "1"' "$tmp/f.csv" | wc -l)
	wrong=$(awk -F, 'NR > 1 && $5 != "" && ($19 != ($6 < 4 * $4 ? "1" : "0")) { print $1, $3, $4, $6, $19 }' "$tmp/f.csv")
	if [ "$ntab" -ge 1 ] && [ "$ntab" -eq "$ncsv" ] && [ -z "$wrong" ]; then
		pass few_calls_flagged
	else
		fail few_calls_flagged "$ntab flagged rows in the table, $ncsv in the CSV; rows where few_calls != (calls < 4 x threads): ${wrong:-none}"
	fi
	if printf '%s\n' "$out" | grep -q '^note: .* fewer calls than 4 x threads ("few calls" in check)'; then
		pass few_calls_legend
	else
		fail few_calls_legend "no legend line for the flag"
	fi
	if printf '%s\n' "$out" | grep -Eq '^bare +16 B +1 .* ok$'; then
		pass few_calls_not_on_fast_cell
	else
		fail few_calls_not_on_fast_cell "bare 16 B at 1 thread flagged or missing"
	fi
	if command -v python3 >/dev/null; then
		if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [r for r in d["results"] if "calls" in r]
assert all(r["few_calls"] == (r["calls"] < 4 * r["threads"]) for r in m), "few_calls disagrees with calls"
assert sum(r["few_calls"] for r in m) == int(sys.argv[2]), "JSON and CSV flag different cells"
' "$tmp/f.json" "$ncsv" 2>"$tmp/perr"; then
			pass few_calls_json
		else
			fail few_calls_json "$(tail -n 1 "$tmp/perr")"
		fi
	else
		skip few_calls_json "no python3 to parse the JSON (apt-get install python3)"
	fi
fi

# ---- the progress line, on a terminal (script(1) gives stderr a pty) ----
if command -v script >/dev/null; then
	script -qc "$(printf '%q' "$S") bench --sources bare --sizes 16 --threads 1,2 --seconds 0.01 >/dev/null" \
		/dev/null >"$tmp/tty" 2>&1 </dev/null
	if tr '\r' '\n' <"$tmp/tty" | grep -Eq '\[[0-9]+/2\] bare, 16 B, [12] threads?, ETA [0-9]+m[0-9]{2}s'; then
		pass progress_on_tty
	else
		fail progress_on_tty "no progress line with source, size, threads and ETA on a terminal: $(tr '\r\033' '  ' <"$tmp/tty" | head -c 200)"
	fi
else
	skip progress_on_tty "no script(1) to give stderr a terminal (apt-get install bsdutils)"
fi

# ---- the bench build: counters and marker ----
sw=$BUILD/bench/shared_writes
if [ -x "$sw" ]; then
	"$sw" --selftest
	if strings "$BUILD/bench/libsurand-bench.a" | grep -q 'surand-bench-build'; then
		pass bench_build_marker
	else
		fail bench_build_marker "no surand-bench-build string in the bench library"
	fi
	if strings "$BUILD/libsurand.a" "$BUILD/libsurand.so" | grep -q 'surand-bench-build'; then
		fail release_has_no_marker "the shipped library carries the bench marker"
	else
		pass release_has_no_marker
	fi
	out=$("$sw" --seconds 0.02 --threads 1 --sizes 16 2>&1)
	if printf '%s\n' "$out" | grep -Eq '^thread +16 +1 +[0-9]+ +[0-9.]+ +[0-9.e+-]+ +[0-9.e+-]+$'; then
		pass shared_writes_row
	else
		fail shared_writes_row "no row for the default backend: $(printf '%s' "$out" | tail -n 2)"
	fi
	# The counts are the designs' own, independent of the hardware: thread's
	# fast path takes no lock and does no RMW (a slow-path re-key shows as a
	# tiny fraction); legacy takes its one lock per 10-byte SHA-1 extraction
	# (16 B: 2, 4 KiB: 410); percpu one per call.
	out=$("$sw" --backends thread,legacy,percpu --sizes 16,4096 --threads 1,2 --seconds 0.05 2>&1)
	bad=$(printf '%s\n' "$out" | awk '
		function want(b, sz, r, l) {
			if (b == "thread") return r == 0 && l < 0.001
			if (b == "legacy") return r == 0 && l == (sz == 16 ? 2 : 410)
			if (b == "percpu") return l >= 1 && l < 1.01 # a first call on a CPU may add a base re-key
			return 0
		}
		$1 ~ /^(thread|legacy|percpu)$/ && NF == 7 { n++; if (!want($1, $2, $6 + 0, $7 + 0)) print $0 }
		END { if (n != 12) print "rows: " n " of 12" }')
	if [ -z "$bad" ]; then
		pass shared_writes_designs
	else
		fail shared_writes_designs "counts off the designs': $bad"
	fi
else
	fail shared_writes_built "$sw not built (make check builds it)"
fi

# ---- bench/overhead: the per-call costs, through the real shared library ----
ov=$BUILD/bench/overhead
if [ -x "$ov" ]; then
	out=$("$ov" --calls 20000 --rounds 2 2>"$tmp/err")
	rc=$?
	# 11 rows "what ... ns/call above", the surand rows last, every figure a number
	rows=$(printf '%s\n' "$out" | awk '/^what +ns\/call/ { t = 1; next } t && /^reading:/ { exit }
		t && $(NF - 1) ~ /^[0-9]+\.[0-9][0-9]$/ && ($NF == "-" || $NF ~ /^[-+][0-9]+\.[0-9][0-9]$/) { n++ }
		END { print n + 0 }')
	if [ "$rc" -eq 0 ] && [ "$rows" -eq 11 ] &&
		printf '%s\n' "$out" | grep -q '^empty function in a shared object, through the PLT ' &&
		printf '%s\n' "$out" | grep -q '^surand_bytes(buf, 16), libsurand.so through the PLT ' &&
		printf '%s\n' "$out" | grep -q '^overhead: .*best of 2 rounds of 20000 calls'; then
		pass overhead_rows
	else
		fail overhead_rows "exit $rc, $rows of 11 rows: $(head -c 200 "$tmp/err")"
	fi
	# the inline draw taken apart: 5 model rows, 2 of them again without the
	# cipher, the real inline draw, 3 rows
	# of the cursor layout's model, Rust's loop (a figure where the peer is
	# built, as CI builds it; else "absent")
	irows=$(printf '%s\n' "$out" | awk '/^inline: / { t = 1; next } t && /^what +ns\/call/ { u = 1; next }
		u && /^reading:/ { exit }
		u && $(NF - 1) ~ /^[0-9]+\.[0-9][0-9]$/ && ($NF == "-" || $NF ~ /^[-+][0-9]+\.[0-9][0-9]$/) { n++ }
		END { print n + 0 }')
	want=12
	if [ ! -f "$BUILD/libsurand-rust-rand-peer.so" ]; then
		want=11
		skip overhead_inline_rust_row "the Rust peer is not built (apt-get install cargo librust-rand-dev, then make)"
	fi
	if [ "$irows" -eq "$want" ] &&
		printf '%s\n' "$out" | grep -q '^position chain: load, check, 4-byte copy + zero, store ' &&
		printf '%s\n' "$out" | grep -q '^surand_u32() inline (SURAND_INLINE), libsurand.so '; then
		pass overhead_inline_rows
	else
		fail overhead_inline_rows "$irows of $want rows with a figure in the inline table"
	fi
	# surand's calls come from the shared library, not a static copy
	if printf '%s\n' "$out" | grep -Eq '^surand_u32 from .*/libsurand\.so\.1 \(backend [a-z0-9-]+\)$'; then
		pass overhead_through_shared_library
	else
		fail overhead_through_shared_library "$(printf '%s\n' "$out" | grep 'from' | head -1)"
	fi
	"$ov" --calls 10 >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 64 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ]; then pass overhead_bad_option; else fail overhead_bad_option "exit $rc"; fi
else
	fail overhead_built "$ov not built (make check builds it)"
fi

# ---- bench kleen / bench mixed (tools/surand/bench/bench_debate.c) ---------------------------
bad kleen_bad_threads kleen --threads 0
bad kleen_bad_seconds kleen --seconds x
bad kleen_bad_option kleen --nosuch 1
bad mixed_bad_design mixed --designs nosuch
bad mixed_bad_abusers mixed --abusers -1
# Kleen's comparison: every variant at every thread count; legacy is the
# reference (1.00x); the SURAND_NODES=2 run really had two pools.
out=$("$S" bench kleen --threads 1,2 --seconds 0.02 --rounds 1 --csv "$tmp/k.csv" 2>&1)
rc=$?
rows=$(printf '%s\n' "$out" | awk '$2 ~ /^[0-9]+$/ && $5 ~ /x$/ && $6 ~ /x$/' | wc -l)
if [ "$rc" -eq 0 ] && [ "$rows" -eq 14 ] &&
	printf '%s\n' "$out" | grep -Eq '^multipool-nodes2 +2 +2 +[0-9.]+ +[0-9.]+x +[0-9.]+x$' &&
	printf '%s\n' "$out" | grep -Eq '^legacy +1 +- +[0-9.]+ +1\.00x +1\.00x$' &&
	[ "$(wc -l < "$tmp/k.csv")" -eq 15 ]; then
	pass kleen_table
else
	fail kleen_table "rc $rc, $rows rows: $(printf '%s' "$out" | tail -n 3)"
fi
# The mixed workload: a row per design and abuser count; latencies ordered;
# taskcrng-pool keeps the careful thread on the shared pool.
out=$("$S" bench mixed --designs legacy,tso2015,taskcrng-pool --abusers 0,1 --seconds 0.1 \
	--csv "$tmp/m.csv" 2>&1)
rc=$?
bad=$(printf '%s\n' "$out" | awk '
	$1 ~ /^(legacy|tso2015|taskcrng-pool)$/ && NF == 9 {
		n++
		if (!($3 <= $4 && $4 <= $5 && $6 >= 1)) print "unordered or no reads: " $0
		if ($1 == "taskcrng-pool" && $9 != "no") print "careful thread left the pool: " $0
	}
	END { if (n != 6) print "rows: " n " of 6" }')
if [ "$rc" -eq 0 ] && [ -z "$bad" ] && [ "$(wc -l < "$tmp/m.csv")" -eq 7 ]; then
	pass mixed_table
else
	fail mixed_table "rc $rc: $bad $(printf '%s' "$out" | tail -n 2)"
fi
exit 0
