#!/usr/bin/env bash
# cli.sh - the surand command end to end: sizes and suffixes (also as the one
# operand), formats, threads (-j 0: one per CPU), surand run (the preload),
# closed pipes, progress, every error path (exit status + one-line message),
# wipe of a regular file (and of a loop device where losetup works; and of a
# target whose reads or fsync fail, through the fault library
# tests/cli_fault.c), stats, selftest, --help/--version, and the man pages
# (render cleanly, document every option, function and environment variable,
# installed by make install).
# Prints PASS/FAIL/SKIP lines (tests/harness.h); SURAND_REQUIRE_ALL=1 turns a
# SKIP into a FAIL.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
S=$top/$BUILD/surand
[ -x "$S" ] || { echo "FAIL cli/build: $S missing (make first)"; exit 1; }
tmp=$(mktemp -d)
loopdev=
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# A cross build (make check-arm64): the command runs under the emulator.
if [ -n "${SURAND_TEST_RUNNER:-}" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$SURAND_TEST_RUNNER" "$S" >"$tmp/surand-run"
	chmod +x "$tmp/surand-run"
	S=$tmp/surand-run
fi

pass() { echo "PASS cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; }
skip() {
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ] &&
		! { [ -n "${SURAND_SKIP_ALLOWED:-}" ] && printf '%s\n' "$2" | grep -qE "$SURAND_SKIP_ALLOWED"; }; then
		echo "FAIL cli/$1: skipped under SURAND_REQUIRE_ALL=1: $2"
	else
		echo "SKIP cli/$1: $2"
	fi
}
# ok NAME COND-RESULT(0/1) WHY
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }

