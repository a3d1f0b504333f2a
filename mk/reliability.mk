# mk/reliability.mk - the reliability area: storms, fuzzing,
# valgrind and static analysis.  RELIABILITY.md is the table of results.
#
#   make stress     the storms and faults at the full design loads
#                   (SURAND_STRESS=1: 2,000 forks, 20,000 threads, 2 s signal
#                   storm, 4,000 cancellations, ...), log in $(REL_DIR)/stress.log
#   make fuzz       every libFuzzer harness (tests/fuzz/) for FUZZ_SECONDS each
#                   (default 20), starting from tests/corpus/<target>/; a crash
#                   stops with the input in $(FUZZ_DIR)/crash-<target>-*: fix it
#                   and keep the input in tests/corpus/<target>/
#   make valgrind   memcheck over the API tests (VALGRIND_TESTS), ChaCha20
#                   forced to avx2 and to portable (valgrind has no AVX-512;
#                   test_faults under avx2 only: tests/stress/valgrind.sh)
#   make lint       cppcheck and clang-tidy over src/ and tools/ (.cppcheck-
#                   suppressions, .clang-tidy: every exception justified there)
#   make reliability-table   RELIABILITY.md from the check and stress logs
#
# make check replays tests/corpus/ through every harness built with gcc and a
# plain main (tests/fuzz/replay_main.c): tests/reliability.sh.

REL_DIR  := $(BUILD)/reliability
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SECONDS ?= 20
FUZZ_CC  ?= clang
FUZZ_TARGETS := getrandom entropy cli_parse preload_match fuse_read

# ---- fuzzing (clang: -fsanitize=fuzzer,address,undefined) -------------------
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -O1 -g -D_GNU_SOURCE -Iinclude -Isrc -Itests/fuzz -pthread $(FUZZ_SAN)
FUZZ_LIBOBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(LIB_SRC))
FUZZ_LIB    := $(FUZZ_DIR)/libsurand-fuzz.a

$(FUZZ_DIR)/obj/%.o: %.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -fvisibility=hidden \
		$(SIMD_FLAGS_$(notdir $*)) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIBOBJ)
	@rm -f $@
	ar rcs $@ $^

# Sources and include folders of each harness besides tests/fuzz/fuzz_<t>.c.
FUZZ_SRC_getrandom     :=
FUZZ_SRC_entropy       :=
FUZZ_SRC_cli_parse     := tools/surand/parse.c
FUZZ_SRC_preload_match := tools/preload/match.c
FUZZ_SRC_fuse_read     := tools/surandfs/readpath.c
FUZZ_INC_cli_parse     := -Itools/surand
FUZZ_INC_preload_match := -Itools/preload
FUZZ_INC_fuse_read     := -Itools/surandfs
FUZZ_LINK_getrandom    := $(FUZZ_LIB)
FUZZ_LINK_entropy      := $(FUZZ_LIB)
FUZZ_LINK_fuse_read    := $(FUZZ_LIB)

FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB) $(LIB_HDR) \
		$(wildcard tools/*/*.h tools/*/*/*.h bench/lib/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_INC_$*) -o $@ $< $(FUZZ_SRC_$*) \
		$(FUZZ_LINK_$*) -ldl -lm

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS) $(REL_DIR)/backend-names
fuzz: fuzz-build
	FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh

# ---- corpus replay in make check (gcc, a plain main) --------------------------
REPLAY_DIR  := $(BUILD)/fuzz-replay
REPLAY_BINS := $(patsubst %,$(REPLAY_DIR)/fuzz_%,$(FUZZ_TARGETS))
REPLAY_LINK_getrandom := $(STATIC)
REPLAY_LINK_entropy   := $(STATIC)
REPLAY_LINK_fuse_read := $(STATIC)
CFLAGS_REPLAY := -std=gnu11 -O1 -g $(WARN) -Wno-missing-prototypes -D_GNU_SOURCE -Iinclude -Isrc \
		 -Itests/fuzz -pthread $(SAN) $(EXTRA_CFLAGS)

$(REPLAY_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c tests/fuzz/fuzz.h $(STATIC) \
		$(LIB_HDR) $(wildcard tools/*/*.h tools/*/*/*.h bench/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_REPLAY) $(FUZZ_INC_$*) -o $@ $< tests/fuzz/replay_main.c $(FUZZ_SRC_$*) \
		$(REPLAY_LINK_$*) $(LDLIBS_LIB) -lm

# ---- helpers of the scripts: the FIPS tolerance (rngtest), the backend list ------
$(REL_DIR)/fips-tolerance: tests/stress/fips_tolerance.c tests/stress/fips.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) $(SAN) -Itests -o $@ $< -lm

$(REL_DIR)/fipscheck: tests/stress/fipscheck.c tests/stress/fips.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) $(SAN) -Itests -o $@ $< -lm

