# surand - GNU make build.  Nothing beyond a C compiler and make is needed for
# the library; optional packages (scripts/install-deps.sh) enable more tests.
#
#   make            library (.so/.a), the surand command, surand.pc
#   make run        the main job: build/surand bench --quick
#   make check      every test; ends with "N passed, N failed, N skipped"
#   make sanitize   make check under ASan+UBSan (build/asan)
#   make tsan       make check under TSan (build/tsan)
#   make bench      the full benchmark
#   make mutate     the mutation list (tests/mutations.txt) against the tests
#   make install PREFIX=/usr/local DESTDIR=
#   make uninstall PREFIX=/usr/local DESTDIR=   removes what install put there
#
# What packagers pass is honoured: CPPFLAGS, CFLAGS and LDFLAGS are added to
# the shipped objects' own flags (which never hold -march: the SIMD bodies
# are chosen at run time), and the directories can be set one by one:
# BINDIR, SBINDIR, LIBDIR (a multiarch one, say), INCLUDEDIR, MANDIR,
# PKGCONFIGDIR, PRELOADDIR.  Build paths are mapped out of the objects
# (-ffile-prefix-map): two builds of one commit give the same .so
# (make check-repro).
#
# Also built: $(BUILD)/surand-uninstalled.pc, so that a program builds against
# this tree: PKG_CONFIG_PATH=build cc app.c $(pkg-config --cflags --libs surand-uninstalled)
#
# Areas add their own targets in mk/*.mk (included below), so that a new tool
# or test stage does not edit this file.

# Cross builds: `make ARCH=arm64` (or CROSS=aarch64-linux-gnu-) builds for
# aarch64 with Debian's cross toolchain into build/arm64, never mixing with
# the host's objects; mk/arm64.mk runs its tests under qemu-user.
ifeq ($(ARCH),arm64)
CROSS   ?= aarch64-linux-gnu-
BUILD   ?= build/arm64
endif
ifneq ($(CROSS),)
CC      := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
NM      := $(CROSS)nm
BUILD   ?= build/$(patsubst %-,%,$(CROSS))
# The target's pkg-config files only (Debian multiarch), so that a peer
# library is used only when its build for the target is installed.
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(patsubst %-,%,$(CROSS))/pkgconfig:/usr/share/pkgconfig pkg-config
endif
PKG_CONFIG ?= pkg-config
CC      ?= cc
ifeq ($(CC),cc)
CC      := gcc
endif
BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PRELOADDIR ?= $(LIBDIR)
SAN     ?=
SOVER   := 1
VERSION := 1.1.0

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(CI),true)
WARN    += -Werror
endif
# The dispatcher and the portable code are built with these flags only: no
# target flags, so they run on any x86-64 (or other) CPU.
# A packager's CPPFLAGS/CFLAGS come after ours (their -O2 and hardening
# flags win); the SIMD bodies' target flags come after both.
PKG_CFLAGS := $(CPPFLAGS) $(CFLAGS) -ffile-prefix-map=$(CURDIR)=.
CFLAGS_LIB := -std=gnu11 -O2 -g $(WARN) -fPIC -fvisibility=hidden -D_GNU_SOURCE \
	      -Iinclude -Isrc -pthread $(PKG_CFLAGS) $(SAN) $(EXTRA_CFLAGS)
LDLIBS_LIB := -pthread -ldl

