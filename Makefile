# Makefile - build the driver around an allocator, run the kit, run its tests.
#
#   make                      build ./mdriver from mm.c (the student's allocator)
#   make VARIANT=segregated   build ./mdriver from variants/segregated.c
#   make ALIGNMENT=8          the classic 8-byte-aligned lab
#   make MM=path/to/file.c    build ./mdriver from any allocator file
#   make LAYOUT=3             the allocator's 4th placement layout (MM_LAYOUT; config.h)
#   make STATS=0              the variants' counters compiled out (no mm_stats: -V and JSON show none)
#   make replay VARIANT=best  build/best-a16/mmreplay: utilization only, fast, not a judge
#   make test                 install what the tests need and run them all
#   make help                 every target
#
# Each configuration (allocator, alignment, sanitizers) builds in its own folder
# under build/, so switching VARIANT never mixes objects; ./mdriver is a copy of
# the configuration built last.  The driver's objects are built once for all of them,
# in build/driver/ (see SHARED below): a configuration compiles only its allocator's own.

CC        ?= cc
ALIGNMENT ?= 16
VARIANT   ?=
SANITIZE  ?=
STATS     ?= 1
DEBUG     ?= 0
LAYOUT    ?= 0
# off: no seccomp filter in the trace's process, only to test the grader's own sandbox behind it
DRIVER_SECCOMP ?= on
# off: link an allocator with constructors or a C-library function of its own (the grader, whose
# rules check that under the course's policy)
ALLOC_CHECK ?= on

WARNINGS  := -Wall -Wextra -Wno-unused-parameter
CFLAGS    ?= -O2 -g
# The driver's shared objects get DRIVER_FLAGS, the allocator and the objects that see it KIT_FLAGS.
DRIVER_FLAGS := -std=gnu11 $(WARNINGS) -I. -Ivariants -MMD -MP -DMM_ALIGNMENT=$(ALIGNMENT)
# Bind every symbol at start-up and make the GOT read-only: with lazy binding an
# allocator could find the GOT and redirect the driver's calls (clock_gettime).
LDFLAGS   += -Wl,-z,relro,-z,now
ifneq ($(SANITIZE),)
  DRIVER_FLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS      += -fsanitize=address,undefined
endif
KIT_FLAGS := $(DRIVER_FLAGS) -DMM_STATS=$(STATS) -DMM_DEBUG=$(DEBUG) -DMM_LAYOUT=$(LAYOUT)

ifneq ($(MM),)
  ALLOC_SRC  := $(MM)
  ALLOC_NAME := $(basename $(notdir $(MM)))
else ifeq ($(VARIANT),)
  ALLOC_SRC  := mm.c
  ALLOC_NAME := mm
else
  ALLOC_SRC  := variants/$(VARIANT).c
  ALLOC_NAME := $(VARIANT)
endif

