"""Fake mdriver for the grader's tests: speaks the real driver's CLI and JSON schema.

What it does is scripted by markers in the submission's mm.c (one folder up):
  FAKE:forge     echo a wrong secret          FAKE:nojson   write no result
  FAKE:badjson   write broken JSON            FAKE:hang     never finish
  FAKE:usage     exit 2 as on a usage error   FAKE:print    print fake score lines
  FAKE:fail=T    report trace T as crashed    FAKE:util=U   utilization U
  FAKE:bad=T     report trace T as bad_trace, as an allocator that rewrote a failing trace's outcome
  FAKE:ideal=I   ideal utilization I          FAKE:mmsec=S  the allocator's time S per trace (0, inf, nan)
  FAKE:sumutil=U a summary utilization U that disagrees with the traces
  FAKE:same      report every trace under the first one's name, as if argv had been rewritten
  FAKE:drop      leave the last trace out      FAKE:twice    report the first trace twice
  FAKE:extra     report a trace it was not given
  FAKE:peak=P, FAKE:ops=N, FAKE:weight=W, FAKE:high=H   the first trace's peak payload (with a heap
                 high-water that keeps its utilization peak / high-water), op count, weight or heap
                 high-water (its utilization left as it was) forged
  FAKE:stop=S    after S seconds, report the first trace only, as a driver that stopped itself at its
                 --run-limit (SIGALRM) during the second
  FAKE:jitter    the allocator's time per trace drawn anew each run (1 to 1.5 us), as on a busy host
  FAKE:utiljitter  utilization drawn anew each run (0.4 to 0.6), as from a nondeterministic allocator
  FAKE:span=S    print "span START END" (CLOCK_MONOTONIC, ns), END taken S seconds after START: when
                 the run was on, for tests/test_grader_timinglock.py
  (both unseeded on purpose, each run a new draw: tests/test_grader_runs.py asserts only what holds for any)
Without markers every trace is ok with utilization 0.5 and throughput ratio 0.8, its weight, op count
and peak payload read from the trace as the real driver reads them, and the summary follows from the
traces as the real driver's score.c computes it.
"""
import json
import os
import random
import re
import sys
import time

OUTCOMES = {"ok": "", "misaligned": "a payload address is not aligned",
            "crashed": "the allocator crashed (a signal killed the trace's process)"}


