"""A small CPython workload for `mmtrace record` (rec-python, rec-python-threads).

Run with PYTHONMALLOC=malloc so that every object goes through malloc, where the
recorder sees it.  Deterministic: fixed seed, no clock, no files.
"""
import json
import random
import re
import sys
import threading


def work(seed: int, rounds: int) -> int:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 12)))
             for _ in range(800)]
    total = 0
    for r in range(rounds):
        index: dict[str, list[int]] = {}
        for k, w in enumerate(rng.choices(words, k=600)):
            index.setdefault(w, []).append(k)
        doc = {"round": r, "index": {w: v[:5] for w, v in index.items()}}
        text = json.dumps(doc)
        back = json.loads(text)
        total += len(back["index"])
        total += len(re.findall(r"\"([a-c]+)\"", text))
        total += len(sorted(index, key=lambda w: (len(index[w]), w)))
    return total


def main() -> None:
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 0
    if threads:
        out = [0] * threads
        def run(i: int) -> None:
            out[i] = work(i, 1)
        ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print(sum(out))
    else:
        print(work(7, 3))


main()
