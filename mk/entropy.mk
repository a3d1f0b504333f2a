# Input side (src/entropy/, docs/entropy.md).  bench/bench_entropy.c (the
# surand_add_event micro-benchmark, public API only) is built by mk/bench.mk
# like every bench/*.c; `make bench-entropy` runs it (a few seconds).
.PHONY: bench-entropy
bench-entropy: $(BUILD)/bench/bench_entropy
	$(BUILD)/bench/bench_entropy