# The kit's variants, by name (variants/NAME.c): messages list them, mk/*.mk build and check them.
VARIANT_NAMES := $(sort $(basename $(notdir $(wildcard variants/*.c))))

# A bad ALIGNMENT or a missing allocator stops a build with one line before any compiler runs
# (the compiler's errors, or make's 'No rule to make target', would not say what is wrong).
# $(call setting_error,MESSAGE): that line.  For a goal that builds ./mdriver it also removes the
# old one, as a failed build does: run after `make MM=mine.c` had stopped on a missing file, it
# scored the file it was built from as the one asked for (not in a dry run, which changes nothing).
MAKES_MDRIVER := $(if $(findstring n,$(firstword -$(MAKEFLAGS))),,$(filter all mdriver,$(or $(MAKECMDGOALS),all)))
setting_error = $(error $(1)$(if $(and $(MAKES_MDRIVER),$(wildcard mdriver)),$(shell rm -f mdriver); removed \
	./mdriver: the old one would score the file it was built from))
ifneq ($(filter-out 0 1,$(words $(ALIGNMENT))),)
  $(call setting_error,ALIGNMENT='$(ALIGNMENT)': the alignment must be 8 or 16)
endif
ifneq ($(filter-out 0 1,$(words $(MM))),)
  $(call setting_error,MM='$(MM)': make cannot build a path with spaces; copy the file to one without)
endif
# A variant's name goes into rules, folder names and shell commands, so one holding anything but
# letters, digits and - _ . + (a space, ':', ';', '*', a quote) broke them with make's or the shell's
# words, or named other files; '/' is left to the check below.  $(call chars_left,S,CHARS): S less
# every one of CHARS.
chars_left = $(if $(2),$(call chars_left,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
NAME_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y \
              Z 0 1 2 3 4 5 6 7 8 9 - _ . + /
ifneq ($(call chars_left,$(VARIANT),$(NAME_CHARS)),)
  $(call setting_error,VARIANT='$(VARIANT)': a variant is a name (variants: $(VARIANT_NAMES)))
endif
# An allocator's path goes there too: one holding ':', ';', '$', a quote, '*', ... gave make's
# "target pattern contains no '%'" or "missing separator", a shell's error, or (a '$', expanded
# by make) "no allocator" naming another file, and left the old ./mdriver in place.  Its
# unexpanded text (value) is judged, so that a '$' is seen.
COMMA := ,
HASH := \#
MM_CHARS := $(NAME_CHARS) ~ @ = $(HASH) $(COMMA)
ifneq ($(call chars_left,$(value MM),$(MM_CHARS)),)
  $(call setting_error,MM='$(value MM)': make cannot build a path with characters other than letters$(COMMA) digits and - _ . + / ~ @ = $(COMMA) $(HASH); copy the file to such a name)
endif
# -fsanitize=address (thread, leak) in CFLAGS: the build said "mm.c has a constructor", which it did not.
SANITIZER_CFLAGS := $(filter -fsanitize=%,$(CFLAGS))
ifneq ($(and $(MM),$(VARIANT)),)
  CONFIG_ERROR := MM=$(MM) and VARIANT=$(VARIANT): give one (MM builds that file, VARIANT variants/$(VARIANT).c)
else ifneq ($(filter-out 8 16,$(ALIGNMENT))$(filter-out 1,$(words $(ALIGNMENT))),)
  CONFIG_ERROR := ALIGNMENT=$(ALIGNMENT): the alignment must be 8 or 16
else ifneq ($(filter-out on off,$(DRIVER_SECCOMP))$(filter-out 1,$(words $(DRIVER_SECCOMP))),)
  CONFIG_ERROR := DRIVER_SECCOMP=$(DRIVER_SECCOMP): the driver's seccomp filter is on or off
else ifneq ($(filter-out on off,$(ALLOC_CHECK))$(filter-out 1,$(words $(ALLOC_CHECK))),)
  CONFIG_ERROR := ALLOC_CHECK=$(ALLOC_CHECK): the allocator's object is checked (on) or not (off)
else ifneq ($(filter-out 1,$(SANITIZE))$(filter-out 0 1,$(words $(SANITIZE))),)
  CONFIG_ERROR := SANITIZE=$(SANITIZE): 1 builds with the sanitizers, empty without
else ifneq ($(and $(if $(SANITIZE),,1),$(findstring address,$(SANITIZER_CFLAGS))$(findstring thread,$(SANITIZER_CFLAGS))$(findstring leak,$(SANITIZER_CFLAGS))),)
  CONFIG_ERROR := CFLAGS holds $(SANITIZER_CFLAGS): build with make SANITIZE=1 for the sanitizers (in CFLAGS alone they give the allocator a constructor and memory maps, which the driver refuses)
else ifneq ($(filter-out 0 1,$(STATS))$(filter-out 1,$(words $(STATS))),)
  CONFIG_ERROR := STATS=$(STATS): the statistics are compiled in (1) or out (0)
else ifneq ($(filter-out 0 1,$(DEBUG))$(filter-out 1,$(words $(DEBUG))),)
  CONFIG_ERROR := DEBUG=$(DEBUG): MM_DEBUG is 0 or 1
else ifneq ($(filter-out 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15,$(LAYOUT))$(filter-out 1,$(words $(LAYOUT))),)
  CONFIG_ERROR := LAYOUT=$(LAYOUT): the placement layout is a number from 0 to 15
else ifneq ($(findstring /,$(VARIANT)),)
  CONFIG_ERROR := VARIANT=$(VARIANT): a variant is a name (variants: $(VARIANT_NAMES))
else ifneq ($(wildcard $(ALLOC_SRC)/.),)
  CONFIG_ERROR := $(ALLOC_SRC) is a folder: the allocator is one .c file
else ifeq ($(filter %.c,$(ALLOC_SRC)),)
  CONFIG_ERROR := $(ALLOC_SRC): the allocator is a .c file
else ifeq ($(wildcard $(ALLOC_SRC)),)
  CONFIG_ERROR := no allocator $(ALLOC_SRC) (variants: $(VARIANT_NAMES))
else ifeq ($(strip $(CC)),)
  CONFIG_ERROR := CC is empty: it names the C compiler (cc by default)
# A missing compiler failed the first compile with the shell's "not found", and the build then
# said "removed ./mdriver: mm.c did not build", blaming the allocator.
else ifeq ($(shell command -v '$(subst ','\'',$(firstword $(CC)))' 2>/dev/null),)
  CONFIG_ERROR := CC=$(CC): no compiler $(firstword $(CC)) (not found as a command)
endif
# What the allocator's object depends on: its source, or the one-line complaint.
ALLOC_DEP := $(if $(CONFIG_ERROR),config-error,$(ALLOC_SRC))

# A compiler or CFLAGS other than the default's get folders of their own, named by a checksum of
# the two: `make CFLAGS='-O0 -g'` after `make` had relinked the -O2 objects, since no object
# depends on the flags, and shared objects would have mixed the two builds in one driver.
COMPILER    := $(strip $(CC) $(CFLAGS))
ifneq ($(COMPILER),cc -O2 -g)
  COMPILER_TAG := -c$(shell printf %s '$(subst ','\'',$(COMPILER))' | cksum | cut -d' ' -f1)
endif
BUILD       := build/$(ALLOC_NAME)-a$(ALIGNMENT)$(if $(SANITIZE),-san)$(if $(filter 0,$(STATS)),-nostats)$(if $(filter-out 0,$(DEBUG)),-debug)$(if $(filter-out 0,$(LAYOUT)),-l$(LAYOUT))$(if $(filter off,$(DRIVER_SECCOMP)),-noseccomp)$(COMPILER_TAG)
# The driver's objects are built once per alignment, sanitizer and seccomp setting (driver/sandbox.c)
# in SHARED, for every allocator.  Those that call the allocator's hooks (the sources that include
# hooks.h or mm.h) see of it only the forms of its hooks, which the build detects (HOOK_FLAGS,
# below): they are built once per set of forms, in a folder of SHARED named after it
# (hooks-default, hooks-init-bool-checkheap-void, ...), and the hooks are resolved at the link.
# BUILD holds only what is this allocator's: its object, driver/allocator.c (its file's name)
# and the marks around it, so that a small allocator's driver builds in 0.44 s of CPU, not 1.9 s
# (README.md has the figures).  (MM_STATS, MM_DEBUG and MM_LAYOUT reach no driver source:
# tests/test_build_shared.py checks all this with the preprocessor.)
SHARED      := build/driver/a$(ALIGNMENT)$(if $(SANITIZE),-san)$(if $(filter off,$(DRIVER_SECCOMP)),-noseccomp)$(COMPILER_TAG)
# The folder must be known before make names the objects: for the goals that link the driver,
# HOOKS_MK, which names it (HOOK_TAG), is a makefile that make remakes (probing the allocator)
# and then reads again.  Other goals skip the probe; one that needs the folder all the same
# stops at hooks-unknown/, below.
# A dry run (make -n) would still remake it, since make remakes its makefiles even then, and so
# probe and write build/: it reads the one the last build left, as it is, and says so.
HOOKS_MK    := $(BUILD)/hooks.mk
HOOK_GOALS  := all mdriver mdriver-build driver replay build/%
DRY_RUN     := $(findstring n,$(firstword -$(MAKEFLAGS)))
ifneq ($(and $(if $(CONFIG_ERROR),,1),$(filter $(HOOK_GOALS),$(or $(MAKECMDGOALS),all))),)
ifeq ($(DRY_RUN),)
include $(HOOKS_MK)
else
-include $(HOOKS_MK)
$(info make: dry run: the allocator's hooks are not probed (that writes build/): $(if $(HOOK_TAG),the commands are for the forms the last build found (hooks-$(HOOK_TAG)),no build has probed them: the commands put the objects that call them in hooks-unknown/))
endif
endif
HOOKED      := $(SHARED)/hooks-$(or $(HOOK_TAG),unknown)
HOOK_SEEN   := $(shell grep -ls '^\#include "\(driver/hooks\|mm\)\.h"' mdriver.c mmreplay.c memlib.c driver/*.c)
driver_objs  = $(foreach s,$(1),$(if $(filter driver/allocator.c,$(s)),$(BUILD),$(if $(filter $(HOOK_SEEN),$(s)),$(HOOKED),$(SHARED)))/$(s:.c=.o))
# driver/replay.c is mmreplay's alone; every other driver/ file is mdriver's.
DRIVER_SRCS := mdriver.c memlib.c $(filter-out driver/replay.c,$(wildcard driver/*.c))
DRIVER_OBJS := $(call driver_objs,$(DRIVER_SRCS))
# mmreplay: the allocator called in-process, with the driver's own parser, checks of a
# new block, utilization, average and JSON, and none of its child, sandbox or timing code.
REPLAY_SRCS := mmreplay.c memlib.c $(addprefix driver/,allocator.c replay.c run.c trace.c pages.c utilization.c \
               outcome.c ledger.c blocktree.c options.c output.c score.c json.c result.c shown.c interrupt.c team.c \
               tracename.c)
REPLAY_OBJS := $(call driver_objs,$(REPLAY_SRCS))
ALLOC_OBJ   := $(BUILD)/alloc.o
# Linked around the allocator's object: they mark its writable data (driver/audit.h).
MARK_FIRST  := $(BUILD)/driver/mark/first.o
MARK_LAST   := $(BUILD)/driver/mark/last.o
# The allocator's object is linked into the driver's own process: one with constructors, or
# defining a C-library function the driver calls (clock_gettime), is refused in one line
# (tools/alloc_check.sh) unless ALLOC_CHECK=off, or in a sanitizer build, whose objects have
# the sanitizers' own constructors.  So is one missing one of mm.h's calls, or defining one of
# the driver's global names (main, mem_sbrk), before the link.
ALLOC_CHECKED := $(if $(and $(filter on,$(ALLOC_CHECK)),$(if $(SANITIZE),,1)),$(BUILD)/alloc.checked)

.PHONY: all mdriver-build driver replay clean help test test-deps venv FORCE config-error
.DEFAULT_GOAL := all

all: mdriver ## build ./mdriver from mm.c, or from variants/$(VARIANT).c

driver: $(BUILD)/mdriver ## build build/<config>/mdriver without touching ./mdriver (used by tests)
	@echo $(BUILD)/mdriver

# ./mdriver is built by a make of its own, so that a build that fails on the allocator (compile,
# link, the object's check) removes the old one: run after the failed make, it scored the file
# it was built from as this one, without a word.
mdriver: FORCE | $(if $(CONFIG_ERROR),config-error)
	@$(MAKE) --no-print-directory mdriver-build || { if [ -e $@ ]; then rm -f $@; echo "make: removed \
	./mdriver: the driver for $(ALLOC_SRC) did not build; the old one would score the file it was built from" >&2; fi; exit 1; }
	@cmp -s $(BUILD)/mdriver $@ || { cp $(BUILD)/mdriver $@ && echo "mdriver: built from $(ALLOC_SRC), $(ALIGNMENT)-byte alignment"; }

# (a recipe of its own, so that an up-to-date build says nothing)
mdriver-build: $(BUILD)/mdriver
	@:

$(BUILD)/mdriver: $(BUILD)/mdriver.r.o $(MARK_FIRST) $(ALLOC_OBJ) $(MARK_LAST) | $(ALLOC_CHECKED)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# The driver's own globals (heap_lo, progress, ...) are not the allocator's business: its objects
# are linked into one in which every name but main and memlib.h's functions is made local, so an
# allocator's global of the same name is simply its own.  __assert_fail stays global too: mm.c's
# asserts must call the driver's (driver/assert.c), not glibc's, which the sandbox refuses.
PAREN := (
KEEP_GLOBAL := main __assert_fail $(shell sed -n 's/^[a-z].*[ *]\(mem_[a-z_]*\)$(PAREN).*/\1/p' memlib.h)
$(BUILD)/mdriver.r.o $(BUILD)/mmreplay.r.o: Makefile memlib.h
	$(CC) $(CFLAGS) -r -nostdlib -o $@.tmp $(filter %.o,$^)
	objcopy $(addprefix -G ,$(KEEP_GLOBAL)) $@.tmp $@
	@rm -f $@.tmp
$(BUILD)/mdriver.r.o: $(DRIVER_OBJS)

replay: $(BUILD)/mmreplay ## build build/<config>/mmreplay: utilization only, in-process, fast; not a judge (path on the last line)
	@echo $(BUILD)/mmreplay

$(BUILD)/mmreplay: $(BUILD)/mmreplay.r.o $(ALLOC_OBJ) | $(ALLOC_CHECKED)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm
$(BUILD)/mmreplay.r.o: $(REPLAY_OBJS)

$(ALLOC_CHECKED): $(ALLOC_OBJ) $(BUILD)/mdriver.r.o $(MARK_FIRST) $(MARK_LAST) tools/alloc_check.sh
	@sh tools/alloc_check.sh $(ALLOC_SRC) $(filter %.o,$^)
	@touch $@

ALLOC_STAMP := $(BUILD)/alloc.src
# The 2016 64-bit lab's handout names its functions malloc, free, ... and renames them
# mm_malloc, ... when DRIVER is defined, as its own Makefile did for its driver.
ALLOC_FLAGS := -DDRIVER
# Which forms of the hooks does the allocator define?  mm_checkheap: the kit's `bool
# mm_checkheap(int)`, or the classic handout's `void mm_checkheap(int)` or `int
# mm_checkheap(int)` (then a declaration of that return type compiles against the allocator's
# source and the source names it; the declaration leaves the parameters open, so that a
# `void mm_checkheap(void)` is the void form, not the bool form with its return register read).  mm_init: the kit's `int mm_init(void)`, or the 2016
# lab's `bool mm_init(void)` (then the source compiles with mm.h declaring that form).
# HOOK_PROBED dates the probe: HOOK_FLAGS is rewritten only when the forms change (its
# dependents then rebuild), so its date cannot say the probe is done, and an allocator edited
# once would be probed again by every make after.
HOOK_FLAGS := $(BUILD)/hooks.flags
HOOK_PROBED := $(BUILD)/hooks.probed
$(HOOK_FLAGS): $(HOOK_PROBED) ;
$(HOOK_PROBED): $(ALLOC_DEP) $(ALLOC_STAMP) $(if $(wildcard $(HOOK_FLAGS)),,FORCE)
	@mkdir -p $(dir $@)
	@compiles() { printf '#include <stdbool.h>\n%s\n#include "%s"\n' "$$2" "$(abspath $(ALLOC_SRC))" \
	    | $(CC) $(CFLAGS) $(filter-out -MMD -MP,$(KIT_FLAGS)) $(ALLOC_FLAGS) $$1 -fsyntax-only -x c - >/dev/null 2>&1; }; \
	: > $(HOOK_FLAGS).new; \
	if grep -q 'bool[[:space:]]*mm_init' $(ALLOC_SRC) && compiles -DMM_INIT_BOOL; then \
	    init=-DMM_INIT_BOOL; echo $$init >> $(HOOK_FLAGS).new; fi; \
	if ! grep -q mm_checkheap $(ALLOC_SRC); then :; \
	elif compiles "$$init" 'void mm_checkheap();'; then echo -DMDRIVER_CHECKHEAP_VOID >> $(HOOK_FLAGS).new; \
	elif compiles "$$init" 'int mm_checkheap();'; then echo -DMDRIVER_CHECKHEAP_INT >> $(HOOK_FLAGS).new; fi; \
	cmp -s $(HOOK_FLAGS).new $(HOOK_FLAGS) && rm $(HOOK_FLAGS).new || mv $(HOOK_FLAGS).new $(HOOK_FLAGS); \
	touch $@
# The shared folder's name for those forms: -DMM_INIT_BOOL -DMDRIVER_CHECKHEAP_VOID is
# init-bool-checkheap-void, none default.  Rewritten only when it changes, so that an edit of
# the allocator restarts no make.
ifeq ($(DRY_RUN),)
$(HOOKS_MK): $(HOOK_FLAGS)
	@tag=$$(tr A-Z_ a-z- < $< | sed 's/^-dmm-//; s/^-dmdriver-//' | paste -sd- -); \
	echo "HOOK_TAG := $${tag:-default}" > $@.new; \
	cmp -s $@.new $@ && rm $@.new || mv $@.new $@
endif

# The folder is named after the allocator file's basename, so two files of one
# name (MM=alice/mm.c, then MM=bob/mm.c) share it: this stamp records which file
# built it, so that changing files rebuilds instead of reusing the other's object.
$(ALLOC_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(ALLOC_SRC)' > $@.new; cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(BUILD)/%.o: %.c $(HOOK_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KIT_FLAGS) $$(cat $(HOOK_FLAGS)) -c -o $@ $<

# Another make may be building another configuration that reads these: each is written
# under a name of its own and renamed, so that no link reads half an object.  A bad setting
# stops the build before the first of them, as before the allocator's.
compile_shared = $(CC) $(CFLAGS) $(DRIVER_FLAGS) $(1) -MF $(@:.o=.d).$$$$ -MT $@ -c -o $@.$$$$ $< \
	    && mv -f $(@:.o=.d).$$$$ $(@:.o=.d) && mv -f $@.$$$$ $@ || { rm -f $@.$$$$ $(@:.o=.d).$$$$; exit 1; }
$(SHARED)/%.o: %.c | $(if $(CONFIG_ERROR),config-error)
	@mkdir -p $(dir $@)
	$(call compile_shared)
ifneq ($(HOOK_TAG)$(DRY_RUN),)
$(HOOKED)/%.o: %.c | $(if $(CONFIG_ERROR),config-error)
	@mkdir -p $(dir $@)
	$(call compile_shared,$$(cat $(HOOK_FLAGS)))
else
$(HOOKED)/%.o: %.c | $(if $(CONFIG_ERROR),config-error)
	@echo "make: $@: goals '$(MAKECMDGOALS)' link the driver without probing the allocator's hooks (add them to HOOK_GOALS)" >&2; exit 2
endif

# The driver learns which allocator it carries and where the kit lives.
$(BUILD)/driver/allocator.o: KIT_FLAGS += -DMDRIVER_ALLOCATOR='"$(ALLOC_SRC)"'
$(BUILD)/driver/allocator.o: $(ALLOC_STAMP)
$(SHARED)/driver/options.o: DRIVER_FLAGS += -DMDRIVER_KIT_DIR='"$(CURDIR)"'
$(SHARED)/driver/sandbox.o: DRIVER_FLAGS += $(if $(filter off,$(DRIVER_SECCOMP)),-DMDRIVER_SECCOMP_OFF)
# rbp an ordinary register in the serving loop, which zeroes it after each call (driver/scrub.h)
$(HOOKED)/driver/serve.o: DRIVER_FLAGS += -fomit-frame-pointer

$(ALLOC_OBJ): $(ALLOC_DEP) $(ALLOC_STAMP) $(HOOK_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KIT_FLAGS) $(ALLOC_FLAGS) $$(cat $(HOOK_FLAGS)) -c -o $@ $<

# The allocator's dependencies are those of the file named in the stamp; for
# another file they may name one that is gone (alice/mm.c deleted, then
# MM=bob/mm.c), and the stamp's change rebuilds the object anyway.
-include $(sort $(DRIVER_OBJS:.o=.d) $(REPLAY_OBJS:.o=.d))
ifeq ($(shell cat $(ALLOC_STAMP) 2>/dev/null),$(ALLOC_SRC))
-include $(ALLOC_OBJ:.o=.d)
endif

# ---------------------------------------------------------------- Python side
VENV        := .venv
PYTHON      := $(VENV)/bin/python
# Debian packages the tests need; the mk/ fragments add theirs.
APT_TEST_PACKAGES :=

venv: $(VENV)/.installed ## create .venv with the kit's Python packages (pinned in pyproject.toml)

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	@touch $@

test-deps: ## install the Debian packages the tests use (needs root and apt-get)
	@missing=""; for p in $(APT_TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "make: the tests want these Debian packages:$$missing (not root: the tests that need them will say so)"; fi; \
	fi

# Three workers on two cores: many tests wait on a child, a time limit or a signal, and a
# third worker fills those waits; worksteal hands a worker that runs dry the other's queue, so
# no long test waits alone at the end.  The tests share build/ under a file lock, and every
# figure they check is a ratio or a count, not a time, so a neighbour's load changes no verdict.
PYTEST_ARGS ?= -n 3 --dist worksteal
test: venv test-deps ## install what the tests need and run every test (PYTEST_ARGS= for one worker)
	$(PYTHON) -m pytest $(PYTEST_ARGS) tests

# A bad setting stops the first target that needs it in one line: $(error) as make expands this
# recipe.  A recipe that failed added make's own "make: *** [Makefile:N: config-error] Error 2".
config-error:
	$(call setting_error,$(CONFIG_ERROR))

clean: ## remove build products (not the venv)
	rm -rf build mdriver

help: ## list every target
	@grep -hE '^[a-zA-Z0-9_%-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([^:]+):.*## (.*)/  \1\t\2/' | expand -t 22

# Each fragment owns one part of the kit (variants and results, traces, grader, benchmarks).
-include $(sort $(wildcard mk/*.mk))
