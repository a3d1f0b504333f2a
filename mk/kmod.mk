# surand.ko (kmod/) and its test in Debian's 6.1 kernel under qemu
# (scripts/kernel-test.sh, run by make check through tests/kernel.sh).
#   make kmod [KDIR=/usr/src/linux-headers-6.1.0-N-amd64]   builds $(BUILD)/kmod/surand.ko
#   make kernel-test                                        the qemu test alone
#   make kmod-lint                                          checkpatch --strict, kernel-doc, SPDX
# See docs/kernel-module.md.
KDIR ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1)

.PHONY: kmod kernel-test kmod-lint
kmod:
	@test -n "$(KDIR)" || { echo "kmod: no kernel headers (apt-get install linux-headers-amd64) or pass KDIR=" >&2; exit 2; }
	$(MAKE) -C kmod KDIR=$(KDIR) MODOUT=$(abspath $(BUILD))/kmod

kernel-test:
	BUILD=$(BUILD) bash scripts/kernel-test.sh

kmod-lint:
	BUILD=$(BUILD) bash kmod/lint.sh
