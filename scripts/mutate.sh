#!/usr/bin/env bash
# scripts/mutate.sh - `make mutate`: applies each one-line mutation of
# tests/mutations.txt to a copy of the tree, rebuilds what the mutation's
# tests need, runs those tests, and prints one line per mutation:
#
#   caught      NAME  the tests failed (or hung past MUTATE_TIMEOUT): good
#   missed      NAME  every test passed: a gap in the tests
#   equivalent  NAME  every test passed and the record says why no test can
#                     fail (an equivalent mutant), with the reason
#   wrong       NAME  a record marked equivalent was caught (the reason is
#                     false), or its text is not in the file, or it does not
#                     compile
#
# Ends with "N caught, N missed, N equivalent, N wrong"; exit 0 only when
# nothing is missed or wrong.  The tree itself is never changed: the copy is
# in $MUTATE_DIR (build/mutate), made from the files git knows (committed or
# not).  MUTATE_ONLY="a b" runs only the named records.  MUTATE_RECORD=1
# (make mutate) also writes the result to tests/mutations.result, from which
# scripts/reliability-table.sh makes RELIABILITY.md's "Mutations" section.
# Not part of `make check` (a full run rebuilds the test library about fifty
# times).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
list=${MUTATE_LIST:-tests/mutations.txt}
dir=${MUTATE_DIR:-build/mutate}
timeout_s=${MUTATE_TIMEOUT:-600}
jobs=${MUTATE_JOBS:-$(nproc 2>/dev/null || echo 2)}
unset CI # warnings are not errors in the copy: a mutant may leave a variable unused

command -v python3 >/dev/null || { echo "mutate: needs python3 (apt-get install python3)"; exit 2; }
[ -f "$list" ] || { echo "mutate: $list not found"; exit 2; }

# ---- the records: name|file|nth|tests|equivalent, and find/into side files ----
recs=$(mktemp -d)
trap 'rm -rf "$recs"' EXIT
python3 - "$list" "$recs" <<'EOF' || exit 2
import sys, os
path, out = sys.argv[1], sys.argv[2]
recs, cur = [], None
for no, line in enumerate(open(path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    if line.startswith("[") and line.endswith("]"):
        cur = {"name": line[1:-1], "nth": "1", "line": no}
        recs.append(cur)
        continue
    key, sep, val = line.partition(":")
    if cur is None or not sep or key not in ("file", "find", "nth", "into", "tests", "why", "equivalent"):
        sys.exit(f"mutate: {path}:{no}: not a record line: {line}")
    cur[key] = val.strip()
names = set()
for r in recs:
    for k in ("file", "find", "into", "tests", "why"):
        if k not in r:
            sys.exit(f"mutate: {path}:{r['line']}: [{r['name']}] has no {k}:")
    if r["name"] in names:
        sys.exit(f"mutate: {path}:{r['line']}: [{r['name']}] twice")
    names.add(r["name"])
with open(os.path.join(out, "index"), "w") as f:
    for i, r in enumerate(recs):
        open(os.path.join(out, f"{i}.find"), "w").write(r["find"])
        open(os.path.join(out, f"{i}.into"), "w").write(r["into"])
        f.write("|".join([str(i), r["name"], r["file"], r["nth"], r["tests"], r.get("equivalent", "")]) + "\n")
EOF

# Replaces occurrence nth of find (one line's substring) by into in file.
apply_one() { # file nth findfile intofile
	python3 - "$@" <<'EOF'
import sys
path, nth, ffind, finto = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
find, into = open(ffind).read(), open(finto).read()
text = open(path, encoding="utf-8").read()
at = -1
for _ in range(nth):
    at = text.find(find, at + 1)
    if at < 0:
        sys.exit(1)
open(path, "w", encoding="utf-8").write(text[:at] + into + text[at + len(find):])
EOF
}

# ---- the copy of the tree, built once ----------------------------------------
mkdir -p "$dir"
rm -rf "$dir/tree" "$dir/pristine"
mkdir -p "$dir/tree" "$dir/pristine"
# The tree the copy was made from, named when the copy is taken (a commit made
# while the run goes on is not what it tested).
tested="commit $(git rev-parse --short HEAD 2>/dev/null)$([ -z "$(git status --porcelain 2>/dev/null)" ] || echo ' + changes')"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$dir/tree"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$dir/pristine"
tree="$dir/tree"

targets_for() { # tests -> make targets
	local t out=""
	for t in $1; do
		case $t in
		# test_faults also drives the preload in a sandbox
		test_faults) out="$out build/test/$t build/libsurand-preload.so build/preload-test/pltest" ;;
		test_*) out="$out build/test/$t" ;;
		*) out="$out check-build" ;;
		esac
	done
	echo "$out"
}
build_log="$dir/build.log"
run_tests() { # tests -> status of the run (0: all passed); output in $dir/run.log
	(cd "$tree" && SURAND_TESTS="$1" BUILD=build timeout "$timeout_s" bash scripts/run-tests.sh) \
		>"$dir/run.log" 2>&1
}