# ---- sizes and suffixes: exact byte counts -----------------------------------
bad=
for spec in 0:0 1:1 31:31 1000:1000 1K:1024 1k:1024 1KiB:1024 1kB:1000 1KB:1000 \
	3M:3145728 3MiB:3145728 2MB:2000000 1048577:1048577 2097153:2097153 0G:0 0T:0; do
	arg=${spec%%:*} want=${spec##*:}
	got=$("$S" -n "$arg" | wc -c)
	[ "$got" = "$want" ] || bad="$bad -n $arg gave $got, want $want;"
	got=$("$S" -n "$arg" -f raw -j 3 | wc -c)
	[ "$got" = "$want" ] || bad="$bad -n $arg -j 3 gave $got, want $want;"
done
check sizes "$([ -z "$bad" ]; echo $?)" "$bad"
got=$("$S" | wc -c)
check default_size_32_raw_when_piped "$([ "$got" = 32 ]; echo $?)" "got $got bytes"
# on a terminal the default is hex: 64 digits and a newline (script(1) gives a pty)
if command -v script >/dev/null; then
	out=$(script -qc "'$S'" /dev/null < /dev/null | tr -d '\r')
	check default_hex_on_terminal "$(printf '%s' "$out" | grep -Eqx '[0-9a-f]{64}'; echo $?)" "got '$out'"
else
	skip default_hex_on_terminal "script(1) not installed (apt-get install bsdutils)"
fi
got=$("$S" -n 1G -j 2 | wc -c)
check size_1G "$([ "$got" = 1073741824 ]; echo $?)" "got $got bytes"

# ---- threads: -j 1 and -j 4 give the length, disjoint chunks -------------------
ok=0 why=
for j in 1 2 4; do
	"$S" -n 8M -j $j -o "$tmp/j$j" || { ok=1; why="$why -j $j failed;"; }
	sz=$(stat -c %s "$tmp/j$j")
	[ "$sz" = 8388608 ] || { ok=1; why="$why -j $j wrote $sz bytes;"; }
	# eight 1 MiB pieces: all distinct (no chunk written twice), none zero
	n=$(split -b 1M -d "$tmp/j$j" "$tmp/piece$j." && md5sum "$tmp"/piece$j.* | awk '{print $1}' | sort -u | wc -l)
	[ "$n" = 8 ] || { ok=1; why="$why -j $j: only $n distinct MiB;"; }
	z=$(head -c 1048576 /dev/zero | md5sum | awk '{print $1}')
	md5sum "$tmp"/piece$j.* | grep -q "$z" && { ok=1; why="$why -j $j: a zero MiB;"; }
done
cmp -s "$tmp/j1" "$tmp/j4" && { ok=1; why="$why two runs gave the same bytes;"; }
check threads_length_and_chunks $ok "$why"
# random-looking: incompressible (patterned, zeroed or repeated output would shrink)
csz=$(gzip -1 -c "$tmp/j4" | wc -c)
check output_incompressible "$([ "$csz" -gt 8388608 ]; echo $?)" "8 MiB gzip to $csz bytes"

# ---- formats ------------------------------------------------------------------
out=$("$S" -n 100 -f hex)
check hex_100 "$(printf '%s' "$out" | grep -Eq '^[0-9a-f]{200}$'; echo $?)" "got '$out'"
got=$("$S" -n 100 -f hex | wc -c)
check hex_newline "$([ "$got" = 201 ]; echo $?)" "got $got chars"
got=$("$S" -n 0 -f hex | wc -c)
check hex_empty "$([ "$got" = 0 ]; echo $?)" "got $got chars"
# -n inf: one endless line of digits, no newline anywhere in it
got=$("$S" -n inf -f hex | head -c 300000 | tr -d '0-9a-f' | wc -c)
check hex_inf_no_newline "$([ "$got" = 0 ]; echo $?)" "$got characters other than hex digits in 300000"
"$S" -n 3M -f hex -j 3 > "$tmp/hex"
lines=$(wc -l < "$tmp/hex") chars=$(tr -d '0-9a-f' < "$tmp/hex" | wc -c) sz=$(stat -c %s "$tmp/hex")
check hex_3M_one_line "$([ "$lines" = 1 ] && [ "$chars" = 1 ] && [ "$sz" = 6291457 ]; echo $?)" \
	"lines $lines, non-hex $chars, size $sz"
ok=0 why=
for n in 0 1 2 3 56 57 58 1000 1048576 1048579; do
	"$S" -n $n -f base64 -j 2 > "$tmp/b64"
	dec=$(base64 -d < "$tmp/b64" | wc -c)
	long=$(awk 'length($0) > 76' "$tmp/b64" | wc -l)
	short=$(head -n -1 "$tmp/b64" | awk 'length($0) != 76' | wc -l)
	[ "$dec" = "$n" ] && [ "$long" = 0 ] && [ "$short" = 0 ] || { ok=1; why="$why n=$n: decoded $dec, long $long, short $short;"; }
done
check base64_lengths_and_lines $ok "$why"
uuid_re='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
"$S" -n 20000 -f uuid -j 4 > "$tmp/uuid"
n=$(wc -l < "$tmp/uuid") good=$(grep -Ec "$uuid_re" "$tmp/uuid") uniq=$(sort -u "$tmp/uuid" | wc -l)
check uuid_v4_well_formed "$([ "$n" = 20000 ] && [ "$good" = 20000 ] && [ "$uniq" = 20000 ]; echo $?)" \
	"lines $n, well formed $good, distinct $uniq"
# the variant nibble takes all of 8, 9, a, b (its low 2 bits are random)
nv=$(cut -c20 "$tmp/uuid" | sort -u | tr -d '\n')
check uuid_variant_nibbles "$([ "$nv" = 89ab ]; echo $?)" "variant nibbles '$nv'"
got=$("$S" -f uuid | grep -Ec "$uuid_re")
check uuid_default_one "$([ "$got" = 1 ]; echo $?)" "got $got"
got=$("$S" -n 1K -f uuid | wc -l)
check uuid_count_suffix "$([ "$got" = 1024 ]; echo $?)" "got $got"

# ---- -o FILE ------------------------------------------------------------------
rm -f "$tmp/o"
"$S" -n 5000 -o "$tmp/o"
mode=$(stat -c %a "$tmp/o") sz=$(stat -c %s "$tmp/o")
check output_file "$([ "$sz" = 5000 ] && [ "$mode" = 600 ]; echo $?)" "size $sz mode $mode"
"$S" -n 10 -o "$tmp/o"
sz=$(stat -c %s "$tmp/o")
check output_truncates "$([ "$sz" = 10 ]; echo $?)" "size $sz"
# an existing file is truncated and keeps its mode (only a new one gets 0600)
ok=0 why=
for m in 644 640 604 660; do
	rm -f "$tmp/om"
	head -c 100000 /dev/zero > "$tmp/om"
	chmod "$m" "$tmp/om"
	ino0=$(stat -c %i "$tmp/om")
	"$S" -n 77 -o "$tmp/om" 2>"$tmp/err"
	rc=$? got=$(stat -c %a "$tmp/om") sz=$(stat -c %s "$tmp/om") ino=$(stat -c %i "$tmp/om")
	[ "$rc" = 0 ] && [ "$got" = "$m" ] && [ "$sz" = 77 ] && [ "$ino" = "$ino0" ] ||
		{ ok=1; why="$why mode $m: rc $rc, mode now $got, size $sz, inode $ino0 -> $ino;"; }
done
check output_existing_keeps_mode $ok "$why"
got=$("$S" -n 77 -o - | wc -c)
check output_dash_stdout "$([ "$got" = 77 ]; echo $?)" "got $got"

# ---- closed pipe: exit 0, quietly ----------------------------------------------
ok=0 why=
for args in "-n inf" "-n inf -j 4" "-n inf -f hex" "-n inf -f uuid -j 2" "-n 1G" "" stats --help; do
	# shellcheck disable=SC2086
	got=$("$S" $args 2>"$tmp/err" | head -c 10 | wc -c; echo "rc=${PIPESTATUS[0]}")
	exp="10 rc=0"
	[ "$(echo $got)" = "$exp" ] && [ ! -s "$tmp/err" ] || { ok=1; why="$why '$args': $(echo $got) $(head -c 200 "$tmp/err");"; }
done
check closed_pipe_exit_0 $ok "$why"

# ---- progress ------------------------------------------------------------------
"$S" -n 3M -o /dev/null --progress 2>"$tmp/err"
check progress_forced "$(grep -q '3.00 MiB / 3.00 MiB 100%.*/s  ETA' "$tmp/err"; echo $?)" \
	"stderr: $(head -c 300 "$tmp/err")"
"$S" -n inf --progress 2>"$tmp/err" | head -c 5000000 >/dev/null
check progress_inf "$(grep -Eq '^surand: [0-9.]+ (B|KiB|MiB|GiB) .*/s' "$tmp/err"; echo $?)" \
	"stderr: $(head -c 300 "$tmp/err")"
# the final state is printed once: no line repeated at the end
ok=0 why=
for args in "-n 32" "-n 0" "-n 3M" "-n 3M -j 3" "-n 10 -f uuid"; do
	# shellcheck disable=SC2086
	"$S" --progress $args -o /dev/null 2>"$tmp/err"
	n=$(grep -c '100%' "$tmp/err") dup=$(sed 's/[0-9.]* [KMG]*i*B\/s.*//' "$tmp/err" | uniq -d | wc -l)
	[ "$n" = 1 ] && [ "$dup" = 0 ] || { ok=1; why="$why '$args': $n final lines, $dup repeated: $(head -c 200 "$tmp/err");"; }
done
check progress_final_line_once $ok "$why"
"$S" -n 3M -o /dev/null 2>"$tmp/err"
check progress_off_when_not_tty "$([ ! -s "$tmp/err" ]; echo $?)" "stderr: $(head -c 300 "$tmp/err")"
# started with fd 2 (or 0 and 1) closed, the file opened next must not become
# standard error: the output file holds the random bytes and no progress text
ok=0 why=
for closed in "2>&-" "<&- 2>&-" "<&- >&- 2>&-"; do
	rm -f "$tmp/pout"
	sh -c "exec '$S' -n 3M --progress -o '$tmp/pout' $closed"; rc=$?
	sz=$(stat -c %s "$tmp/pout" 2>/dev/null) text=$(grep -a -c 'surand: ' "$tmp/pout")
	[ "$rc" = 0 ] && [ "$sz" = 3145728 ] && [ "$text" = 0 ] ||
		{ ok=1; why="$why '$closed': rc $rc, size $sz, $text progress lines in the file;"; }
done
check progress_closed_stderr_not_in_output $ok "$why"

# ---- errors: documented status, exactly one line on stderr, nothing on stdout ----
mkdir -p "$tmp/dir"
errcase() { # name status command...
	local name=$1 want=$2 rc lines
	shift 2
	"$@" >"$tmp/eout" 2>"$tmp/eerr" </dev/null
	rc=$?
	lines=$(wc -l < "$tmp/eerr")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && [ ! -s "$tmp/eout" ] && grep -q '^surand: ' "$tmp/eerr"; then
		pass "error_$name"
	else
		fail "error_$name" "status $rc (want $want), $lines stderr lines: $(head -c 300 "$tmp/eerr")"
	fi
}
errcase size_junk_suffix 64 "$S" -n 1x
errcase size_negative 64 "$S" -n -5
errcase size_empty 64 "$S" -n ""
errcase size_fraction 64 "$S" -n 1.5M
errcase size_overflow 64 "$S" -n 99999999999999999999
errcase size_overflow_suffix 64 "$S" -n 17179869184G
errcase size_missing 64 "$S" -n
errcase format_unknown 64 "$S" -f binary
errcase option_unknown_long 64 "$S" --bogus
errcase option_unknown_short 64 "$S" -x
errcase threads_negative 64 "$S" -j -1
errcase size_operand_junk 64 "$S" five
errcase size_operand_twice 64 "$S" -n 5 6
errcase size_operand_two 64 "$S" 5 6
errcase option_bundle_unknown 64 "$S" -hex 16
errcase threads_too_many 64 "$S" -j 100000
errcase threads_junk 64 "$S" -j two
errcase extra_argument 64 "$S" -n 5 five
errcase output_no_dir 74 "$S" -n 5 -o "$tmp/no/such/dir/x"
errcase output_is_dir 74 "$S" -n 5 -o "$tmp/dir"
errcase output_full 74 "$S" -n 5 -o /dev/full
errcase stdout_full 74 sh -c "exec '$S' -n 100 >/dev/full"
errcase stdout_closed 74 sh -c "exec '$S' -n 100 >&-"
errcase version_stdout_full 74 sh -c "exec '$S' --version >/dev/full"
errcase stats_stdout_full 74 sh -c "exec '$S' stats >/dev/full"
errcase wipe_no_path 64 "$S" wipe
errcase run_no_command 64 "$S" run
errcase run_option_unknown 64 "$S" run --bogus true
errcase stats_pid_refused 64 "$S" stats --pid 1
errcase selftest_stdout_full 74 sh -c "exec '$S' selftest >/dev/full"
errcase bench_help_stdout_full 74 sh -c "exec '$S' bench --help >/dev/full"
errcase wipe_help_stdout_full 74 sh -c "exec '$S' wipe --help >/dev/full"
errcase stats_help_stdout_full 74 sh -c "exec '$S' stats --help >/dev/full"
errcase selftest_help_stdout_full 74 sh -c "exec '$S' selftest --help >/dev/full"
errcase run_help_stdout_full 74 sh -c "exec '$S' run --help >/dev/full"
errcase help_stdout_full 74 sh -c "exec '$S' --help >/dev/full"
errcase wipe_missing 74 "$S" wipe "$tmp/no-such-file"
errcase wipe_directory 64 "$S" wipe "$tmp/dir"
errcase wipe_char_device 64 "$S" wipe /dev/null
mkfifo "$tmp/fifo"
errcase wipe_fifo 64 timeout 20 "$S" wipe "$tmp/fifo" # refused, never opened (no wait for a writer)
errcase wipe_passes_zero 64 "$S" wipe --passes 0 "$tmp/o"
errcase wipe_passes_junk 64 "$S" wipe --passes x "$tmp/o"
errcase wipe_option_unknown 64 "$S" wipe --bogus "$tmp/o"
errcase stats_argument 64 "$S" stats now
errcase selftest_argument 64 "$S" selftest now

# the message names what was wrong
"$S" -hex 16 2>"$tmp/err" >/dev/null
check option_bundle_names_itself "$(grep -q "option '-h' is unknown" "$tmp/err" && ! grep -q "'$S'" "$tmp/err"; echo $?)" \
	"stderr: $(head -c 200 "$tmp/err")"
# an option error names the option as written and says what is wrong with it
optmsg() { # name "message" command...
	local name=$1 want=$2
	shift 2
	errcase "$name" 64 "$@"
	check "${name}_message" "$(grep -qF "$want" "$tmp/eerr"; echo $?)" \
		"want \"$want\", stderr: $(head -c 200 "$tmp/eerr")"
}
optmsg option_takes_no_value "option '--progress' takes no value" "$S" --progress=1
optmsg option_abbrev_takes_no_value "option '--prog' takes no value" "$S" --prog=1 -n 5
optmsg wipe_option_takes_no_value "wipe: option '--verify' takes no value" "$S" wipe --verify=yes "$tmp/o"
optmsg wipe_option_ambiguous "wipe: option '--p' is ambiguous" "$S" wipe --p 2 "$tmp/o"
optmsg option_unknown_long_named "option '--bogus' is unknown" "$S" --bogus=3
optmsg option_unknown_after_long "option '-x' is unknown" "$S" --progress -xy
optmsg option_needs_value_long "option '--size' needs a value" "$S" --size
optmsg option_needs_value_abbrev "option '--thr' needs a value" "$S" --thr
optmsg wipe_option_needs_value "wipe: option '--passes' needs a value" "$S" wipe --passes
# bench: the same one-line "surand: ..." errors, before any measuring
optmsg bench_unknown_subcommand "surand: bench: unknown subcommand 'nosuchsub'" "$S" bench nosuchsub
optmsg bench_unknown_option "surand: bench: unknown option '--bogus'" "$S" bench --bogus
optmsg bench_chacha_unknown_option "surand: bench chacha: unknown option '--bogus'" "$S" bench chacha --bogus
optmsg bench_chacha_bad_ms "surand: bench chacha: bad --ms value '0'" "$S" bench chacha --ms 0
optmsg bench_chacha_no_value "surand: bench chacha: no value after '--reps'" "$S" bench chacha --reps
optmsg bench_words_unknown_option "surand: bench words: unknown option '--bogus'" "$S" bench words --bogus
optmsg bench_kleen_bad_option "surand: bench: bad option" "$S" bench kleen --bogus
optmsg bench_size_range "1 B to 16 MiB" "$S" bench --sizes -5
check bench_size_no_inf "$(grep -q 'or inf' "$tmp/eerr"; [ $? = 1 ]; echo $?)" "bench sizes offer inf: $(head -c 300 "$tmp/eerr")"
"$S" -n 1x 2>"$tmp/err" >/dev/null
missing=
for suf in K k KiB kB KB M MiB MB G GiB GB T TiB TB inf; do
	grep -qE "(^|[ (:,])$suf([ ,)]|$)" "$tmp/err" || missing="$missing $suf"
done
check size_message_lists_every_suffix "$([ -z "$missing" ]; echo $?)" "missing:$missing in: $(head -c 300 "$tmp/err")"

# ---- the SIZE operand, -j 0 ------------------------------------------------------
ok=0 why=
for spec in 32:32 1K:1024 0:0 3M:3145728; do
	arg=${spec%%:*} want=${spec##*:}
	got=$("$S" "$arg" | wc -c); rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] && [ "$got" = "$want" ] || { ok=1; why="$why surand $arg: rc $rc, $got bytes;"; }
done
out=$("$S" 16 -f hex)
[[ "$out" =~ ^[0-9a-f]{32}$ ]] || { ok=1; why="$why surand 16 -f hex gave '$out';"; }
check size_operand "$ok" "$why"
got=$("$S" -n 5M -j 0 | wc -c); rc=${PIPESTATUS[0]}
check threads_zero_one_per_cpu "$([ "$rc" = 0 ] && [ "$got" = 5242880 ]; echo $?)" "rc $rc, $got bytes"

# ---- --help on every subcommand: status 0, its own usage on stdout -------------------
ok=0 why=
for sub in "" run wipe stats selftest bench "bench chacha" "bench words" "bench kleen" "bench mixed"; do
	"$S" $sub --help >"$tmp/h" 2>"$tmp/herr"
	rc=$?
	grep -q "^usage: surand${sub:+ $sub}" "$tmp/h" && [ "$rc" = 0 ] && [ ! -s "$tmp/herr" ] || \
		{ ok=1; why="$why '$sub --help': rc $rc, $(head -c 100 "$tmp/h" "$tmp/herr");"; }
done
check help_every_subcommand $ok "$why"
# --help, -h and --version anywhere among the options, as GNU programs take them
ver=$(sed -n 's/^#define SURAND_VERSION_STRING "\(.*\)"/\1/p' include/surand.h)
ok=0 why=
for args in "-f hex --help" "-f hex -h" "32 --help" "-n 5 --progress -h" "-o $tmp/never -h" \
	"-j 2 --he" "-o -h -h" "wipe $tmp/never --help" "run --stats --help" "bench --quick --help"; do
	# shellcheck disable=SC2086
	"$S" $args >"$tmp/h" 2>"$tmp/herr"; rc=$?
	grep -q "^usage: surand" "$tmp/h" && [ "$rc" = 0 ] && [ ! -s "$tmp/herr" ] || \
		{ ok=1; why="$why '$args': rc $rc, $(head -c 100 "$tmp/h" "$tmp/herr");"; }
done
for args in "-f hex --version" "-j 2 -V" "16 --vers"; do
	# shellcheck disable=SC2086
	got=$("$S" $args 2>"$tmp/herr"); rc=$?
	[ "$got" = "surand $ver" ] && [ "$rc" = 0 ] && [ ! -s "$tmp/herr" ] || \
		{ ok=1; why="$why '$args': rc $rc, '$got' $(head -c 100 "$tmp/herr");"; }
done
[ -e "$tmp/never" ] && { ok=1; why="$why --help wrote or wiped a file;"; }
check help_version_anywhere $ok "$why"

# ---- surand run: the preload by absolute path, SURAND_* through, CMD's status --------
# Under the emulator the command surand run starts is a host program, which
# cannot load the target's preload: these cases need a machine of that kind.
if [ -n "${SURAND_TEST_RUNNER:-}" ]; then
	skip run "surand run under an emulator: the command it starts is a host program, which cannot load the aarch64 preload"
else
lp=$("$S" run sh -c 'printf %s "$LD_PRELOAD"')
rc=$?
check run_preload_absolute "$([ $rc = 0 ] && [ "$lp" = "$(readlink -f "$top/$BUILD/libsurand-preload.so")" ]; echo $?)" \
	"rc $rc, LD_PRELOAD '$lp'"
lp=$(LD_PRELOAD=/nonexistent/other.so "$S" run sh -c 'printf %s "$LD_PRELOAD"' 2>/dev/null)
check run_keeps_other_preloads "$([[ "$lp" == /*libsurand-preload.so:/nonexistent/other.so ]]; echo $?)" "LD_PRELOAD '$lp'"
# from another directory, in a child that changes directory, the preload is still loaded
n=$(cd "$tmp" && "$S" run sh -c 'cd / && grep -c libsurand-preload /proc/self/maps')
check run_child_changes_directory "$([ "${n:-0}" -ge 1 ]; echo $?)" "preload mappings in the child: '$n'"
got=$(SURAND_RESEED_SECS=77 "$S" run sh -c 'printf %s "$SURAND_RESEED_SECS"')
check run_passes_surand_env "$([ "$got" = 77 ]; echo $?)" "got '$got'"
"$S" run sh -c 'exit 3'; rc=$?
check run_exit_status "$([ $rc = 3 ]; echo $?)" "rc $rc, want 3"
"$S" run sh -c 'kill -TERM $$'; rc=$?
check run_signal_status "$([ $rc = 143 ]; echo $?)" "rc $rc, want 143 (128 + SIGTERM)"
"$S" run "$tmp/no-such-program" 2>"$tmp/err"; rc=$?
check run_not_found_127 "$([ $rc = 127 ] && grep -q "cannot run" "$tmp/err"; echo $?)" "rc $rc, $(head -c 200 "$tmp/err")"
# the status does not depend on whether the message could be written
sh -c "exec '$S' run '$tmp/no-such-program' 2>&-"; rc=$?
check run_not_found_127_stderr_closed "$([ $rc = 127 ]; echo $?)" "rc $rc, want 127"
"$S" run "$tmp/dir" 2>"$tmp/err"; rc=$?
check run_cannot_exec_126 "$([ $rc = 126 ] && grep -q "cannot run" "$tmp/err"; echo $?)" "rc $rc, $(head -c 200 "$tmp/err")"
sh -c "exec '$S' run '$tmp/dir' 2>&-"; rc=$?
check run_cannot_exec_126_stderr_closed "$([ $rc = 126 ]; echo $?)" "rc $rc, want 126"
# served through the preload: a read of /dev/urandom, counted in the --stats line
"$S" run --stats sh -c 'head -c 4096 /dev/urandom | wc -c' >"$tmp/out" 2>"$tmp/err"; rc=$?
check run_stats_line "$([ $rc = 0 ] && [ "$(cat "$tmp/out")" = 4096 ] && grep '^surand-preload' "$tmp/err" | grep -q 'served'; echo $?)" \
	"rc $rc, out '$(cat "$tmp/out")', stderr: $(head -c 300 "$tmp/err")"
"$S" run sh -c 'head -c 16 /dev/urandom >/dev/null' 2>"$tmp/err"; rc=$?
check run_no_stats_without_flag "$([ $rc = 0 ] && [ ! -s "$tmp/err" ]; echo $?)" "rc $rc, stderr: $(head -c 200 "$tmp/err")"
# a surand binary with no preload next to it (nor in ../lib) says so: 74
mkdir -p "$tmp/alone/bin" && cp "$S" "$tmp/alone/bin/surand"
errcase run_preload_missing 74 "$tmp/alone/bin/surand" run true
fi

# ---- stats says whose counters it prints ---------------------------------------------
"$S" stats 2>/dev/null | head -n 1 > "$tmp/h"
check stats_says_this_process "$(grep -q 'this surand process' "$tmp/h"; echo $?)" "first line: $(cat "$tmp/h")"

# ---- wipe a regular file -------------------------------------------------------
pat=SURAND-ORIGINAL-PATTERN-
f=$tmp/victim
yes "$pat" | head -c $((3 * 1048576 + 123)) > "$f"
ino0=$(stat -c %i "$f") sz0=$(stat -c %s "$f")
cp "$f" "$tmp/orig"
"$S" wipe "$f" --passes 3 --verify >"$tmp/wout" 2>"$tmp/err"
rc=$?
ino1=$(stat -c %i "$f") sz1=$(stat -c %s "$f")
left=$(grep -a -c -F "$pat" "$f")
tail_same=$(cmp -s <(tail -c 123 "$f") <(tail -c 123 "$tmp/orig"); echo $?)
same_bytes=$(cmp -l "$f" "$tmp/orig" | wc -l)
check wipe_file "$([ $rc = 0 ] && [ "$sz1" = "$sz0" ] && [ "$ino1" = "$ino0" ] && [ "$left" = 0 ] && [ "$tail_same" = 1 ] && [ ! -s "$tmp/err" ]; echo $?)" \
	"rc $rc, size $sz0 -> $sz1, inode $ino0 -> $ino1, pattern lines left $left, tail unchanged: $([ "$tail_same" = 0 ] && echo yes || echo no), stderr: $(head -c 200 "$tmp/err")"
# about 1/256 of the bytes equal the original by chance, no more
diff=$same_bytes total=$sz0
check wipe_file_all_bytes_rewritten "$([ "$diff" -gt $((total - total / 128)) ]; echo $?)" \
	"only $diff of $total bytes differ from the original"
csz=$(gzip -1 -c "$f" | wc -c)
check wipe_file_random "$([ "$csz" -gt "$sz0" ]; echo $?)" "$sz0 wiped bytes gzip to $csz"
# with stderr closed the wiped file receives no progress text (and verifies)
cp "$f" "$tmp/before2"
sh -c "exec '$S' wipe '$f' --verify --progress >'$tmp/wout' 2>&-"; rc=$?
text=$(grep -a -c 'wipe pass\|wipe verify' "$f") sz=$(stat -c %s "$f")
check wipe_closed_stderr_not_in_target "$([ $rc = 0 ] && [ "$text" = 0 ] && [ "$sz" = "$sz0" ] && ! cmp -s "$f" "$tmp/before2"; echo $?)" \
	"rc $rc, $text progress lines in the target, size $sz (want $sz0)"
cp "$f" "$tmp/after1"
"$S" wipe "$f" --verify --progress >"$tmp/wout" 2>"$tmp/err"
rc=$?
check wipe_default_one_pass_progress "$([ $rc = 0 ] && ! cmp -s "$f" "$tmp/after1" && grep -q 'wipe pass 1/1 .*100%' "$tmp/err" && grep -q 'wipe verify .*100%' "$tmp/err"; echo $?)" \
	"rc $rc, stderr: $(head -c 300 "$tmp/err")"
: > "$tmp/empty"
"$S" wipe "$tmp/empty" --verify >"$tmp/wout"
rc=$? sz=$(stat -c %s "$tmp/empty")
check wipe_empty_file "$([ $rc = 0 ] && [ "$sz" = 0 ]; echo $?)" "rc $rc size $sz"
ln -s "$f" "$tmp/link"
"$S" wipe "$tmp/link" --verify >"$tmp/wout"
rc=$?
check wipe_follows_symlink "$([ $rc = 0 ] && [ -L "$tmp/link" ] && [ "$(stat -c %s "$f")" = "$sz0" ]; echo $?)" "rc $rc"

# several paths, one closing line each; a missing one fails but the others are wiped
for i in 1 2; do yes "$pat" | head -c $((1048576 + i)) > "$tmp/multi$i"; done
"$S" wipe --passes 2 --verify "$tmp/multi1" "$tmp/missing" "$tmp/multi2" >"$tmp/out" 2>"$tmp/err"
rc=$?
l1=$(grep -a -c -F "$pat" "$tmp/multi1") l2=$(grep -a -c -F "$pat" "$tmp/multi2")
check wipe_several_paths "$([ $rc = 74 ] && [ "$l1" = 0 ] && [ "$l2" = 0 ] && [ "$(wc -l < "$tmp/out")" = 2 ] && \
	grep -qF "'$tmp/multi2': wiped 1.00 MiB, 2 passes, verified" "$tmp/out" && grep -q missing "$tmp/err"; echo $?)" \
	"rc $rc (want 74), pattern left $l1/$l2, stdout: $(head -c 300 "$tmp/out"), stderr: $(head -c 200 "$tmp/err")"
# the exit status is the first failure's: a directory (64) before a missing
# path (74), and the other way round; the good path is wiped both times
for order in "dir missing:64" "missing dir:74"; do
	yes "$pat" | head -c 5000 > "$tmp/m3"
	read -r p1 p2 <<<"${order%:*}"
	"$S" wipe "$tmp/$p1" "$tmp/m3" "$tmp/$p2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "wipe_first_failure_status_${p1}_$p2" "$([ $rc = "${order#*:}" ] && [ "$(grep -a -c -F "$pat" "$tmp/m3")" = 0 ] && \
		[ "$(wc -l < "$tmp/err")" = 2 ] && grep -qF "'$tmp/m3': wiped" "$tmp/out"; echo $?)" \
		"wipe $p1 m3 $p2: rc $rc (want ${order#*:}), stderr: $(head -c 200 "$tmp/err")"
done
yes "$pat" | head -c 3000000 > "$tmp/z"
"$S" wipe --zero --verify "$tmp/z" >"$tmp/out" 2>"$tmp/err"
rc=$? nz=$(tr -d '\0' < "$tmp/z" | wc -c) sz=$(stat -c %s "$tmp/z")
check wipe_zero "$([ $rc = 0 ] && [ "$nz" = 0 ] && [ "$sz" = 3000000 ] && grep -q 'wiped 2.86 MiB, 1 pass, verified, zeroed$' "$tmp/out"; echo $?)" \
	"rc $rc, $nz non-zero bytes, size $sz, stdout: $(cat "$tmp/out")"
yes "$pat" | head -c 5000 > "$tmp/r"
ln "$tmp/r" "$tmp/r-link"
"$S" wipe --remove "$tmp/r" >"$tmp/out" 2>"$tmp/err"
rc=$?
# the other name of the same inode shows the data was overwritten before the unlink
check wipe_remove "$([ $rc = 0 ] && [ ! -e "$tmp/r" ] && [ "$(grep -a -c -F "$pat" "$tmp/r-link")" = 0 ] && grep -q ', removed$' "$tmp/out"; echo $?)" \
	"rc $rc, exists: $([ -e "$tmp/r" ] && echo yes || echo no), stdout: $(cat "$tmp/out")"
# --remove on a symbolic link: the target is wiped and stays, the link goes,
# and the closing line names both
yes "$pat" | head -c 5000 > "$tmp/rt"
ln -s "$tmp/rt" "$tmp/rt-link"
"$S" wipe --remove "$tmp/rt-link" >"$tmp/out" 2>"$tmp/err"
rc=$?
check wipe_remove_symlink "$([ $rc = 0 ] && [ ! -L "$tmp/rt-link" ] && [ -f "$tmp/rt" ] && [ "$(stat -c %s "$tmp/rt")" = 5000 ] && \
	[ "$(grep -a -c -F "$pat" "$tmp/rt")" = 0 ] && grep -qxF "'$tmp/rt-link' -> '$(readlink -f "$tmp/rt")': wiped 4.88 KiB, 1 pass, removed the link" "$tmp/out"; echo $?)" \
	"rc $rc, link left: $([ -L "$tmp/rt-link" ] && echo yes || echo no), stdout: $(cat "$tmp/out"), stderr: $(head -c 200 "$tmp/err")"
yes "$pat" | head -c 5000 > "$tmp/w"
errcase wipe_stdout_full 74 sh -c "exec '$S' wipe '$tmp/w' >/dev/full"

# ---- wipe on a target that fails (tests/cli_fault.c, CLI_FAULT) ------------------
FAULT=$top/$BUILD/test/libcli-fault.so
faulty() { # FAULT ARG...: the command with the fault library loaded
	local f=$1
	shift
	if [ -n "${SURAND_TEST_RUNNER:-}" ]; then
		# the emulator hands QEMU_SET_ENV to the program it runs, not to itself
		# shellcheck disable=SC2086 # the runner is a command line: split on purpose
		CLI_FAULT=$f QEMU_SET_ENV="LD_PRELOAD=$FAULT" $SURAND_TEST_RUNNER "$top/$BUILD/surand" "$@"
	else
		CLI_FAULT=$f LD_PRELOAD=$FAULT "$top/$BUILD/surand" "$@"
	fi
}
if [ ! -f "$FAULT" ]; then
	fail wipe_faults "$FAULT missing (make $FAULT)"
else
	# --verify: data read back that differs from what was written, and a target
	# that ends early, are reported with their byte offset and end in status 1
	yes "$pat" | head -c $((2 * 1048576 + 5)) > "$tmp/w"
	errcase wipe_verify_mismatch 1 faulty readback wipe --verify "$tmp/w"
	check wipe_verify_mismatch_names_offset "$(grep -qF "'$tmp/w' differs from what was written at byte 0" "$tmp/eerr"; echo $?)" \
		"stderr: $(head -c 300 "$tmp/eerr")"
	errcase wipe_verify_short_read 1 faulty short wipe --verify "$tmp/w"
	check wipe_verify_short_read_names_offset "$(grep -qF "'$tmp/w' ends at byte 1048576, not 2097157" "$tmp/eerr"; echo $?)" \
		"stderr: $(head -c 300 "$tmp/eerr")"
	errcase wipe_zero_verify_mismatch 1 faulty readzeros wipe --verify --zero "$tmp/w"
	check wipe_zero_verify_mismatch_names_offset "$(grep -qF "'$tmp/w' is not all zeros near byte 0" "$tmp/eerr"; echo $?)" \
		"stderr: $(head -c 300 "$tmp/eerr")"
	# a failed fsync is an I/O error: status 74, one line, no closing line
	errcase wipe_fsync_fails 74 faulty fsync wipe "$tmp/w"
	check wipe_fsync_fails_message "$(grep -qF "fsync '$tmp/w': Input/output error" "$tmp/eerr"; echo $?)" \
		"stderr: $(head -c 300 "$tmp/eerr")"
	# control: with the library loaded and no fault, the same wipe verifies
	faulty none wipe --verify "$tmp/w" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check wipe_faults_control "$([ $rc = 0 ] && grep -q 'verified$' "$tmp/out" && [ ! -s "$tmp/err" ]; echo $?)" \
		"rc $rc, stdout: $(head -c 200 "$tmp/out"), stderr: $(head -c 200 "$tmp/err")"
	# the calls in order (CLI_FAULT_LOG; runs of one letter shown once): every
	# pass is synced before the next writes, and each verify first drops the
	# cached pages, so that it reads the device, not what was just written
	wipe_calls() { # NAME WANT OPTION...: the wipe's calls against WANT
		local name=$1 want=$2 seq
		shift 2
		rm -f "$tmp/trace"
		CLI_FAULT_LOG=$tmp/trace faulty none wipe "$@" "$tmp/w" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		seq=$(tr -s 'WFAR' < "$tmp/trace" 2>/dev/null)
		check "$name" "$([ $rc = 0 ] && [ "$seq" = "$want" ]; echo $?)" \
			"wipe $*: rc $rc, calls '$seq', want $want"
	}
	wipe_calls wipe_passes_synced_verify_uncached WFWFWFAR --passes 3 --verify
	wipe_calls wipe_zero_both_passes_verified_uncached WFARWFAR --zero --verify
	# --zero: the random pass is read back and checked before the zeros
	errcase wipe_zero_random_pass_mismatch 1 faulty readback wipe --verify --zero "$tmp/w"
	check wipe_zero_random_pass_mismatch_names_offset "$(grep -qF "'$tmp/w' differs from what was written at byte 0" "$tmp/eerr"; echo $?)" \
		"stderr: $(head -c 300 "$tmp/eerr")"
fi

# ---- wipe a block device (a loop device over a file) ---------------------------
img=$tmp/disk.img
yes "$pat" | head -c $((4 * 1048576)) > "$img"
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && loopdev=$(losetup -f --show "$img" 2>/dev/null) && [ -b "$loopdev" ]; then
	"$S" wipe "$loopdev" --passes 2 --verify >"$tmp/wout" 2>"$tmp/err"
	rc=$?
	sync
	losetup -d "$loopdev"; dev_was=$loopdev; loopdev=
	left=$(grep -a -c -F "$pat" "$img") sz=$(stat -c %s "$img")
	check wipe_block_device "$([ $rc = 0 ] && [ "$left" = 0 ] && [ "$sz" = 4194304 ]; echo $?)" \
		"rc $rc on $dev_was, pattern left $left, size $sz, stderr: $(head -c 200 "$tmp/err")"
	# on a terminal it asks first: "n" leaves the device as it was (exit 1), "y" wipes;
	# --yes asks nothing; --remove is refused on a device
	if loopdev=$(losetup -f --show "$img" 2>/dev/null) && command -v script >/dev/null; then
		yes "$pat" | head -c $((4 * 1048576)) > "$img"; cp "$img" "$tmp/img-before"
		echo n | script -qec "'$S' wipe '$loopdev'" /dev/null >"$tmp/out" 2>&1; rc=$?
		check wipe_block_device_asks_no "$([ $rc = 1 ] && grep -q 'y/N' "$tmp/out" && cmp -s "$img" "$tmp/img-before"; echo $?)" \
			"rc $rc, out: $(tr -d '\r' < "$tmp/out" | head -c 300)"
		# an empty answer and "no" decline too; y, Y and yes accept (surand(1))
		for ans in empty no; do
			[ "$ans" = empty ] && ans=
			echo "$ans" | script -qec "'$S' wipe '$loopdev'" /dev/null >"$tmp/out" 2>&1; rc=$?
			check "wipe_block_device_asks_declines_${ans:-empty}" "$([ $rc = 1 ] && grep -q 'y/N' "$tmp/out" && cmp -s "$img" "$tmp/img-before"; echo $?)" \
				"rc $rc, out: $(tr -d '\r' < "$tmp/out" | head -c 300)"
		done
		for ans in y Y yes; do
			yes "$pat" | head -c $((4 * 1048576)) > "$img"
			echo "$ans" | script -qec "'$S' wipe '$loopdev'" /dev/null >"$tmp/out" 2>&1; rc=$?; sync
			left=$(grep -a -c -F "$pat" "$img")
			check "wipe_block_device_asks_yes_$ans" "$([ $rc = 0 ] && grep -q 'y/N' "$tmp/out" && grep -q 'wiped 4.00 MiB' "$tmp/out" && [ "$left" = 0 ]; echo $?)" \
				"rc $rc, pattern left $left, out: $(tr -d '\r' < "$tmp/out" | head -c 300)"
		done
		script -qec "'$S' wipe --yes '$loopdev'" /dev/null </dev/null >"$tmp/out" 2>&1; rc=$?
		check wipe_block_device_yes_no_question "$([ $rc = 0 ] && ! grep -q 'y/N' "$tmp/out"; echo $?)" \
			"rc $rc, out: $(tr -d '\r' < "$tmp/out" | head -c 300)"
		errcase wipe_remove_block_device 64 "$S" wipe --remove --yes "$loopdev"
		losetup -d "$loopdev"; loopdev=
	else
		fail wipe_block_device_asks_no "a second loop device (or script(1)) is not available"
	fi
	# a device another process holds open with O_EXCL (as a mount does) is refused
	if loopdev=$(losetup -f --show "$img" 2>/dev/null) && command -v python3 >/dev/null; then
		python3 -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print("held", flush=True); time.sleep(60)' "$loopdev" > "$tmp/held" &
		holder=$!
		for _ in $(seq 50); do [ -s "$tmp/held" ] && break; sleep 0.1; done
		cp "$img" "$tmp/img-before"
		"$S" wipe "$loopdev" 2>"$tmp/err"
		rc=$?
		kill "$holder"; wait "$holder" 2>/dev/null; holder=
		check wipe_block_device_busy_refused "$([ $rc = 74 ] && grep -q 'busy' "$tmp/err" && cmp -s "$img" "$tmp/img-before"; echo $?)" \
			"rc $rc, stderr: $(head -c 200 "$tmp/err")"
		losetup -d "$loopdev"; loopdev=
	else
		fail wipe_block_device_busy_refused "a second loop device (or python3) is not available"
	fi
else
	loopdev=
	skip wipe_block_device "no loop device here (needs root, losetup, /dev/loop-control)"
fi

# ---- stats, selftest, --help, --version ----------------------------------------
"$S" stats > "$tmp/stats" 2>"$tmp/err"
rc=$?
fields=$(awk '/^struct surand_stats \{/{p=1;next} p&&/^\};/{p=0} p' include/surand.h | \
	sed -n 's/^[^/]*[ *]\([a-z_0-9]*\)\(\[[0-9]*\]\)\{0,1\};.*/\1/p' | grep -v '^reserved')
missing=
for fld in $fields; do grep -q "^$fld: " "$tmp/stats" || missing="$missing $fld"; done
nf=$(echo "$fields" | wc -w)
bytes=$(awk '$1=="bytes:"{print $2}' "$tmp/stats") calls=$(awk '$1=="calls:"{print $2}' "$tmp/stats")
check stats_every_field "$([ $rc = 0 ] && [ "$nf" -ge 20 ] && [ -z "$missing" ]; echo $?)" \
	"rc $rc, $nf fields in surand.h, missing:$missing"
check stats_counts_the_draw "$([ "${bytes:-0}" -ge 1048576 ] && [ "${calls:-0}" -ge 2 ]; echo $?)" \
	"bytes ${bytes:-?} calls ${calls:-?}"
# no field named after a key or state, no value that looks like one (a long hex string)
check stats_no_key_or_state "$(grep -Eq '^([a-z0-9]+_)*(key|state|seed)(_[a-z0-9]+)*:|[0-9a-f]{16}' "$tmp/stats"; [ $? = 1 ]; echo $?)" \
	"$(grep -E '^([a-z0-9]+_)*(key|state|seed)(_[a-z0-9]+)*:|[0-9a-f]{16}' "$tmp/stats" | head -3)"
"$S" selftest > "$tmp/self" 2>&1
rc=$?
np=$(grep -c '^PASS ' "$tmp/self") nf=$(grep -c '^FAIL ' "$tmp/self")
check selftest "$([ $rc = 0 ] && [ "$np" -ge 3 ] && [ "$nf" = 0 ] && grep -q '^PASS chacha20-portable' "$tmp/self"; echo $?)" \
	"rc $rc, $np passed, $nf failed: $(grep '^FAIL' "$tmp/self" | head -3)"
# a check that fails ends selftest with status 1: a copy of the command whose
# RFC 8439 2.3.2 known answer has one digit changed in its middle (same length;
# the compiler may fold the first digits of the string into the code)
kat=500fdd1fa32071c4c7d1f4c733c06803
LC_ALL=C sed "s/$kat/${kat%3}4/" "$top/$BUILD/surand" > "$tmp/surand-badkat"
chmod +x "$tmp/surand-badkat"
if cmp -s "$top/$BUILD/surand" "$tmp/surand-badkat"; then
	fail selftest_failure_exits_1 "the known answer $kat is not in $BUILD/surand (tools/surand/cmd_selftest.c changed?)"
else
	# shellcheck disable=SC2086 # the runner is a command line: split on purpose
	${SURAND_TEST_RUNNER:-} "$tmp/surand-badkat" selftest > "$tmp/self" 2>&1
	rc=$?
	nf=$(grep -c '^FAIL chacha20-.*: RFC 8439 2.3.2$' "$tmp/self")
	check selftest_failure_exits_1 "$([ $rc = 1 ] && [ "$nf" -ge 2 ] && grep -q '^PASS stream' "$tmp/self" && \
		grep -Eq '^selftest: [0-9]+ passed, [1-9][0-9]* failed$' "$tmp/self"; echo $?)" \
		"rc $rc (want 1), $nf failed checks of RFC 8439 2.3.2: $(head -c 300 "$tmp/self" | tr '\n' ' ')"
fi
"$S" --help > "$tmp/help" 2>&1
rc=$?
missing=
for o in -n -o -f -j --progress run --stats wipe stats selftest bench raw hex base64 uuid inf; do
	grep -q -- "$o" "$tmp/help" || missing="$missing $o"
done
check help "$([ $rc = 0 ] && [ -z "$missing" ]; echo $?)" "rc $rc, missing:$missing"
ver=$(sed -n 's/^#define SURAND_VERSION_STRING "\(.*\)"/\1/p' include/surand.h)
got=$("$S" --version)
check version "$([ "$got" = "surand $ver" ]; echo $?)" "got '$got', want 'surand $ver'"
# one version everywhere: the Makefile, the header, the Debian changelog (the
# DKMS package's version) and the kernel module's MODULE_VERSION
mkver=$(sed -n 's/^VERSION := //p' Makefile)
debver=$(sed -n '1s/^surand (\([^)-]*\)\(-[^)]*\)\{0,1\}).*/\1/p' debian/changelog)
kver=$(sed -n 's/^MODULE_VERSION("\(.*\)");/\1/p' kmod/surand_main.c)
check versions_agree "$([ -n "$ver" ] && [ "$mkver" = "$ver" ] && [ "$debver" = "$ver" ] && [ "$kver" = "$ver" ]; echo $?)" \
	"Makefile '$mkver', include/surand.h '$ver', debian/changelog '$debver', kmod MODULE_VERSION '$kver'"

# ---- the package build (debian/rules), without building the packages ----------
# DEB_BUILD_OPTIONS=parallel=N reaches the build and the tests; the Rust peer of
# surand bench (no Build-Depends, not shipped) stays out even where cargo is here
if [ -f /usr/share/dpkg/buildflags.mk ] && command -v dpkg-parsechangelog >/dev/null; then
	# apart from the make that runs this script (its jobserver would add a warning)
	rules=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="parallel=3" \
		make -s -n -f debian/rules override_dh_auto_build override_dh_auto_test 2>&1)
	nj=$(grep -c ' -j3 ' <<<"$rules") nr=$(grep -c 'RUST_PEER=0' <<<"$rules")
	serial=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS= \
		make -s -n -f debian/rules override_dh_auto_build 2>&1)
	check deb_rules_parallel "$([ "$nj" = 2 ] && [ "$nr" = 2 ] && ! grep -q ' -j' <<<"$serial"; echo $?)" \
		"$nj of 2 make lines with -j3, $nr with RUST_PEER=0: $(head -c 300 <<<"$rules")"
else
	skip deb_rules_parallel "dpkg-dev not installed (apt-get install dpkg-dev)"
fi
cargo_lines=$(make -s -n -C "$top" all RUST_PEER=0 BUILD="$tmp/rust-peer-off" 2>&1 | grep -c 'cargo build')
check rust_peer_off "$([ "$cargo_lines" = 0 ]; echo $?)" "make all RUST_PEER=0 still runs cargo ($cargo_lines lines)"

# ---- man pages -----------------------------------------------------------------
if command -v groff >/dev/null; then
	ok=0 why=
	for page in man/surand.1 man/surand.3 man/surand_inline.3 man/surand-preload.7 man/surandfs.8 \
		    man/*.[0-9]; do
		[ -f "$page" ] || { ok=1; why="$why $page missing;"; continue; }
		w=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$w" ] || { ok=1; why="$why $page: $w;"; }
	done
	check man_render_clean $ok "$why"
	# an alternating-font macro (.BR, .IR, ...) glues its arguments: two plain
	# words in a row there are prose that renders as one word ("):adecimal...")
	glued=$(awk '
	/^\.(BR|RB|BI|IB|IR|RI)[ \t]/ {
		s = substr($0, 4); prev = ""; pq = 1
		while (length(s) > 0) {
			sub(/^[ \t]+/, "", s)
			if (s == "") break
			if (substr(s, 1, 1) == "\"") {
				s = substr(s, 2); i = index(s, "\"")
				a = i ? substr(s, 1, i - 1) : s; s = i ? substr(s, i + 1) : ""; q = 1
			} else {
				match(s, /^[^ \t]+/); a = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); q = 0
			}
			if (!q && !pq && a ~ /^[A-Za-z][A-Za-z]+[.,;:]?$/ && prev ~ /^[A-Za-z][A-Za-z]+$/) {
				printf "%s:%d: %s;", FILENAME, FNR, $0
				break
			}
			prev = a; pq = q
		}
	}' man/*.[0-9])
	check man_no_glued_words "$([ -z "$glued" ]; echo $?)" "$glued"
	txt1=$(LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tutf8 -rLL=200n man/surand.1 2>/dev/null | sed 's/.\x08//g')
	missing=
	for o in -n -o -f -j --progress wipe --passes --verify --zero --remove --yes stats selftest bench \
		 run --stats LD_PRELOAD SURAND_PRELOAD_STATS --pid surandfs surand-preload --help --version \
		 KiB MiB GiB kB MB GB inf raw hex base64 uuid "RFC 9562" O_EXCL BLKGETSIZE64 64 74; do
		grep -q -- "$o" <<<"$txt1" || missing="$missing $o"
	done
	check man1_documents_options "$([ -z "$missing" ]; echo $?)" "missing:$missing"
	# the answers wipe's question accepts, as cmd_wipe.c takes them
	check man1_wipe_answers "$(tr -s ' \n' '  ' <<<"$txt1" | grep -q 'any answer but y, Y or yes leaves it'; echo $?)" \
		"surand(1) does not say 'any answer but y, Y or yes'"
	txt3=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=200n man/surand.3 2>/dev/null | sed 's/.\x08//g')
	missing=
	for fn in $(grep -oE '\bsurand_[a-z0-9_]+ *\(' include/surand.h | tr -d ' (' | sort -u); do
		grep -q "$fn" <<<"$txt3" || missing="$missing $fn"
	done
	for e in SURAND_BACKEND SURAND_RESEED_SECS SURAND_CHACHA_IMPL SURAND_TRUST_CPU SURAND_DEBUG \
		 EINVAL EFAULT EAGAIN EINTR EBUSY ENOSYS EIO; do
		grep -q "$e" <<<"$txt3" || missing="$missing $e"
	done
	check man3_documents_api "$([ -z "$missing" ]; echo $?)" "missing:$missing"
	# every page: the same date, and the version of include/surand.h
	ver=$(sed -n 's/^#define SURAND_VERSION_STRING "\(.*\)"/\1/p' include/surand.h)
	dates=$(sed -n 's/^\.TH [^ ]* [0-9] \([0-9-]*\) .*/\1/p' man/*.[0-9] | sort -u | wc -l)
	badver=$(grep -L "^\.TH .* \"surand $ver\"" man/*.[0-9] | tr '\n' ' ')
	check man_pages_agree "$([ "$dates" = 1 ] && [ -z "$badver" ]; echo $?)" \
		"$dates different dates; pages not at version $ver: $badver"
	txt7=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=200n man/surand-preload.7 2>/dev/null | sed 's/.\x08//g')
	missing=
	for w in "surand run" LD_PRELOAD SURAND_PRELOAD_STATS SURAND_PRELOAD_FOPEN getrandom getentropy \
		 arc4random /dev/urandom OpenSSL; do
		grep -q -- "$w" <<<"$txt7" || missing="$missing $w"
	done
	check man7_preload_page "$([ -z "$missing" ]; echo $?)" "missing:$missing"
else
	skip man_render_clean "groff not installed (apt-get install groff-base)"
fi
dest=$tmp/dest
if make -s -C "$top" install BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr >"$tmp/inst" 2>&1; then
	missing=
	for p in man/*.[0-9]; do
		sec=${p##*.}
		[ -f "$dest/usr/share/man/man$sec/$(basename "$p")" ] || missing="$missing $p"
	done
	check man_installed "$([ -z "$missing" ]; echo $?)" "not installed:$missing"
else
	fail man_installed "make install failed: $(tail -3 "$tmp/inst")"
fi
exit 0
