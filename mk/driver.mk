# mk/driver.mk - the driver's own benchmark.

.PHONY: bench-driver
bench-driver: venv ## driver overhead per op, correctness-pass rate, perf-index spread over 5 runs
	$(PYTHON) bench/driver/bench_driver.py
