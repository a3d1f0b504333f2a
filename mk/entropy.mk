# Input side (src/entropy/, docs/entropy.md): the surand_add_event
# micro-benchmark.  It uses the public API only and links the shipped static
# library, so it times what ships.  `make bench-entropy` runs it (a few
# seconds); `make` only builds it.
ENTROPY_BENCH := $(BUILD)/bench/bench_entropy

$(ENTROPY_BENCH): bench/bench_entropy.c $(STATIC) include/surand.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOL) -o $@ $< $(STATIC) $(LDLIBS_LIB)

all: $(ENTROPY_BENCH)
ALL_TARGETS += $(ENTROPY_BENCH)

.PHONY: bench-entropy
bench-entropy: $(ENTROPY_BENCH)
	$(ENTROPY_BENCH)
