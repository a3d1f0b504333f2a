# mk/fuse.mk - build/surandfs (tools/surandfs/), only where pkg-config finds
# fuse3 (apt-get install fuse3 libfuse3-dev); tests/fuse.sh skips otherwise.
# The read path (readpath.c) needs no FUSE: build/surandfs-readpath-test
# (tests/surandfs_readpath.c) drives it directly, so it is built and
# tested everywhere.

HAVE_FUSE3 := $(shell $(PKG_CONFIG) --exists fuse3 2>/dev/null && echo 1)
SURANDFS   := $(BUILD)/surandfs
SFS_DIR    := $(BUILD)/surandfs.d
CFLAGS_SFS := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude -Itools/surandfs -pthread \
	      $(PKG_CFLAGS) $(SAN) $(EXTRA_CFLAGS)

$(SFS_DIR)/readpath.o: tools/surandfs/readpath.c tools/surandfs/readpath.h include/surand.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_SFS) -c $< -o $@

# Unit test of the read path (run by tests/fuse.sh, with or without fuse3).
$(BUILD)/surandfs-readpath-test: tests/surandfs_readpath.c $(SFS_DIR)/readpath.o $(STATIC)
	$(CC) $(CFLAGS_SFS) -Wno-missing-prototypes -o $@ $< $(SFS_DIR)/readpath.o $(STATIC) $(LDLIBS_LIB)

CHECK_DEPS += $(BUILD)/surandfs-readpath-test

ifeq ($(HAVE_FUSE3),1)
# The loop configuration API of libfuse 3.12+, else the 3.4 one.
FUSE3_API    := $(shell $(PKG_CONFIG) --atleast-version=3.12 fuse3 && echo 312 || echo 34)
FUSE3_CFLAGS := $(shell $(PKG_CONFIG) --cflags fuse3) -DFUSE_USE_VERSION=$(FUSE3_API)
FUSE3_LIBS   := $(shell $(PKG_CONFIG) --libs fuse3)

$(SFS_DIR)/surandfs.o: tools/surandfs/surandfs.c tools/surandfs/readpath.h tools/surand/stdfds.h \
		include/surand.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_SFS) $(FUSE3_CFLAGS) -c $< -o $@

$(SURANDFS): $(SFS_DIR)/surandfs.o $(SFS_DIR)/readpath.o $(STATIC)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $(SFS_DIR)/surandfs.o $(SFS_DIR)/readpath.o $(STATIC) $(FUSE3_LIBS) $(LDLIBS_LIB)

ALL_TARGETS += $(SURANDFS)
CHECK_DEPS  += $(SURANDFS)
# The Makefile's "all:" line is read before mk/*.mk: name the target there too.
all: $(SURANDFS)

# make install: the daemon in sbin, its manual in man8 (separate recipe lines).
define FUSE_INSTALL

	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 $(SURANDFS) $(DESTDIR)$(SBINDIR)/surandfs
endef
INSTALL_EXTRA += $(FUSE_INSTALL)
# man/surandfs.8: mk/cli.mk installs every man/*.[0-9]; without it, here.
ifeq ($(wildcard mk/cli.mk),)
define FUSE_INSTALL_MAN

	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 man/surandfs.8 $(DESTDIR)$(MANDIR)/man8/surandfs.8
endef
INSTALL_EXTRA += $(FUSE_INSTALL_MAN)
endif
else
# `make` ends with this line (Makefile, left-out); a later make after
# installing the packages builds surandfs (HAVE_FUSE3 is checked every time).
LEFT_OUT += surandfs:fuse3+libfuse3-dev
endif
