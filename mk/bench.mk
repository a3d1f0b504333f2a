# mk/bench.mk - the benchmark.
#
#   make bench    the full `surand bench` (table, design targets, CSV, JSON, PNG charts),
#                 bench/shared_writes and bench/overhead, results under $(BUILD)/bench-results/
#   make run      `surand bench --quick` (in the Makefile)
#   make bench BENCH_ARGS="--threads 1,2 --seconds 1"   extra options for surand bench
#
# bench/*.c are programs built with -DSURAND_BENCH_BUILD against the bench
# build of the library ($(BENCHLIB): shared-write counters, src/benchcount.h),
# with the measuring library (bench/lib/) compiled the same way.
# `make check` builds them (so they keep compiling) and tests/bench.sh runs
# the counters' self-test; it runs no benchmark.

# bench/overhead.c links the shared library instead (below)
BENCH_PROG_SRC := $(filter-out bench/overhead.c,$(wildcard bench/*.c))
BENCH_PROGS    := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_PROG_SRC))
BENCH_TOOL_OBJ := $(patsubst bench/lib/%.c,$(BUILD)/bench/lib/%.o,\
		    bench/lib/bench_engine.c bench/lib/bench_sources.c bench/lib/bench_vdso.c)
BENCH_OUT      := $(BUILD)/bench-results
BENCH_ARGS     ?=
CFLAGS_BENCHPROG := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -DSURAND_BENCH_BUILD $(BENCH_CFLAGS) \
		    -Iinclude -Isrc -Ibench/lib -pthread $(SAN) $(EXTRA_CFLAGS)

$(BENCH_TOOL_OBJ): $(BUILD)/bench/lib/%.o: bench/lib/%.c $(wildcard bench/lib/*.h) $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BENCHPROG) -c $< -o $@

$(BENCH_PROGS): $(BUILD)/bench/%: bench/%.c $(BENCH_TOOL_OBJ) $(BENCHLIB) bench/lib/bench.h $(LIB_HDR)
	$(CC) $(CFLAGS_BENCHPROG) -o $@ $< $(BENCH_TOOL_OBJ) $(BENCHLIB) $(LDLIBS_LIB) -lm

CHECK_DEPS += $(BENCH_PROGS)

# bench/overhead: the per-call costs taken apart.  Linked against the shipped
# shared library ($(BUILD)/libsurand.so, found at run time through the rpath)
# and a tiny shared object of its own (bench/overhead/callee.c, the library's
# flags), so that every call it times goes through a real PLT.
OVERHEAD      := $(BUILD)/bench/overhead
OVERHEAD_SO   := $(BUILD)/bench/liboverhead-callee.so

$(OVERHEAD_SO): bench/overhead/callee.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -shared -Wl,-soname,liboverhead-callee.so -o $@ $<

$(OVERHEAD): bench/overhead.c $(OVERHEAD_SO) $(BUILD)/libsurand.so include/surand.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g $(WARN) -Iinclude $(SAN) $(EXTRA_CFLAGS) -o $@ $< \
		-L$(BUILD)/bench -loverhead-callee -L$(BUILD) -lsurand -ldl \
		-Wl,-rpath,'$$ORIGIN:$$ORIGIN/..'

CHECK_DEPS += $(OVERHEAD)

bench: all $(BENCH_PROGS) $(OVERHEAD)
	@mkdir -p $(BENCH_OUT)
	bash -o pipefail -c '$(BUILD)/surand bench $(BENCH_ARGS) --csv $(BENCH_OUT)/bench.csv \
		--json $(BENCH_OUT)/bench.json --plot $(BENCH_OUT)/bench.png | tee $(BENCH_OUT)/bench.txt'
	bash -o pipefail -c '$(BUILD)/bench/shared_writes | tee $(BENCH_OUT)/shared_writes.txt'
	bash -o pipefail -c '$(OVERHEAD) | tee $(BENCH_OUT)/overhead.txt'

# tests/test_bench.c links the measuring library, compiled as the tests are.
BENCHLIB_SRC      := $(wildcard bench/lib/*.c)
TEST_BENCHLIB_OBJ := $(patsubst bench/lib/%.c,$(BUILD)/test/benchlib/%.o,$(BENCHLIB_SRC))
$(TEST_BENCHLIB_OBJ): $(BUILD)/test/benchlib/%.o: bench/lib/%.c $(wildcard bench/lib/*.h) $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) -Ibench/lib -c $< -o $@
$(BUILD)/test/test_bench: tests/test_bench.c $(TEST_BENCHLIB_OBJ) $(BUILD)/test/harness.o $(TESTLIB) \
		tests/harness.h bench/lib/bench.h $(LIB_HDR)
	$(CC) $(CFLAGS_TEST) -Ibench/lib -o $@ $< $(TEST_BENCHLIB_OBJ) $(BUILD)/test/harness.o \
		$(TESTLIB) $(OPT_LIBS) $(LDLIBS_LIB) -lm

# tests/test_bench_peers.c: the peers' loader as shipped and, renamed, built
# with sonames that cannot give the peers (tests/bench_peers_absent.c).
$(BUILD)/test/test_bench_peers: tests/test_bench_peers.c tests/bench_peers_absent.c \
		bench/lib/bench_peers.c bench/lib/bench_peers.h $(BUILD)/test/harness.o $(TESTLIB) \
		tests/harness.h $(LIB_HDR)
	$(CC) $(CFLAGS_TEST) -Ibench/lib -o $@ $< tests/bench_peers_absent.c bench/lib/bench_peers.c \
		$(BUILD)/test/harness.o $(TESTLIB) $(OPT_LIBS) $(LDLIBS_LIB) -lm

# ---- the Rust peer of surand bench (bench/rust-rand/) ----------------------
# rand 0.8's thread_rng() behind extern "C" functions, a shared object that
# `surand bench` loads with dlopen() from next to build/surand (source
# rust-rand).  Built offline from Debian's packaged crates: cargo and
# librust-rand-dev; bench/rust-rand/.cargo/config.toml replaces crates.io with
# /usr/share/cargo/registry.  The crate is copied under $(BUILD) and built
# there (Cargo.lock and target/ stay out of the source tree), with a CARGO_HOME
# of its own so that no user configuration or network is consulted.  Debian's
# cargo and rustc are preferred when both are installed.
RUST_PEER_SO  := $(BUILD)/libsurand-rust-rand-peer.so
RUST_PEER_DIR := $(BUILD)/rust-rand
RUST_PEER_SRC := bench/rust-rand/Cargo.toml bench/rust-rand/.cargo/config.toml \
		 bench/rust-rand/src/lib.rs
ifneq ($(wildcard /usr/bin/cargo),)
ifneq ($(wildcard /usr/bin/rustc),)
CARGO ?= /usr/bin/cargo
RUST_PEER_RUSTC ?= /usr/bin/rustc
endif
endif
CARGO ?= cargo
RUST_PEER_RUSTC ?= rustc
# RUST_PEER=0 leaves it out even where cargo is found: the Debian build
# (debian/rules) neither build-depends on cargo nor ships the peer.
ifeq ($(RUST_PEER),0)
HAVE_RUST_PEER :=
else
HAVE_RUST_PEER := $(shell command -v $(CARGO) >/dev/null 2>&1 && \
		    ls -d /usr/share/cargo/registry/rand-0.8.* >/dev/null 2>&1 && echo 1)
endif

$(RUST_PEER_SO): $(RUST_PEER_SRC)
	@rm -rf $(RUST_PEER_DIR)/src $(RUST_PEER_DIR)/.cargo
	@mkdir -p $(RUST_PEER_DIR)/cargo-home
	cp -r bench/rust-rand/. $(RUST_PEER_DIR)/
	cd $(RUST_PEER_DIR) && CARGO_HOME=$$PWD/cargo-home RUSTC=$(RUST_PEER_RUSTC) \
		$(CARGO) build --release --offline --quiet
	cp $(RUST_PEER_DIR)/target/release/libsurand_rust_rand_peer.so $@

.PHONY: rust-peer
rust-peer: $(RUST_PEER_SO)

ifeq ($(HAVE_RUST_PEER),1)
ALL_TARGETS += $(RUST_PEER_SO)
run bench: $(RUST_PEER_SO)
else ifneq ($(RUST_PEER),0)
LEFT_OUT += Rust-rand-peer-of-surand-bench:cargo+librust-rand-dev
endif
