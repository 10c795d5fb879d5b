# grader.mk - the class grader (grader/, mmgrade): its test packages and benchmark.
#
#   make bench-grader                     grade 100 generated submissions, print the cost
#   make bench-grader BENCH_GRADER_ARGS="--count 20 --pin"

# The grader's sandbox (bubblewrap) and the report's browser check (chromium).
APT_TEST_PACKAGES += bubblewrap chromium

BENCH_GRADER_ARGS ?=
.PHONY: bench-grader
bench-grader: venv test-deps ## grade 100 generated submissions (copies of the variants), print wall time and per-submission cost
	$(PYTHON) -m grader.bench $(BENCH_GRADER_ARGS)
