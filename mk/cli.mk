# mk/cli.mk - the surand command's area: the parser/encoder/verify unit test
# (which links tools/surand/parse.c, format.c and verify.c into the test build) and
# the man pages.

CLI_UNIT_SRC := tools/surand/parse.c tools/surand/format.c tools/surand/verify.c
CLI_UNIT_HDR := tools/surand/parse.h tools/surand/format.h tools/surand/verify.h

# An explicit rule: it replaces the generic tests/test_%.c rule for this binary.
$(BUILD)/test/test_cli_parse: tests/test_cli_parse.c $(CLI_UNIT_SRC) $(CLI_UNIT_HDR) \
		$(BUILD)/test/harness.o $(TESTLIB) tests/harness.h $(LIB_HDR)
	$(CC) $(CFLAGS_TEST) -Itools/surand -o $@ $< $(CLI_UNIT_SRC) $(BUILD)/test/harness.o $(TESTLIB) \
		$(OPT_LIBS) $(LDLIBS_LIB) -lm

# The fault library tests/cli.sh loads into the command (LD_PRELOAD): the
# target of surand wipe answers as a failing disk would.
CLI_FAULT_SO := $(BUILD)/test/libcli-fault.so
$(CLI_FAULT_SO): tests/cli_fault.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -fPIC -shared $(EXTRA_CFLAGS) -o $@ $< -ldl
CHECK_DEPS += $(CLI_FAULT_SO)

# Every man/NAME.N page goes to share/man/manN (surand.1, surand.3, and other
# areas' pages such as surandfs.8).  The leading and trailing empty lines make
# these separate recipe lines, whatever other fragments add to INSTALL_EXTRA.
MAN_PAGES := $(wildcard man/*.[0-9])
define CLI_INSTALL_MAN

	@set -e; for f in $(MAN_PAGES); do \
		sec=$${f##*.}; \
		install -d $(DESTDIR)$(MANDIR)/man$$sec; \
		install -m 0644 $$f $(DESTDIR)$(MANDIR)/man$$sec/; \
		echo "install -m 0644 $$f $(DESTDIR)$(MANDIR)/man$$sec/"; \
	done

endef
INSTALL_EXTRA += $(CLI_INSTALL_MAN)

.PHONY: man-check
# Renders every page with groff, failing on any warning.
man-check:
	@set -e; for f in $(MAN_PAGES); do \
		out=$$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z $$f 2>&1); \
		if [ -n "$$out" ]; then echo "$$f:"; echo "$$out"; exit 1; fi; \
		echo "man-check: $$f ok"; \
	done

