# bench.mk - a variant as the process malloc (the shim) and the benchmark studies.
#
#   make shim VARIANT=best      build/libmm-best.so: LD_PRELOAD it into any program
#   make shim MM=path/a.c       build/a-shim/libmm-a.so, from that file
#   make bench-sizes            malloc/calloc+free time from 2 B to 1 GiB     -> docs/bench-sizes.md
#   make bench-threads          threadtest at 1, 2, 4, 8 threads              -> docs/bench-threads.md
#   make bench-stress           traces/fit-stress.rep replayed for real       -> docs/bench-stress.md
#   make bench-align            pipe-write throughput by buffer alignment     -> docs/bench-align.md
#   make bench-programs         python, sort, gcc under each allocator        -> docs/bench-programs.md
#   make bench                  all five, then docs/bench-summary.md (the kit's targets checked)
#   BENCH_ARGS=--quick          short runs (fewer repetitions and sizes) for development
#   BENCH_ARGS=--only best,...  which allocators (the studies refuse MM= and VARIANT=)
#
# Allocators: glibc, jemalloc, tcmalloc, mimalloc (Debian packages installed here
# when root; a missing one is reported and skipped) and one shim per variants/*.c
# that builds (one that does not is reported and skipped).

SHIM_CFLAGS := -std=gnu11 $(WARNINGS) -O2 -g -fPIC -fvisibility=hidden -I. -Ivariants -Ishim \
               -DMM_ALIGNMENT=16 -DMM_STATS=1 -DMM_DEBUG=0
