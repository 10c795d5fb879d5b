# variants.mk - the reference allocators: their unit tests and the published results.
#
#   make variant-unit VARIANT=segregated   build the C unit tests against one variant
#   make results                           rebuild every variant, run the suite with
#                                          the libc baseline, write docs/results.md
#   make results-seeds                     best and segregated-realloc on 4 other seeds
#                                          of each generated trace -> docs/results-seeds.md

# The unit tests and the damaged-heap check call a variant's mm_checkheap and mm_stats: asked for
# without VARIANT (or MM), they were built against mm.c and ended in some 190 lines of the linker's.
VARIANT_GOALS := $(filter variant-unit variant-corrupt,$(MAKECMDGOALS))
ifneq ($(and $(VARIANT_GOALS),$(if $(VARIANT)$(MM),,1)),)
  $(error $(firstword $(VARIANT_GOALS)) tests a variant: give VARIANT=name (variants: $(VARIANT_NAMES)))
endif

VARIANT_UNIT_SRCS := tests/c/variants/unit.c tests/c/variants/unit_realloc.c tests/c/variants/unit_fit.c memlib.c
VARIANT_UNIT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(VARIANT_UNIT_SRCS))

.PHONY: variant-unit results results-seeds

variant-unit: $(BUILD)/variant-unit ## build the C unit tests of variants/$(VARIANT).c (path on the last line)
	@echo $(BUILD)/variant-unit

$(BUILD)/variant-unit: $(VARIANT_UNIT_OBJS) $(ALLOC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

-include $(VARIANT_UNIT_OBJS:.o=.d)

RESULTS_TRACES ?= traces
RESULTS_ARGS   ?=
results: venv ## rebuild every variant, run the trace suite with libc alongside, write docs/results.md and plots
	$(PYTHON) tools/results.py --traces $(RESULTS_TRACES) --out docs $(RESULTS_ARGS)

RESULTS_SEEDS_ARGS ?=
results-seeds: venv ## utilization of best and segregated-realloc on 4 other seeds of each generated trace -> docs/results-seeds.md; RESULTS_SEEDS_ARGS=...
	$(PYTHON) tools/results_seeds.py $(RESULTS_SEEDS_ARGS)

VARIANT_CORRUPT_OBJS := $(patsubst %.c,$(BUILD)/%.o,tests/c/variants/corrupt.c memlib.c)
.PHONY: variant-corrupt
variant-corrupt: $(BUILD)/variant-corrupt ## build the damaged-heap check of variants/$(VARIANT).c
	@echo $(BUILD)/variant-corrupt

$(BUILD)/variant-corrupt: $(VARIANT_CORRUPT_OBJS) $(ALLOC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# The full check the variants promise: every trace, the allocator's own heap checker after every
# op, at both alignments.  Slow (minutes per variant, the implicit lists most), so not part of
# `make test`, which runs the checker on each trace's first 2,000 ops instead.
CHECK_ALIGNMENTS ?= 16 8
CHECK_VARIANTS   ?= $(VARIANT_NAMES)
# Correctness, not thrift: the check gets the larger heap the trace tests use, so that running
# out of heap is never read as a checker failure (every variant fits the suite in 20 MiB since
# realloc-vectors and syn-array were trimmed, 821cfd8; docs/results.md).
CHECK_HEAP       ?= 64M
# Each setting checked before any build, in one line (as the Makefile checks VARIANT and the
# rest): a bad one had built all 24 configurations, then failed each.  Only for this target:
# the heap's check runs a shell.
ifneq ($(filter variants-checked,$(MAKECMDGOALS)),)
  shell_quote = '$(subst ','\'',$(1))'
  # -M's form (driver/options.c): digits, an optional K/M/G (any case) then B or iB, 1 byte to 4G
  CHECK_HEAP_OK := $(shell h=$(call shell_quote,$(CHECK_HEAP)); n=$${h%%[!0-9]*}; \
    case "$$n" in ("" | ???????????*) exit;; esac; \
    case "$$(printf %s "$$h" | sed 's/^[0-9]*//')" in (""|B|iB) m=0;; ([kK]|[kK]B|[kK]iB) m=10;; \
      ([mM]|[mM]B|[mM]iB) m=20;; ([gG]|[gG]B|[gG]iB) m=30;; (*) exit;; esac; \
    [ "$$n" -gt 0 ] && [ $$((n << m)) -le $$((4 << 30)) ] && echo ok)
  ifeq ($(strip $(CHECK_ALIGNMENTS)),)
    CHECK_ERROR := CHECK_ALIGNMENTS is empty: give 8, 16 or both
  else ifneq ($(filter-out 8 16,$(CHECK_ALIGNMENTS)),)
    CHECK_ERROR := CHECK_ALIGNMENTS=$(CHECK_ALIGNMENTS): each alignment is 8 or 16
  else ifeq ($(strip $(CHECK_VARIANTS)),)
    CHECK_ERROR := CHECK_VARIANTS is empty: name variants (variants: $(VARIANT_NAMES))
  else ifneq ($(filter-out $(VARIANT_NAMES),$(CHECK_VARIANTS)),)
    CHECK_ERROR := CHECK_VARIANTS=$(CHECK_VARIANTS): no variant $(filter-out $(VARIANT_NAMES),$(CHECK_VARIANTS)) (variants: $(VARIANT_NAMES))
  else ifneq ($(CHECK_HEAP_OK),ok)
    CHECK_ERROR := CHECK_HEAP=$(CHECK_HEAP): the maximum heap must be a size from 1 byte to 4G (e.g. 64M)
  endif
endif
.PHONY: variants-checked
# A bad setting goes through the Makefile's config-error target, which prints it in one line.
variants-checked: CONFIG_ERROR := $(CHECK_ERROR)
variants-checked: $(if $(CHECK_ERROR),config-error)
variants-checked: ## every variant on every trace with mm_checkheap after every op (slow); CHECK_VARIANTS=..., CHECK_ALIGNMENTS=..., CHECK_HEAP=64M
	@mkdir -p build; failed=0; \
	for a in $(CHECK_ALIGNMENTS); do for v in $(CHECK_VARIANTS); do \
	  out=$$($(MAKE) -s driver VARIANT=$$v ALIGNMENT=$$a) \
	    || { echo "make: variants-checked: the driver for $$v at $$a bytes does not build (its error above)" >&2; exit 2; }; \
	  d=$$(echo "$$out" | tail -1); \
	  log=build/checked-$$v-a$$a.log; start=$$(date +%s); \
	  if $$d -c -M $(CHECK_HEAP) -T 900 -t $(RESULTS_TRACES) > $$log 2>&1; then \
	    echo "ok      $$v at $$a bytes: every trace, checker after every op ($$(( $$(date +%s) - start )) s)"; \
	  else \
	    echo "FAILED  $$v at $$a bytes: see $$log"; failed=1; \
	  fi; \
	done; done; exit $$failed
