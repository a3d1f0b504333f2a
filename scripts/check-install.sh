#!/usr/bin/env bash
# Proves what `make install` ships: only the public surand_* ABI is exported,
# the library is linked with -z now, and neither the test-only deterministic
# mode nor reduced-round ChaCha20 (bench builds) is in the installed .so or .a.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s install DESTDIR="$dest" PREFIX=/usr >/dev/null
so=$(ls "$dest"/usr/lib/libsurand.so.1.* | head -n 1)
a="$dest/usr/lib/libsurand.a"
fail=0
want=$(sed -n 's/^[[:space:]]*\(surand_[a-z0-9_]*\);$/\1/p' src/libsurand.map | sort)
have=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep -vE '^SURAND_[A-Z0-9_.]+$' | sort)
if [ "$want" != "$have" ]; then
	echo "check-install: exported symbols differ from src/libsurand.map:"
	diff <(echo "$want") <(echo "$have") || true
	fail=1
fi
if nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^surand_' | grep -qvE '^SURAND_[A-Z0-9_.]+$'; then
	echo "check-install: a non-surand_ symbol is exported"; fail=1
fi
readelf -d "$so" | grep -q 'SONAME.*libsurand.so.1' || { echo "check-install: soname"; fail=1; }
# -z now (docs/threat-model.md, core dumps): no lazy-binding trampoline runs
# inside the library, which would save the vector registers onto the stack
readelf -d "$so" | grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' ||
	{ echo "check-install: $so is not linked with -z now (no BIND_NOW)"; fail=1; }
for f in "$so" "$a"; do
	if nm "$f" 2>/dev/null | grep -Eiq 'surand_test_|INSECURE_deterministic'; then
		echo "check-install: test-only symbols in $f"; fail=1
	fi
	if strings "$f" | grep -q 'SURAND_TEST_BUILD\|surand-test-build\|bench-build'; then
		echo "check-install: test or bench build marker in $f"; fail=1
	fi
done
[ -f "$dest/usr/include/surand.h" ] || { echo "check-install: header missing"; fail=1; }
[ -f "$dest/usr/lib/pkgconfig/surand.pc" ] || { echo "check-install: surand.pc missing"; fail=1; }
if [ "$fail" = 0 ]; then echo "check-install: ok ($(echo "$have" | wc -l) symbols exported)"; fi
exit "$fail"
