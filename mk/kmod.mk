# surand.ko (kmod/) and its test in Debian's 6.1 kernel under qemu
# (scripts/kernel-test.sh, run by make check through tests/kernel.sh).
#   make kmod [KDIR=/usr/src/linux-headers-6.1.0-N-amd64]   builds $(BUILD)/kmod/surand.ko
#   make kernel-test                                        the qemu test alone
#   make kmod-lint                                          checkpatch --strict, kernel-doc, SPDX
# See docs/kernel-module.md.
KDIR ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1)

#   make dkms-source DESTDIR=...                            the module's sources for DKMS
.PHONY: kmod kernel-test kmod-lint dkms-source
kmod:
	@test -n "$(KDIR)" || { echo "kmod: no kernel headers (apt-get install linux-headers-amd64) or pass KDIR=" >&2; exit 2; }
	$(MAKE) -C kmod KDIR=$(KDIR) MODOUT=$(abspath $(BUILD))/kmod

kernel-test:
	BUILD=$(BUILD) bash scripts/kernel-test.sh

kmod-lint:
	BUILD=$(BUILD) bash kmod/lint.sh

# The module's sources as DKMS builds them (the surand-dkms package):
# kmod/*.[ch], Kbuild and the freestanding crypto files in one folder,
# $(DESTDIR)/usr/src/surand-$(DKMS_VERSION), as kmod/Makefile links them.
DKMS_VERSION ?= $(VERSION)
# The crypto files kmod/Makefile links (its CRYPTO list: one list, read here).
KMOD_CRYPTO := $(shell sed -n 's/^CRYPTO := //p' kmod/Makefile)
DKMS_DIR = $(DESTDIR)/usr/src/surand-$(DKMS_VERSION)
dkms-source:
	install -d $(DKMS_DIR)
	install -m 0644 kmod/Kbuild $(wildcard kmod/*.c kmod/*.h) $(DKMS_DIR)/
	install -m 0644 $(addprefix src/crypto/,$(KMOD_CRYPTO)) $(DKMS_DIR)/