SHIM_SRCS   := $(wildcard shim/*.c)
SHIM_DEPS   := $(SHIM_SRCS) $(wildcard shim/*.h) $(wildcard variants/*.h) mm.h memlib.h config.h mm_stats.h
SHIM_ALL    := $(VARIANT_NAMES)

BENCH_BIN   := build/bench
BENCH_PROGS := $(patsubst bench/c/%.c,$(BENCH_BIN)/%,$(wildcard bench/c/*.c)) $(BENCH_BIN)/witness.so
BENCH_ALLOC_PACKAGES := libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0
BENCH_ARGS  ?=

.PHONY: shim shims bench-progs bench-deps bench bench-sizes bench-threads bench-stress bench-align bench-programs

# MM=FILE builds FILE itself, in a folder of its own: build/libmm-<name>.so is a variant's
# (or mm.c's), and a file that merely shares the name must never be handed that library.
# Like the driver's build folders, a stamp records which file built it.
SHIM_MM_DIR := build/$(ALLOC_NAME)-shim
SHIM_LIB    := $(if $(MM),$(SHIM_MM_DIR),build)/libmm-$(ALLOC_NAME).so

shim: | $(if $(CONFIG_ERROR),config-error)
shim: ## build build/libmm-$(VARIANT).so, the variant as a preloadable malloc (MM=FILE: build/<name>-shim/; path on the last line)
	@$(MAKE) -s --no-print-directory $(SHIM_LIB)
	@echo $(SHIM_LIB)

ifneq ($(MM),)
$(SHIM_MM_DIR)/alloc.src: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ALLOC_SRC)' > $@.new; cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(SHIM_MM_DIR)/libmm-$(ALLOC_NAME).so: $(ALLOC_DEP) $(SHIM_MM_DIR)/alloc.src $(SHIM_DEPS)
	$(CC) $(SHIM_CFLAGS) -DMMSHIM_VARIANT='"$(ALLOC_NAME)"' -shared -o $@ $(ALLOC_SRC) $(SHIM_SRCS) -lpthread
endif

build/libmm-mm.so: mm.c $(SHIM_DEPS)
	@mkdir -p build
	$(CC) $(SHIM_CFLAGS) -DMMSHIM_VARIANT='"mm"' -shared -o $@ mm.c $(SHIM_SRCS) -lpthread

build/libmm-%.so: variants/%.c $(SHIM_DEPS)
	@mkdir -p build
	$(CC) $(SHIM_CFLAGS) -DMMSHIM_VARIANT='"$*"' -shared -o $@ $< $(SHIM_SRCS) -lpthread

shims: ## build a shim for every variant; one that fails is reported and skipped
	@mkdir -p build; for v in $(SHIM_ALL); do \
	  $(MAKE) -s --no-print-directory build/libmm-$$v.so >/dev/null 2>build/.shim-$$v.log \
	    || { rm -f build/libmm-$$v.so; echo "bench: the shim for $$v does not build (build/.shim-$$v.log): skipped" >&2; }; \
	done

bench-progs: $(BENCH_PROGS) ## build the benchmark programs (build/bench/)

$(BENCH_BIN)/%: bench/c/%.c
	@mkdir -p $(BENCH_BIN)
	$(CC) -std=gnu11 $(WARNINGS) -O2 -g -pthread -o $@ $< -lm

# preloaded after the allocator in every run: which file serves malloc (bench/measure.py checks)
$(BENCH_BIN)/witness.so: bench/c/preload/witness.c
	@mkdir -p $(BENCH_BIN)
	$(CC) -std=gnu11 $(WARNINGS) -O2 -g -fPIC -shared -o $@ $< -ldl

# replay reads a trace with the driver's own parser, as mmreplay does: the traces
# mdriver accepts, and its one-line message for the ones it refuses.
BENCH_TRACE_SRCS := driver/trace.c driver/tracename.c driver/pages.c driver/shown.c driver/interrupt.c
$(BENCH_BIN)/replay: bench/c/replay.c $(BENCH_TRACE_SRCS) driver/trace.h driver/pages.h driver/heap.h driver/shown.h \
                     driver/interrupt.h driver/tracename.h
	@mkdir -p $(BENCH_BIN)
	$(CC) -std=gnu11 $(WARNINGS) -O2 -g -I. -o $@ bench/c/replay.c $(BENCH_TRACE_SRCS) -lm

bench-deps: ## install the optional allocators (jemalloc, tcmalloc, mimalloc); missing ones are skipped later
	@missing=""; for p in $(BENCH_ALLOC_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq >/dev/null 2>&1 || echo "bench: apt-get update failed" >&2; \
	    for p in $$missing; do DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p >/dev/null 2>&1 \
	      || echo "bench: could not install $$p: that allocator is skipped" >&2; done; \
	  else echo "bench: not root, not installing$$missing: those allocators are skipped" >&2; fi; \
	fi

BENCH_RUN := $(PYTHON) -m bench
BENCH_PRE := bench-no-mm venv bench-deps shims bench-progs

# The studies measure every variant's shim (BENCH_ARGS=--only chooses): an MM= or VARIANT=
# would be ignored, and the page would not hold the allocator the user named.
.PHONY: bench-no-mm
bench-no-mm:
	@$(if $(MM)$(VARIANT),$(error the bench studies take no MM= or VARIANT=: they run every variant's shim (BENCH_ARGS='--only NAME' to choose; make shim MM=FILE builds one to preload)))

bench-sizes: $(BENCH_PRE) ## time malloc+free and calloc+free from 2 B to 1 GiB per allocator -> docs/bench-sizes.md
	$(BENCH_RUN) sizes --out docs $(BENCH_ARGS)

bench-threads: $(BENCH_PRE) ## threadtest at 1, 2, 4, 8 threads: time and heap per allocator -> docs/bench-threads.md
	$(BENCH_RUN) threads --out docs $(BENCH_ARGS)

bench-stress: $(BENCH_PRE) ## the fit-stress trace run for real, glibc and the four fit policies -> docs/bench-stress.md
	$(BENCH_RUN) stress --out docs $(BENCH_ARGS)

bench-align: $(BENCH_PRE) ## pipe-write throughput of malloc'd vs page-aligned buffers -> docs/bench-align.md
	$(BENCH_RUN) align --out docs $(BENCH_ARGS)

bench-programs: $(BENCH_PRE) ## python, sort and gcc under each allocator: wall time, peak RSS -> docs/bench-programs.md
	$(BENCH_RUN) programs --out docs $(BENCH_ARGS)

bench: bench-sizes bench-threads bench-stress bench-align bench-programs ## run every benchmark study, then write docs/bench-summary.md
	$(BENCH_RUN) summary --out docs