all_tests=$(cut -d'|' -f5 "$recs/index" | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "mutate: building the copy in $tree"
# shellcheck disable=SC2046 # a list of make targets
if ! make -C "$tree" -j"$jobs" BUILD=build $(targets_for "$all_tests") >"$build_log" 2>&1; then
	tail -20 "$build_log"; echo "mutate: the unchanged tree does not build"; exit 2
fi
# The baseline: every test named in the list passes on the unchanged tree.
# Its skips are printed (a skipped case catches nothing: a CPU without
# AVX-512 cannot run that body's comparison).
if ! run_tests "$all_tests"; then
	grep '^FAIL' "$dir/run.log"; echo "mutate: the tests fail on the unchanged tree"; exit 2
fi
grep '^SKIP' "$dir/run.log" | sed 's/^/mutate: baseline: /'
echo "mutate: baseline: $(tail -1 "$dir/run.log")"

caught=0 missed=0 equiv=0 wrong=0 t_all=$SECONDS
result="$dir/result.txt" table="$dir/result.tsv"
: >"$result"
: >"$table"
say() { echo "$*"; echo "$*" >>"$result"; }
row() { printf '%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" >>"$table"; } # name file verdict detail
while IFS='|' read -r i name file nth tests eq; do
	[ -n "${MUTATE_ONLY:-}" ] && case " $MUTATE_ONLY " in *" $name "*) ;; *) continue ;; esac
	t0=$SECONDS
	if ! apply_one "$tree/$file" "$nth" "$recs/$i.find" "$recs/$i.into"; then
		say "wrong       $name: occurrence $nth of its text is not in $file"
		row "$name" "$file" wrong "text not found"
		wrong=$((wrong + 1)); continue
	fi
	# shellcheck disable=SC2046
	if ! make -C "$tree" -j"$jobs" BUILD=build $(targets_for "$tests") >"$build_log" 2>&1; then
		say "wrong       $name: does not compile ($(grep -m1 'error' "$build_log"))"
		row "$name" "$file" wrong "does not compile"
		wrong=$((wrong + 1))
	elif run_tests "$tests"; then
		if [ -n "$eq" ]; then
			say "equivalent  $name: $eq"; equiv=$((equiv + 1))
			row "$name" "$file" equivalent "$eq"
		else
			say "missed      $name ($file) [$tests]"; missed=$((missed + 1))
			row "$name" "$file" missed "$tests"
		fi
	else
		rc=$?
		how=$(grep -m1 '^FAIL' "$dir/run.log" | cut -c1-100)
		[ "$rc" = 124 ] && how="timed out after $timeout_s s"
		if [ -n "$eq" ]; then
			say "wrong       $name: marked equivalent, caught by: $how"; wrong=$((wrong + 1))
			row "$name" "$file" wrong "marked equivalent, caught"
		else
			say "caught      $name: $how ($((SECONDS - t0)) s)"; caught=$((caught + 1))
			by=$(grep -m1 '^FAIL' "$dir/run.log" | sed -e 's/^FAIL //' -e 's/:.*//')
			[ "$rc" = 124 ] && by="a hang (timeout)"
			row "$name" "$file" caught "$by"
		fi
	fi
	# Back to the original, newer than every object built from the mutant.
	cp "$dir/pristine/$file" "$tree/$file"
	touch "$tree/$file"
done <"$recs/index"
summary="$caught caught, $missed missed, $equiv equivalent, $wrong wrong ($((SECONDS - t_all)) s, $(date -u +%F))"
say "$summary"
if [ "${MUTATE_RECORD:-0}" = 1 ] && [ -z "${MUTATE_ONLY:-}" ]; then
	{
		echo "# make mutate, $(date -u +%F), $tested, $(nproc) cores"
		echo "# $summary"
		cat "$table"
	} >tests/mutations.result
	echo "mutate: recorded in tests/mutations.result"
fi
[ "$missed" -eq 0 ] && [ "$wrong" -eq 0 ]
