# mk/deb.mk - the Debian packages (debian/, scripts/deb.sh) and the
# reproducibility check of the shipped library.
#   make deb          build/deb/*.deb (dpkg-buildpackage -b), lintian-clean
#   make check-deb    as root: install them, autopkgtest, DKMS + qemu, purge
#   make check-repro  two builds of this tree in different folders give a
#                     byte-identical libsurand.so (no build paths, no dates)

.PHONY: deb check-deb check-repro
deb:
	bash scripts/deb.sh build

check-deb:
	bash scripts/deb.sh check

REPRO_DIR := build/repro
check-repro:
	@rm -rf $(REPRO_DIR) && mkdir -p $(REPRO_DIR)/a/tree $(REPRO_DIR)/b/other-tree
	@for d in $(REPRO_DIR)/a/tree $(REPRO_DIR)/b/other-tree; do \
		git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C $$d; \
	done
	@$(MAKE) -s -C $(REPRO_DIR)/a/tree BUILD=build build/libsurand.so.$(VERSION) build/libsurand.a >/dev/null
	@sleep 1
	@$(MAKE) -s -C $(REPRO_DIR)/b/other-tree BUILD=out out/libsurand.so.$(VERSION) out/libsurand.a >/dev/null
	@cmp $(REPRO_DIR)/a/tree/build/libsurand.so.$(VERSION) $(REPRO_DIR)/b/other-tree/out/libsurand.so.$(VERSION) && \
	 cmp $(REPRO_DIR)/a/tree/build/libsurand.a $(REPRO_DIR)/b/other-tree/out/libsurand.a && \
	 ! grep -q "$(CURDIR)" $(REPRO_DIR)/a/tree/build/libsurand.so.$(VERSION) && \
	 echo "check-repro: libsurand.so.$(VERSION) and libsurand.a are byte-identical from two folders" || \
	 { echo "check-repro: two builds of this tree differ"; exit 1; }
	@# Runtime dispatch only: no object of the shipped library is built for the
	@# build machine's CPU (the compilers' flags are in DW_AT_producer).
	@if readelf --debug-dump=info $(REPRO_DIR)/a/tree/build/libsurand.so.$(VERSION) | \
		grep DW_AT_producer | grep -q -e '-march=native' -e '-mtune=native'; then \
		echo "check-repro: the library has objects built with -march=native"; exit 1; fi; \
	echo "check-repro: no object of the library is built with -march=native"
