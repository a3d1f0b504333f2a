#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR GPL-2.0
# kmod/lint.sh - `make kmod-lint`: the kernel's own checkers over kmod/*.[ch]:
#   checkpatch.pl --strict --no-tree (no error, warning or check may remain),
#   kernel-doc -none (every kernel-doc comment well formed),
#   and the SPDX tag on line 1 of every kmod/ source the module builds.
# checkpatch.pl and kernel-doc come from Debian's linux-source-6.1 (a
# 139 MB package, so not among scripts/install-deps.sh's): CHECKPATCH=path,
# /usr/src/linux-source-6.1/scripts/, or extracted once from
# /usr/src/linux-source-6.1.tar.xz into $BUILD/kmod-lint/.  Without it the
# lint prints SKIP with the apt-get line and exits 0 (it is not a test).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
cache=$BUILD/kmod-lint
cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	for d in /usr/src/linux-source-6.1/scripts "$cache/linux-source-6.1/scripts"; do
		[ -f "$d/checkpatch.pl" ] && cp=$d/checkpatch.pl && break
	done
fi
if [ -z "$cp" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	mkdir -p "$cache" || exit 2
	echo "kmod-lint: extracting checkpatch.pl and kernel-doc from /usr/src/linux-source-6.1.tar.xz" >&2
	tar -C "$cache" -xJf /usr/src/linux-source-6.1.tar.xz --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' 'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch' \
		'linux-source-6.1/scripts/kernel-doc' || exit 2
	cp=$cache/linux-source-6.1/scripts/checkpatch.pl
fi
if [ -z "$cp" ] || ! command -v perl >/dev/null 2>&1; then
	echo "SKIP kmod-lint: checkpatch.pl not found (apt-get install linux-source-6.1 perl)"
	exit 0
fi
files=$(ls kmod/*.c kmod/*.h)
rc=0
# shellcheck disable=SC2086
if ! perl "$cp" --strict --no-tree --terse --show-types --quiet -f $files; then
	rc=1
fi
kdoc=$(dirname "$cp")/kernel-doc
if [ -f "$kdoc" ]; then
	# shellcheck disable=SC2086
	out=$(perl "$kdoc" -none $files 2>&1)
	[ -z "$out" ] || { echo "$out"; rc=1; }
fi
for f in $files kmod/Kbuild kmod/Makefile; do
	head -n1 "$f" | grep -q 'SPDX-License-Identifier: MIT OR GPL-2.0' ||
		{ echo "$f:1: no SPDX-License-Identifier tag on line 1"; rc=1; }
done
if [ "$rc" = 0 ]; then
	echo "PASS kmod-lint: checkpatch --strict, kernel-doc and SPDX clean ($(echo $files | wc -w) files)"
else
	echo "FAIL kmod-lint: see the lines above"
fi
exit "$rc"
