"""Fake mdriver for the grader's tests: speaks the real driver's CLI and JSON schema.

What it does is scripted by markers in the submission's mm.c (one folder up):
  FAKE:forge     echo a wrong secret          FAKE:nojson   write no result
  FAKE:badjson   write broken JSON            FAKE:hang     never finish
  FAKE:usage     exit 2 as on a usage error   FAKE:print    print fake score lines
  FAKE:fail=T    report trace T as crashed    FAKE:util=U   utilization U
Without markers every trace is ok with utilization 0.5 and throughput ratio 0.8.
"""
import json
import os
import re
import sys
import time

OUTCOMES = {"ok": "", "misaligned": "a payload address is not aligned",
            "crashed": "the allocator crashed (a signal killed the trace's process)"}


def main(argv):
    if "--describe" in argv:
        print(json.dumps({"outcomes": {k: {"explanation": v or "the trace ran correctly"} for k, v in OUTCOMES.items()}}))
        return 0
    traces = [argv[i + 1] for i, a in enumerate(argv) if a == "-f"]
    if "--parse-only" in argv:
        for path in traces:
            if "malformed" in open(path).read():
                print(f"mdriver: {path}:1: malformed on purpose", file=sys.stderr)
                return 2
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    source = open(os.path.join(here, "..", "mm.c"), encoding="utf-8").read()
    marks = dict(re.findall(r"FAKE:(\w+)(?:=([\w.-]+))?", source))
    json_fd = int(argv[argv.index("--json") + 1].split(":")[1])
    secret_fd = int(argv[argv.index("--secret-fd") + 1])
    if "usage" in marks:
        print("mdriver: usage error", file=sys.stderr)
        return 2
    if "print" in marks:
        print("correct:99\nperfidx:100\nPerf index = 100/100")
    if "hang" in marks:
        while True:
            time.sleep(1)
    secret = os.fdopen(secret_fd).readline().strip()
    if "forge" in marks:
        secret = "0" * len(secret)
    util = float(marks.get("util") or 0.5)
    rows = []
    for path in traces:
        name = os.path.basename(path).split(".")[0]
        outcome = "crashed" if marks.get("fail") == name else "ok"
        open(path).read()
        rows.append({"name": name, "path": path, "weight": 1, "ops": 4, "outcome": outcome,
                     "message": "" if outcome == "ok" else "SIGSEGV at op 2",
                     "op_index": None if outcome == "ok" else 2, "op": None if outcome == "ok" else "f 0",
                     "utilization": util, "ideal_utilization": 1.0, "peak_payload": 100,
                     "heap_high_water": 200,
                     "timing": {"seconds": 1e-6, "ops_per_sec": 4e6, "samples": [1e-6, 1.1e-6, 1.05e-6]},
                     "libc": {"seconds": 8e-7, "ops_per_sec": 5e6, "samples": [8e-7, 8e-7]},
                     "stats": None, "output": ""})
    valid = sum(r["outcome"] == "ok" for r in rows)
    result = {"schema": 1, "tool": "mdriver", "secret": secret,
              "allocator": {"name": "mm", "team": None, "has_checkheap": False, "has_stats": False},
              "settings": {"alignment": 16, "max_heap": 20971520, "time_limit": 60, "min_samples": 5,
                           "check_heap": False, "baseline": "measured"},
              "scoring": {"util_weight": 0.6, "throughput_cap": 1.0, "estimator": "fake"},
              "machine": {"hostname": "fake", "cpu": "fake", "date": "2026-01-01"},
              "traces": rows,
              "summary": {"traces": len(rows), "valid": valid, "failed": len(rows) - valid, "bad_traces": 0,
                          "utilization": util, "throughput_ops_per_sec": 4e6, "libc_ops_per_sec": 5e6,
                          "throughput_ratio": 0.8, "util_points": 60 * util, "throughput_points": 32,
                          "perf_index": 60 * util + 32}}
    with os.fdopen(json_fd, "w") as out:
        if "badjson" in marks:
            out.write("{")
        elif "nojson" not in marks:
            json.dump(result, out)
    return 0 if valid == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
