# Input side (src/entropy/, docs/entropy.md).  bench/bench_entropy.c (the
# surand_add_event micro-benchmark, public API only) is built by mk/bench.mk
# like every bench/*.c; `make bench-entropy` runs it: 2e7 calls per thread,
# one thread and then one per CPU, median of 7 runs in thread CPU time and in
# wall time (about 10 s on 2 vCPUs).  BENCH_ENTROPY_ARGS="calls threads runs"
# overrides the defaults (a short check: BENCH_ENTROPY_ARGS="200000 2 3").
BENCH_ENTROPY_ARGS ?=
.PHONY: bench-entropy
bench-entropy: $(BUILD)/bench/bench_entropy
	$(BUILD)/bench/bench_entropy $(BENCH_ENTROPY_ARGS)
