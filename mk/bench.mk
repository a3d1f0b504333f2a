# mk/bench.mk - the benchmark.
#
#   make bench    the full `surand bench` (table, design targets, CSV, JSON, PNG charts)
#                 and bench/shared_writes, results under $(BUILD)/bench-results/
#   make run      `surand bench --quick` (in the Makefile)
#   make bench BENCH_ARGS="--threads 1,2 --seconds 1"   extra options for surand bench
#
# bench/*.c are programs built with -DSURAND_BENCH_BUILD against the bench
# build of the library ($(BENCHLIB): shared-write counters, src/benchcount.h),
# with the bench's measuring loop (tools/bench_*.c) compiled the same way.
# `make check` builds them (so they keep compiling) and tests/bench.sh runs
# the counters' self-test; it runs no benchmark.

BENCH_PROG_SRC := $(wildcard bench/*.c)
BENCH_PROGS    := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_PROG_SRC))
BENCH_TOOL_OBJ := $(patsubst tools/%.c,$(BUILD)/bench/tools/%.o,\
		    tools/bench_engine.c tools/bench_sources.c tools/bench_vdso.c)
BENCH_OUT      := $(BUILD)/bench-results
BENCH_ARGS     ?=
CFLAGS_BENCHPROG := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -DSURAND_BENCH_BUILD $(BENCH_CFLAGS) \
		    -Iinclude -Isrc -Itools -pthread $(SAN) $(EXTRA_CFLAGS)

$(BENCH_TOOL_OBJ): $(BUILD)/bench/tools/%.o: tools/%.c tools/bench.h $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BENCHPROG) -c $< -o $@

$(BENCH_PROGS): $(BUILD)/bench/%: bench/%.c $(BENCH_TOOL_OBJ) $(BENCHLIB) tools/bench.h $(LIB_HDR)
	$(CC) $(CFLAGS_BENCHPROG) -o $@ $< $(BENCH_TOOL_OBJ) $(BENCHLIB) $(LDLIBS_LIB) -lm

CHECK_DEPS += $(BENCH_PROGS)

bench: all $(BENCH_PROGS)
	@mkdir -p $(BENCH_OUT)
	bash -o pipefail -c '$(BUILD)/surand bench $(BENCH_ARGS) --csv $(BENCH_OUT)/bench.csv \
		--json $(BENCH_OUT)/bench.json --plot $(BENCH_OUT)/bench.png | tee $(BENCH_OUT)/bench.txt'
	bash -o pipefail -c '$(BUILD)/bench/shared_writes | tee $(BENCH_OUT)/shared_writes.txt'

# tests/test_bench.c includes tools/bench_*.c: rebuilt when they change.
$(BUILD)/test/test_bench: $(wildcard tools/bench_*.c) tools/bench.h
