# compare.mk - did a change help?  Two allocators side by side, on the suite and on held-out seeds.
#
#   make compare A=mm-old.c B=mm.c          two files (or variant names: A=segregated B=best)
#   COMPARE_ARGS="--seeds 8 --speed-runs 5"  more held-out seeds, more timed rounds
#   COMPARE_ARGS="--layouts 16 --speed-runs 0 --fast"   utilization by mmreplay (make replay), in-process:
#                                           mdriver's figures, faster; mdriver remains the judge
#
# Prints per-trace utilization changes, the suite's and the held-out traces' averages with a
# paired standard error, the throughput of alternating runs, and a verdict (tools/compare.py).

COMPARE_ARGS ?=
# A and B single-quoted for the shell, a quote in them too ("John's mm.c" had been a shell syntax error).
compare_quote = '$(subst ','\'',$(1))'
.PHONY: compare
compare: venv ## allocators A and B side by side: suite, held-out seeds, alternating timed runs; A=... B=... (files or variants)
	@test -n $(call compare_quote,$(A)) -a -n $(call compare_quote,$(B)) || { echo "make compare: name two allocators, e.g. make compare A=mm-old.c B=mm.c" >&2; exit 2; }
	@$(PYTHON) tools/compare.py $(COMPARE_ARGS) -- $(call compare_quote,$(A)) $(call compare_quote,$(B))
