#!/usr/bin/env bash
# Proves src/crypto/ stays freestanding: `make freestanding` compiles the
# portable ChaCha20, BLAKE2s and SHA-1 with -ffreestanding -nostdinc
# -DSURAND_FREESTANDING (through crypto_types.h only); one line per file.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
out=$(make -s freestanding BUILD="$BUILD" 2>&1)
rc=$?
for f in src/crypto/*_portable.c src/crypto/blake2s.c src/crypto/sha1.c src/crypto/lfsr2015.c; do
	[ -f "$f" ] || continue
	name=freestanding/$(basename "$f" .c)
	if printf '%s\n' "$out" | grep -qx "freestanding: $f"; then
		echo "PASS $name"
	else
		why=$(printf '%s\n' "$out" | grep -m1 -F "$f:" || true)
		if [ -n "$why" ]; then
			echo "FAIL $name: does not compile freestanding: $why"
		else
			echo "FAIL $name: not compiled (make freestanding stopped at an earlier file)"
		fi
	fi
done
[ "$rc" -eq 0 ] || echo "FAIL freestanding/make: make freestanding exited $rc"
exit 0
