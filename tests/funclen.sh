#!/usr/bin/env bash
# No function outside src/crypto/ is longer than 100 lines (CONTRIBUTING.md:
# a long function is a list of steps, each with a name): scripts/funclen.py
# finds none in the C files git tracks, and it does find a 101-line one in a
# generated file while it passes a 100-line one (a self-check).
set -u
cd "$(dirname "$0")/.." || exit 2
if ! command -v python3 >/dev/null; then
	echo "SKIP funclen/none_over_100_lines: needs python3 (apt-get install python3)"
	exit 0
fi
out=$(python3 scripts/funclen.py 2>&1)
case $? in
0) echo "PASS funclen/none_over_100_lines" ;;
*) echo "FAIL funclen/none_over_100_lines: $(printf '%s' "$out" | tr '\n' ' ' | head -c 600)" ;;
esac
# The check itself, on the tree's styles: a signature over two lines, an
# #ifdef whose branches each open the same brace, braces in a string, a
# character and a comment, and ahead of the function a 148-line table
# (`static const struct ... [] = {`), which is no function.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # file, function name, its lines
	{
		printf 'struct %s_row {\n\tint a;\n};\n' "$2"
		printf 'static const struct %s_row %s_table[] = {\n' "$2" "$2"
		for i in $(seq 146); do printf '\t{ %d },\n' "$i"; done
		printf '};\n\n'
		printf 'static int %s(int a,\n\t\tint b)\n{\n\tint r = a + b;\n\n' "$2"
		printf '#ifdef FUNCLEN_A\n\tif (a) {\n#else\n\tif (b) {\n#endif\n'
		printf "\t\tr += '{' + (int)sizeof(\"}\");\n\t}\n"
		for i in $(seq $(($3 - 14))); do printf '\tr ^= %d;\n' "$i"; done
		printf '\treturn r; /* } */\n}\n'
	} >"$1"
}
gen "$tmp/long.c" long_one 101
gen "$tmp/fits.c" fits 100
out=$(python3 scripts/funclen.py "$tmp/long.c" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && [ "$out" = "$tmp/long.c:153: long_one() is 101 lines" ]; then
	echo "PASS funclen/finds_101_lines"
else
	echo "FAIL funclen/finds_101_lines: $(printf '%s' "$out" | tr '\n' ' ')"
fi
out=$(python3 scripts/funclen.py "$tmp/fits.c" 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	echo "PASS funclen/passes_100_lines"
else
	echo "FAIL funclen/passes_100_lines: $(printf '%s' "$out" | tr '\n' ' ')"
fi
exit 0
