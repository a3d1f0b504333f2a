# mk/arm64.mk - the aarch64 build and its tests on an x86-64 host.
#
#   make ARCH=arm64      the library (.so/.a), the surand command and the
#                        preload for aarch64, in build/arm64 (Makefile)
#   make check-arm64     that build's C tests and the command's script, each
#                        program run under qemu's user-mode emulator; ends
#                        with the same "N passed, N failed, N skipped" line
#
# Needs Debian's cross toolchain and emulator:
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
# and, for the peer libraries (else their tests skip with their apt-get line),
# the arm64 builds through multiarch:
#   dpkg --add-architecture arm64 && apt-get update &&
#   apt-get install libssl-dev:arm64 libsodium-dev:arm64
# Emulation is slow, so the C tests run in their quick mode
# (SURAND_TEST_QUICK=1: the same cases, smaller loop counts).

ARM64_BUILD  ?= build/arm64
ARM64_CROSS  ?= aarch64-linux-gnu-
ARM64_SYSROOT ?= /usr/aarch64-linux-gnu
ARM64_QEMU   ?= $(firstword $(shell command -v qemu-aarch64-static qemu-aarch64 2>/dev/null))
# The target's loader: where multiarch put it (libc6:arm64, a dependency of
# libssl-dev:arm64), qemu finds it at its own path; else under the cross
# sysroot with -L.  (qemu 7.2 with -L hangs a forked child on some hosts,
# so -L is the fallback only.)
ARM64_RUNNER ?= $(ARM64_QEMU)$(if $(wildcard /lib/ld-linux-aarch64.so.1),, -L $(ARM64_SYSROOT))
ARM64_DEPS   := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
# Runs the tests named in SURAND_TESTS only, as `make check` does.
ARM64_TESTS  ?= $(SURAND_TESTS)

.PHONY: arm64 check-arm64 arm64-tools
arm64-tools:
	@command -v $(ARM64_CROSS)gcc >/dev/null || \
		{ echo "check-arm64: $(ARM64_CROSS)gcc missing: apt-get install $(ARM64_DEPS)"; exit 1; }
	@[ -n "$(ARM64_QEMU)" ] || \
		{ echo "check-arm64: qemu-aarch64 missing: apt-get install qemu-user-static"; exit 1; }
	@[ -e $(ARM64_SYSROOT)/lib/ld-linux-aarch64.so.1 ] || \
		{ echo "check-arm64: $(ARM64_SYSROOT) missing: apt-get install libc6-dev-arm64-cross"; exit 1; }

arm64: arm64-tools
	$(MAKE) --no-print-directory ARCH=arm64 BUILD=$(ARM64_BUILD) all

# SURAND_TEST_RUNNER: scripts/run-tests.sh, tests/cli.sh and the tests that
# start programs of this build (tests/harness.h: t_execve) go through it;
# ARCH=arm64 in the environment: a make that a test script runs (make install
# in tests/cli.sh) builds for the same target.
check-arm64: arm64-tools
	$(MAKE) --no-print-directory ARCH=arm64 BUILD=$(ARM64_BUILD) check-build
	@file -L $(ARM64_BUILD)/libsurand.so | grep -q 'ARM aarch64' || \
		{ echo "check-arm64: $(ARM64_BUILD)/libsurand.so is not an aarch64 object"; exit 1; }
	@ARCH=arm64 BUILD=$(ARM64_BUILD) SURAND_TEST_RUNNER="$(ARM64_RUNNER)" \
		SURAND_TEST_QUICK=$${SURAND_TEST_QUICK:-1} SURAND_TESTS="$(ARM64_TESTS)" \
		SURAND_SCRIPTS="cli" bash scripts/run-tests.sh
