# variants.mk - the reference allocators: their unit tests and the published results.
#
#   make variant-unit VARIANT=segregated   build the C unit tests against one variant
#   make results                           rebuild every variant, run the suite with
#                                          the libc baseline, write docs/results.md

VARIANT_UNIT_SRCS := tests/c/variants/unit.c memlib.c
VARIANT_UNIT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(VARIANT_UNIT_SRCS))

.PHONY: variant-unit results

variant-unit: $(BUILD)/variant-unit ## build the C unit tests of variants/$(VARIANT).c (path on the last line)
	@echo $(BUILD)/variant-unit

$(BUILD)/variant-unit: $(VARIANT_UNIT_OBJS) $(ALLOC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

-include $(VARIANT_UNIT_OBJS:.o=.d)

RESULTS_TRACES ?= traces
RESULTS_ARGS   ?=
results: venv ## rebuild every variant, run the trace suite with libc alongside, write docs/results.md and plots
	$(PYTHON) tools/results.py --traces $(RESULTS_TRACES) --out docs $(RESULTS_ARGS)

VARIANT_CORRUPT_OBJS := $(patsubst %.c,$(BUILD)/%.o,tests/c/variants/corrupt.c memlib.c)
.PHONY: variant-corrupt
variant-corrupt: $(BUILD)/variant-corrupt ## build the damaged-heap check of variants/$(VARIANT).c
	@echo $(BUILD)/variant-corrupt

$(BUILD)/variant-corrupt: $(VARIANT_CORRUPT_OBJS) $(ALLOC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm
