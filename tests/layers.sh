#!/usr/bin/env bash
# The library's files depend on each other one way (docs/architecture.md):
# scripts/layers.py finds no circle among the objects of the shipped build,
# and it does find one when a leaf is made to call back up (a self-check).
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
if ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
	echo "SKIP layers/no_circle: needs python3 and nm (apt-get install python3 binutils)"
	exit 0
fi
out=$(python3 scripts/layers.py "$BUILD/obj/src" 2>&1)
case $? in
0) echo "PASS layers/no_circle" ;;
*) echo "FAIL layers/no_circle: $(printf '%s' "$out" | tr '\n' ' ' | head -c 600)" ;;
esac
# The check itself: two objects that call each other are a circle.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'void b(void);\nvoid a(void) { b(); }\n' >"$tmp/a.c"
printf 'void a(void);\nvoid b(void) { a(); }\n' >"$tmp/b.c"
printf 'void a(void);\nvoid c(void) { a(); }\n' >"$tmp/c.c"
for f in a b c; do cc -c -o "$tmp/$f.o" "$tmp/$f.c" || { echo "FAIL layers/finds_a_circle: cc failed"; exit 0; }; done
out=$(python3 scripts/layers.py "$tmp" 2>&1)
if [ $? -eq 1 ] && printf '%s' "$out" | grep -q 'circle: a.o <-> b.o$'; then
	echo "PASS layers/finds_a_circle"
else
	echo "FAIL layers/finds_a_circle: $(printf '%s' "$out" | tr '\n' ' ')"
fi
exit 0
