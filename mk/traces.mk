# traces.mk - the trace suite (traces/) and the trace tools (mmtrace/).
#
#   make traces          regenerate every generated trace from traces/recipe.toml, byte for
#                        byte, and the measured table in traces/README.md
#   make record-traces   record the suite's real-program traces again on this machine
#   make recorder        build the LD_PRELOAD recorder that `mmtrace record` uses
#   make bench-traces    parse, replay and stats rates on a generated 10M-op trace

RECORDER       := build/mmtrace/recorder.so
TRACES_RECIPE  := traces/recipe.toml
BENCH_VARIANT  ?= segregated-realloc

.PHONY: traces record-traces recorder bench-traces

recorder: $(RECORDER) ## build the LD_PRELOAD malloc recorder (build/mmtrace/recorder.so)

$(RECORDER): $(wildcard mmtrace/recorder/*.c mmtrace/recorder/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -o $@ $(filter %.c,$^) -lpthread -ldl

traces: venv ## regenerate traces/ from traces/recipe.toml byte for byte, and the table in traces/README.md
	$(PYTHON) -m mmtrace suite $(TRACES_RECIPE)
	$(PYTHON) -m mmtrace readme $(TRACES_RECIPE)

record-traces: venv recorder ## record the suite's real-program traces again (their bytes change)
	$(PYTHON) -m mmtrace suite --record --group recorded $(TRACES_RECIPE)
	$(PYTHON) -m mmtrace readme $(TRACES_RECIPE)

bench-traces: venv recorder ## driver parse and replay rates and `mmtrace stats` and `check` time on a 10M-op trace
	$(PYTHON) -m mmtrace.bench --variant $(BENCH_VARIANT)
