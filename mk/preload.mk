# mk/preload.mk - build/libsurand-preload.so (tools/preload/) and the test
# programs of tests/preload.sh (tests/preload/).
#
# The preload is one self-contained file: its own objects plus the library's
# objects (build/libsurand.a, -fPIC), exporting only the interposed functions
# (tools/preload/preload.map).  The library's own calls to interposed names
# (open/read/close/getrandom/... of its seeding code) are renamed to
# surand_pl_lib_* (raw syscalls in preload.c) with objcopy, and the build
# fails if any such call is left: surand must never seed itself from its own
# interposed /dev/urandom.

OBJCOPY ?= objcopy
NM      ?= nm

PRELOAD_SO   := $(BUILD)/libsurand-preload.so
PRELOAD_DIR  := $(BUILD)/preload
PRELOAD_SRC  := tools/preload/preload.c tools/preload/match.c
PRELOAD_OBJ  := $(patsubst tools/preload/%.c,$(PRELOAD_DIR)/%.o,$(PRELOAD_SRC))
PRELOAD_MAP  := tools/preload/preload.map
# The library archive linked in (the default generator of this tree).
PRELOAD_LIBA ?= $(STATIC)
PRELOAD_LIBR := $(PRELOAD_DIR)/libsurand-renamed.a

# No fortification here: preload.c defines __read_chk & co. itself.
CFLAGS_PRELOAD := -std=gnu11 -O2 -g $(WARN) -fPIC -fvisibility=hidden -D_GNU_SOURCE \
		  -Iinclude -Itools/preload -pthread $(PKG_CFLAGS) -U_FORTIFY_SOURCE $(SAN) $(EXTRA_CFLAGS)

$(PRELOAD_DIR)/%.o: tools/preload/%.c tools/preload/match.h include/surand.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_PRELOAD) -c $< -o $@

# Every exported name, one a line (from the version script).
$(PRELOAD_DIR)/exports.list: $(PRELOAD_MAP)
	@mkdir -p $(@D)
	sed -n '/global:/,/local:/p' $< | \
		tr ' \t;' '\n\n\n' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$$' | \
		grep -v -x -e global -e local | sort -u > $@

# Names the library may call: all exports but the arc4random family.
$(PRELOAD_DIR)/lib.redefine: $(PRELOAD_DIR)/exports.list
	grep -v '^arc4random' $< | sed 's/.*/& surand_pl_lib_&/' > $@

$(PRELOAD_LIBR): $(PRELOAD_LIBA) $(PRELOAD_DIR)/lib.redefine $(PRELOAD_DIR)/exports.list
	$(OBJCOPY) --redefine-syms=$(PRELOAD_DIR)/lib.redefine $(PRELOAD_LIBA) $@.tmp
	@left=$$($(NM) -u $@.tmp | awk '{print $$NF}' | sort -u | grep -F -x -f $(PRELOAD_DIR)/exports.list); \
	if [ -n "$$left" ]; then \
		echo "preload: library objects still call interposed functions: $$left" >&2; \
		rm -f $@.tmp; exit 1; \
	fi
	mv $@.tmp $@

$(PRELOAD_SO): $(PRELOAD_OBJ) $(PRELOAD_LIBR) $(PRELOAD_MAP)
	$(CC) -shared $(LDFLAGS) $(SAN) -Wl,--version-script=$(PRELOAD_MAP) -Wl,-z,relro -Wl,-z,now \
		-Wl,--no-undefined -o $@ $(PRELOAD_OBJ) $(PRELOAD_LIBR) $(LDLIBS_LIB)

# ---- test programs (tests/preload.sh) ---------------------------------------
PRELOAD_TDIR := $(BUILD)/preload-test
PRELOAD_TESTS := $(PRELOAD_TDIR)/pltest $(PRELOAD_TDIR)/pltest-fortify \
		 $(PRELOAD_TDIR)/plearly $(PRELOAD_TDIR)/libplearly.so
CFLAGS_PLTEST := -std=gnu11 -g $(WARN) -Wno-missing-prototypes -D_GNU_SOURCE \
		 -Itools/preload -pthread $(EXTRA_CFLAGS)

$(PRELOAD_TDIR)/pltest: tests/preload/pltest.c tools/preload/match.c tools/preload/match.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_PLTEST) -O0 -U_FORTIFY_SOURCE -o $@ tests/preload/pltest.c tools/preload/match.c

$(PRELOAD_TDIR)/pltest-fortify: tests/preload/pltest.c tools/preload/match.c tools/preload/match.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_PLTEST) -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -o $@ \
		tests/preload/pltest.c tools/preload/match.c

$(PRELOAD_TDIR)/libplearly.so: tests/preload/early.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_PLTEST) -O0 -U_FORTIFY_SOURCE -fPIC -shared -o $@ $<

$(PRELOAD_TDIR)/plearly: tests/preload/early_main.c $(PRELOAD_TDIR)/libplearly.so
	$(CC) $(CFLAGS_PLTEST) -O0 -o $@ $< -L$(PRELOAD_TDIR) -lplearly -Wl,-rpath,'$$ORIGIN'

# The same preload with a mark table of 256 descriptors (tests/preload.sh:
# numbers past the table's end, below any RLIMIT_NOFILE).
PRELOAD_FD256 := $(PRELOAD_TDIR)/libsurand-preload-fd256.so
$(PRELOAD_DIR)/preload-fd256.o: tools/preload/preload.c tools/preload/match.h include/surand.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_PRELOAD) -DPL_MAX_FD=256 -c $< -o $@

$(PRELOAD_FD256): $(PRELOAD_DIR)/preload-fd256.o $(PRELOAD_DIR)/match.o $(PRELOAD_LIBR) $(PRELOAD_MAP)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) $(SAN) -Wl,--version-script=$(PRELOAD_MAP) -Wl,-z,relro -Wl,-z,now \
		-Wl,--no-undefined -o $@ $(PRELOAD_DIR)/preload-fd256.o $(PRELOAD_DIR)/match.o \
		$(PRELOAD_LIBR) $(LDLIBS_LIB)
PRELOAD_TESTS += $(PRELOAD_FD256)

ALL_TARGETS += $(PRELOAD_SO)
CHECK_DEPS  += $(PRELOAD_SO) $(PRELOAD_TESTS)
# The Makefile's "all:" line is read before mk/*.mk: name the target there too.
all: $(PRELOAD_SO)

# make install: $(PRELOADDIR)/libsurand-preload.so (a separate recipe line,
# whatever other fragments add to INSTALL_EXTRA).
define PRELOAD_INSTALL

	install -d $(DESTDIR)$(PRELOADDIR)
	install -m 0644 $(PRELOAD_SO) $(DESTDIR)$(PRELOADDIR)/libsurand-preload.so
endef
INSTALL_EXTRA += $(PRELOAD_INSTALL)