$(REL_DIR)/backend-names: tests/stress/backend_names.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) $(SAN) -Iinclude -o $@ $< $(STATIC) $(LDLIBS_LIB)

CHECK_DEPS += $(REPLAY_BINS) $(REL_DIR)/fips-tolerance $(REL_DIR)/fipscheck $(REL_DIR)/backend-names

# ---- make stress ------------------------------------------------------------------
STRESS_TESTS ?= test_storms test_faults
.PHONY: stress
stress: $(CHECK_DEPS)
	@mkdir -p $(REL_DIR)
	@BUILD=$(BUILD) SURAND_STRESS=1 SURAND_TESTS="$(STRESS_TESTS)" SURAND_SKIP_SCRIPTS=1 \
		bash -o pipefail -c 'bash scripts/run-tests.sh | tee $(REL_DIR)/stress.log'

# ---- make valgrind -------------------------------------------------------------------
# The API tests under memcheck (tests/stress/valgrind.sh).  Not run here
# (documented in RELIABILITY.md):
#   test_storms, test_stats_quality   thousands of forks/threads, or 10 MB per
#                                     backend through the portable body: hours
#                                     under valgrind, for code the API tests cover;
#   test_hygiene                      reads the whole address space and core
#                                     files: reads valgrind rightly calls invalid;
#   test_chacha_diff, test_chacha20   every SIMD body by name (no AVX-512 under
#                                     valgrind) / re-executes /proc/self/exe,
#                                     which under valgrind is valgrind itself;
#   test_bench                        the bench build's counters.
# test_faults runs its cases that need neither seccomp(2) (valgrind has none)
# nor hundreds of threads under signals.
VALGRIND_TESTS ?= test_generator test_backends test_entropy test_entropy_fork test_faults test_callstate \
		  test_stream test_blake2s test_sha1 test_cli_parse
VALGRIND_IMPLS ?= avx2 portable
.PHONY: valgrind
valgrind: $(CHECK_DEPS)
	BUILD=$(BUILD) VALGRIND_TESTS="$(VALGRIND_TESTS)" VALGRIND_IMPLS="$(VALGRIND_IMPLS)" \
		bash tests/stress/valgrind.sh

# ---- make lint ---------------------------------------------------------------------------
LINT_SRC  := $(LIB_SRC) $(wildcard tools/*/*.c tools/*/*/*.c bench/lib/*.c)
LINT_DEFS := -D_GNU_SOURCE -DFUSE_USE_VERSION=312 -Iinclude -Isrc -Itools/surand -Itools/surand/bench -Ibench/lib -Itools/preload \
	     -Itools/surandfs $(shell pkg-config --cflags fuse3 2>/dev/null)
.PHONY: lint cppcheck clang-tidy
lint: cppcheck clang-tidy
cppcheck:
	cppcheck -q --std=c11 --language=c --enable=warning,performance,portability \
		--inline-suppr --suppressions-list=.cppcheck-suppressions --error-exitcode=1 \
		--library=posix -D__x86_64__ -D__GNUC__ -DFUSE_USE_VERSION=312 -Iinclude -Isrc \
		-Itools/surand -Itools/surand/bench -Ibench/lib -Itools/preload -Itools/surandfs $(LINT_SRC)
	@echo "cppcheck: $(words $(LINT_SRC)) files, no findings"
	@echo "RELIABILITY lint-cppcheck[src+tools]|cppcheck $$(cppcheck --version | cut -d' ' -f2) warning,performance,portability over $(words $(LINT_SRC)) files, $$(grep -c '^[a-zA-Z]' .cppcheck-suppressions) justified suppressions|pass|0|0|0"
clang-tidy:
	@set -e; n=0; for f in $(LINT_SRC); do \
		flags="-std=gnu11 $(LINT_DEFS)"; \
		case $$f in *_ssse3.c) flags="$$flags -mssse3";; *_avx2.c) flags="$$flags -mavx2";; \
			*_avx512.c) flags="$$flags -mavx512f";; esac; \
		clang-tidy --quiet --warnings-as-errors='*' $$f -- $$flags; \
		n=$$((n + 1)); \
	done; echo "clang-tidy: $$n files, no findings"; \
	echo "RELIABILITY lint-clang-tidy[src+tools]|clang-tidy $$(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1) (.clang-tidy) over $$n files, $$(grep -rc NOLINT src tools bench/lib | awk -F: '{s += $$2} END {print s}') justified NOLINT lines|pass|0|0|0"

# ---- RELIABILITY.md ------------------------------------------------------------------------
.PHONY: reliability-table reliability-deps
reliability-deps: $(ALL_TARGETS) $(CHECK_DEPS)
reliability-table: reliability-deps
	BUILD=$(BUILD) bash scripts/reliability-table.sh