# Each SIMD body gets its own target flags (BLAKE3 style); a body is built
# only for its own architecture (the target's triplet, from the compiler).
TARGET_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
ALL_LIB_SRC := $(wildcard src/*.c src/crypto/*.c src/entropy/*.c src/gen/*.c)
ifneq ($(findstring x86_64,$(TARGET_MACHINE)),)
SIMD_FLAGS_chacha20_ssse3  := -O3 -mssse3
SIMD_FLAGS_chacha20_avx2   := -O3 -mavx2
SIMD_FLAGS_chacha20_avx512 := -O3 -mavx512f
LIB_SRC := $(filter-out %_neon.c,$(ALL_LIB_SRC))
else ifneq ($(findstring aarch64,$(TARGET_MACHINE)),)
# Advanced SIMD (NEON) is part of the AArch64 base ISA: no -m flag needed;
# cpu.c still checks HWCAP_ASIMD before choosing the body.
SIMD_FLAGS_chacha20_neon := -O3
LIB_SRC := $(filter-out %_ssse3.c %_avx2.c %_avx512.c,$(ALL_LIB_SRC))
else
LIB_SRC := $(filter-out %_ssse3.c %_avx2.c %_avx512.c %_neon.c,$(ALL_LIB_SRC))
endif
LIB_HDR := include/surand.h $(wildcard src/*.h src/crypto/*.h src/entropy/*.h src/gen/*.h)

# Three builds of the same sources:
#   rel   what ships (.so/.a, installed)
#   test  + SURAND_TEST_BUILD: test hooks and the deterministic mode; never installed
#   bench + SURAND_BENCH_BUILD: shared-write counters, reduced-round ChaCha for bench/
REL_OBJ   := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC))
TEST_OBJ  := $(patsubst %.c,$(BUILD)/test/obj/%.o,$(LIB_SRC))
BENCH_OBJ := $(patsubst %.c,$(BUILD)/bench/obj/%.o,$(LIB_SRC))

SO      := $(BUILD)/libsurand.so.$(VERSION)
SONAME  := libsurand.so.$(SOVER)
STATIC  := $(BUILD)/libsurand.a
TESTLIB := $(BUILD)/test/libsurand-test.a
BENCHLIB := $(BUILD)/bench/libsurand-bench.a

# A value the build depends on, kept in a file that is rewritten only when the
# value changes, so that targets depending on the file are rebuilt then (a
# later PREFIX, a peer library installed since the last make).
#   $(call config_stamp,NAME,VALUE) -> $(BUILD)/config/NAME
config_stamp = $(shell mkdir -p $(BUILD)/config && \
	f=$(BUILD)/config/$(1) && v='$(2)' && \
	{ [ -f $$f ] && [ "$$(cat $$f)" = "$$v" ] || printf '%s\n' "$$v" > $$f; } && echo $$f)

# Optional peers, found with pkg-config; tests skip (with the apt-get line)
# when one is absent, and `make` says what it left out (LEFT_OUT below).  The
# tests link them (differential checks); the command takes only their headers
# and opens the libraries at run time (bench/lib/bench_peers.c).
HAVE_OPENSSL := $(shell $(PKG_CONFIG) --exists libcrypto 2>/dev/null && echo 1)
HAVE_SODIUM  := $(shell $(PKG_CONFIG) --exists libsodium 2>/dev/null && echo 1)
OPT_CFLAGS :=
OPT_LIBS   :=
ifeq ($(HAVE_OPENSSL),1)
OPT_CFLAGS += -DHAVE_OPENSSL=1
OPT_LIBS   += $(shell $(PKG_CONFIG) --libs libcrypto)
endif
ifeq ($(HAVE_SODIUM),1)
OPT_CFLAGS += -DHAVE_SODIUM=1
OPT_LIBS   += $(shell $(PKG_CONFIG) --libs libsodium)
endif
# What `make` left out and the packages that bring it: WHAT-IN-WORDS:PKG+PKG,
# one line each at the end of `make` (areas add theirs).
LEFT_OUT :=
ifneq ($(HAVE_OPENSSL),1)
LEFT_OUT += OpenSSL-peer-of-surand-bench:libssl-dev
endif
ifneq ($(HAVE_SODIUM),1)
LEFT_OUT += libsodium-peer-of-surand-bench:libsodium-dev
endif
# The tools are rebuilt when a peer appears or goes (their -D flags change).
OPT_STAMP    := $(call config_stamp,opt-cflags,$(OPT_CFLAGS))
PREFIX_STAMP := $(call config_stamp,prefix,$(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(PRELOADDIR))

# The surand command: tools/surand/ (the CLI) and tools/surand/bench/ (its
# bench subcommand) with the measuring library, bench/lib/, link the static
# library.
TOOL_DIRS := tools/surand tools/surand/bench bench/lib
TOOL_SRC := $(foreach d,$(TOOL_DIRS),$(wildcard $(d)/*.c))
TOOL_HDR := $(foreach d,$(TOOL_DIRS),$(wildcard $(d)/*.h))
TOOL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(TOOL_SRC))
CFLAGS_TOOL := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude -Isrc $(addprefix -I,$(TOOL_DIRS)) -pthread \
	       $(OPT_CFLAGS) $(PKG_CFLAGS) $(SAN) $(EXTRA_CFLAGS)

# Tests: one binary per tests/test_*.c, linked with the test build.
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BIN  := $(patsubst tests/%.c,$(BUILD)/test/%,$(TEST_SRC))
CFLAGS_TEST := -std=gnu11 -O1 -g $(WARN) -Wno-missing-prototypes -D_GNU_SOURCE \
	       -DSURAND_TEST_BUILD -Iinclude -Isrc -Itests -pthread $(OPT_CFLAGS) $(SAN) $(EXTRA_CFLAGS)

ALL_TARGETS := $(SO) $(BUILD)/libsurand.so $(STATIC) $(BUILD)/surand $(BUILD)/surand.pc \
	       $(BUILD)/surand-uninstalled.pc
CHECK_DEPS  := $(TEST_BIN) $(BUILD)/surand

# ---- areas: their fragments add to ALL_TARGETS, CHECK_DEPS, INSTALL_EXTRA --
# (included before the first rule reads those variables)
.DEFAULT_GOAL := all
-include $(sort $(wildcard mk/*.mk))

.PHONY: all run check check-build sanitize tsan mutate bench install uninstall clean freestanding left-out
all: $(ALL_TARGETS) left-out

# One line per part left out, with the package to install; a later `make`
# after installing it builds that part (the checks run on every make).
left-out: $(ALL_TARGETS)
	@for x in $(LEFT_OUT); do \
		what=$$(echo "$${x%%:*}" | tr '-' ' '); pkgs=$$(echo "$${x#*:}" | tr '+' ' '); \
		echo "make: $$what not built: apt-get install $$pkgs"; \
	done

# ---- objects ---------------------------------------------------------------
$(BUILD)/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) $(SIMD_FLAGS_$(notdir $*)) -c $< -o $@

$(BUILD)/test/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -DSURAND_TEST_BUILD $(SIMD_FLAGS_$(notdir $*)) -c $< -o $@

$(BUILD)/bench/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -DSURAND_BENCH_BUILD $(BENCH_CFLAGS) $(SIMD_FLAGS_$(notdir $*)) -c $< -o $@

$(BUILD)/obj/tools/%.o: tools/%.c $(LIB_HDR) $(TOOL_HDR) $(OPT_STAMP) $(PREFIX_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOL) -DSURAND_PRELOADDIR='"$(PRELOADDIR)"' -c $< -o $@

$(BUILD)/obj/bench/lib/%.o: bench/lib/%.c $(LIB_HDR) $(wildcard bench/lib/*.h) $(OPT_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOL) -c $< -o $@

# ---- libraries -------------------------------------------------------------
$(SO): $(REL_OBJ) src/libsurand.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libsurand.map \
		-Wl,-z,relro -Wl,-z,now -Wl,--no-undefined $(LDFLAGS) $(SAN) -o $@ $(REL_OBJ) $(LDLIBS_LIB)

$(BUILD)/libsurand.so: $(SO)
	ln -sf $(notdir $(SO)) $(BUILD)/$(SONAME)
	ln -sf $(notdir $(SO)) $@

$(STATIC): $(REL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TESTLIB): $(TEST_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BENCHLIB): $(BENCH_OBJ)
	@rm -f $@
	ar rcs $@ $^

# A directory under PREFIX as the .pc writes it: ${prefix}/lib.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# Rebuilt when PREFIX changes ($(PREFIX_STAMP)): `make` then
# `make install PREFIX=/opt/x` installs a .pc that says /opt/x.
$(BUILD)/surand.pc: surand.pc.in Makefile $(PREFIX_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|g' \
	    -e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|g' \
	    -e 's|@VERSION@|$(VERSION)|g' $< > $@

# The pkg-config "uninstalled" convention: the same package, pointing into
# this tree (headers in include/, libraries in $(BUILD)/, with a run path so
# that the program runs from the tree without LD_LIBRARY_PATH).
$(BUILD)/surand-uninstalled.pc: surand.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|^prefix=.*|prefix=$(CURDIR)|' -e 's|^libdir=.*|libdir=$(abspath $(BUILD))|' \
	    -e 's|^includedir=.*|includedir=$${prefix}/include|' \
	    -e 's|^Libs: .*|Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lsurand|' \
	    -e 's|@VERSION@|$(VERSION)|g' $< > $@

# ---- the surand command ----------------------------------------------------
$(BUILD)/surand: $(TOOL_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $(TOOL_OBJ) $(STATIC) $(LDLIBS_LIB) -lm

# ---- tests -----------------------------------------------------------------
$(BUILD)/test/harness.o: tests/harness.c tests/harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) -c $< -o $@

$(BUILD)/test/test_%: tests/test_%.c $(BUILD)/test/harness.o $(TESTLIB) tests/harness.h $(LIB_HDR)
	$(CC) $(CFLAGS_TEST) -o $@ $< $(BUILD)/test/harness.o $(TESTLIB) $(OPT_LIBS) $(LDLIBS_LIB) -lm

run: all
	$(BUILD)/surand bench --quick

# Builds what make check runs, without running it.
check-build: $(CHECK_DEPS) $(ALL_TARGETS)

check: $(CHECK_DEPS) $(ALL_TARGETS)
	@BUILD=$(BUILD) SURAND_SANITIZER=$(SURAND_SANITIZER) SURAND_SKIP_SCRIPTS=$(SURAND_SKIP_SCRIPTS) \
		bash scripts/run-tests.sh

sanitize:
	$(MAKE) BUILD=build/asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		SURAND_SANITIZER=asan SURAND_SKIP_SCRIPTS=1 check

tsan:
	$(MAKE) BUILD=build/tsan SAN="-fsanitize=thread" SURAND_SANITIZER=tsan SURAND_SKIP_SCRIPTS=1 check

# Not part of check: it rebuilds the test library once per mutation.
mutate:
	MUTATE_RECORD=1 bash scripts/mutate.sh

freestanding:
	@mkdir -p $(BUILD)/freestanding
	@set -e; for f in src/crypto/*_portable.c src/crypto/blake2s.c src/crypto/sha1.c src/crypto/lfsr2015.c; do \
		[ -f $$f ] || continue; \
		$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdinc -fno-builtin-printf \
			-DSURAND_FREESTANDING -c $$f -o $(BUILD)/freestanding/$$(basename $$f .c).o; \
		echo "freestanding: $$f"; \
	done

# The recipe lines are echoed as run, DESTDIR included.  On a real install
# (no DESTDIR) ldconfig refreshes the loader's cache when run as root;
# otherwise the last line says to run it.
install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 $(SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(notdir $(SO)) $(DESTDIR)$(LIBDIR)/libsurand.so
	install -m 0644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 0644 include/surand.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0755 $(BUILD)/surand $(DESTDIR)$(BINDIR)/
	install -m 0644 $(BUILD)/surand.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL_EXTRA)
	@if [ -n "$(DESTDIR)" ]; then \
		echo "install: staged under $(DESTDIR) (run ldconfig after copying it into place)"; \
	elif [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		echo "ldconfig"; ldconfig; \
		ldconfig -p | grep -q "$(LIBDIR)/$(SONAME)" || \
			echo "install: $(LIBDIR) is not in the loader's path: add it to /etc/ld.so.conf.d/ and run ldconfig"; \
	else \
		echo "install: run ldconfig as root so that programs find $(SONAME)"; \
	fi

# Every file install may have written (whichever optional parts were built).
UNINSTALL_FILES := $(LIBDIR)/$(notdir $(SO)) $(LIBDIR)/$(SONAME) $(LIBDIR)/libsurand.so \
	$(LIBDIR)/libsurand.a $(PRELOADDIR)/libsurand-preload.so $(INCLUDEDIR)/surand.h \
	$(BINDIR)/surand $(SBINDIR)/surandfs $(PKGCONFIGDIR)/surand.pc \
	$(foreach m,$(wildcard man/*.[0-9]),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
uninstall:
	@for f in $(UNINSTALL_FILES); do \
		p="$(DESTDIR)$$f"; \
		if [ -e "$$p" ] || [ -L "$$p" ]; then echo "rm -f $$p"; rm -f "$$p"; fi; \
	done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		echo "ldconfig"; ldconfig; fi

clean:
	rm -rf build