def trace_figures(path, align=16):
    """(weight, ops, peak payload, peak of the ALIGN-aligned payload) of a plain trace file, as the
    real driver reads them."""
    words = [w for line in open(path) for w in line.split("#")[0].split()]
    header, body = [int(w) for w in words[:4]], words[4:]
    weight = header[0] if header[0] <= 3 else header[3]
    live, now, now_aligned, peak, peak_aligned, ops = {}, 0, 0, 0, 0, 0
    while body:
        kind, ident = body[0], body[1]
        size = 0 if kind == "f" else int(body[2])
        body = body[2 if kind == "f" else 3:]
        old = live.get(ident, 0)
        now += size - old
        now_aligned += -(-size // align) * align - -(-old // align) * align
        live[ident] = size
        peak, peak_aligned, ops = max(peak, now), max(peak_aligned, now_aligned), ops + 1
    return weight, ops, peak, peak_aligned


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
    if "span" in marks:
        start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        time.sleep(float(marks["span"]))
        print(f"span {start} {time.clock_gettime_ns(time.CLOCK_MONOTONIC)}", flush=True)
    if "hang" in marks:
        while True:
            time.sleep(1)
    if "stop" in marks:
        time.sleep(float(marks["stop"]))
    secret = os.fdopen(secret_fd).readline().strip()
    if "forge" in marks:
        secret = "0" * len(secret)
    util = random.uniform(0.4, 0.6) if "utiljitter" in marks else float(marks.get("util") or 0.5)
    sane = 0 <= util <= 1
    mm_sec = random.uniform(1e-6, 1.5e-6) if "jitter" in marks else float(marks.get("mmsec") or 1e-6)
    rows = []
    given = traces[:1] * len(traces) if "same" in marks else traces
    if "drop" in marks:
        given = given[:-1]
    if "twice" in marks:
        given = given[:1] + given
    if "stop" in marks:
        given = given[:1]
    for i, path in enumerate(given):
        name = os.path.basename(path).split(".")[0]
        outcome = "crashed" if marks.get("fail") == name else "bad_trace" if marks.get("bad") == name else "ok"
        weight, ops, peak, peak_aligned = trace_figures(path)
        ideal = float(marks.get("ideal") or peak / peak_aligned)
        first = {k: int(marks[k]) for k in ("peak", "ops", "weight", "high") if marks.get(k) and i == 0}
        weight, ops, peak = first.get("weight", weight), first.get("ops", ops), first.get("peak", peak)
        high = round(peak / util) if sane and util else 2 * peak
        row_util = peak / high if sane and high else util          # utilization = peak / high
        rows.append({"name": name, "path": path, "weight": weight, "ops": ops, "outcome": outcome,
                     "message": "" if outcome == "ok" else "SIGSEGV at op 2",
                     "op_index": None if outcome == "ok" else 2, "op": None if outcome == "ok" else "f 0",
                     "utilization": row_util, "ideal_utilization": ideal,
                     "peak_payload": peak, "heap_high_water": first.get("high", high),
                     "timing": {"seconds": mm_sec, "ops_per_sec": ops / mm_sec if mm_sec else float("inf"),
                                "samples": [mm_sec, 1.1e-6, 1.05e-6]} if outcome == "ok" else None,
                     "libc": {"seconds": 8e-7, "ops_per_sec": 5e6, "samples": [8e-7, 8e-7]},
                     "stats": None, "output": ""})
    if "extra" in marks:
        rows.append({**rows[-1], "name": "extra", "path": os.path.join(os.path.dirname(given[-1]), "extra.rep")})
    valid = sum(r["outcome"] == "ok" for r in rows)
    ok = [r for r in rows if r["outcome"] == "ok"]
    counted = len([r for r in rows if r["outcome"] != "bad_trace"])    # score.c leaves bad_trace out
    mean_util = sum(r["utilization"] for r in ok) / counted if counted else 0
    ops, mine, libc = sum(r["ops"] for r in ok), mm_sec * len(ok), 8e-7 * len(ok)
    try:
        ratio = round((ops / mine) / (ops / libc) * len(ok) / counted, 9) if ok else None
    except ZeroDivisionError:
        ratio = float("inf")
    mean_util = float(marks.get("sumutil") or mean_util)
    result = {"schema": 1, "tool": "mdriver", "secret": secret,
              "allocator": {"name": "mm", "team": None, "has_checkheap": False, "has_stats": False},
              "settings": {"alignment": 16, "max_heap": 20971520, "time_limit": 60, "min_samples": 5,
                           "check_heap": False, "baseline": "measured"},
              "scoring": {"util_weight": 0.6, "throughput_cap": 1.0, "estimator": "fake"},
              "machine": {"hostname": "fake", "cpu": "fake", "date": "2026-01-01"},
              "traces": rows,
              "summary": {"traces": len(rows), "valid": valid, "failed": counted - valid,
                          "bad_traces": len(rows) - counted,
                          "utilization": mean_util, "throughput_ops_per_sec": 4e6, "libc_ops_per_sec": 5e6,
                          "throughput_ratio": ratio, "util_points": 60 * mean_util, "throughput_points": 32,
                          "perf_index": 60 * mean_util + 32}}
    if "stop" in marks:
        limit = int(argv[argv.index("--run-limit") + 1])
        result["settings"]["run_limit"] = limit
        result["interrupted"] = {"signal": "SIGALRM", "signal_number": 14, "during": traces[1],
                                 "planned": len(traces)}
        result["summary"].update(util_points=None, throughput_points=None, perf_index=None)
    with os.fdopen(json_fd, "w") as out:
        if "badjson" in marks:
            out.write("{")
        elif "nojson" not in marks:
            json.dump(result, out)
    return 142 if "stop" in marks else 0 if valid == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
