"""Write a seeded trace of N ops that holds about LIVE blocks at once (for bench-driver)."""
import random
import sys


def big_trace(path: str, ops: int, live_target: int, seed: int = 1, weight: int = 0) -> None:
    rnd = random.Random(seed)
    lines: list[str] = []
    live: list[int] = []
    free_ids: list[int] = []
    next_id = 0
    while len(lines) < ops - len(live):
        grow = len(live) < live_target and (len(live) < live_target // 2 or rnd.random() < 0.55)
        if grow or not live:
            i = free_ids.pop() if free_ids else next_id
            if i == next_id:
                next_id += 1
            lines.append(f"a {i} {rnd.randint(1, 128)}")
            live.append(i)
        else:
            k = rnd.randrange(len(live))
            live[k], live[-1] = live[-1], live[k]
            i = live.pop()
            lines.append(f"f {i}")
            free_ids.append(i)
    for i in live:
        lines.append(f"f {i}")
    with open(path, "w") as f:
        f.write(f"{weight}\n{next_id}\n{len(lines)}\n0\n")
        f.write("\n".join(lines))
        f.write("\n")


USAGE = "usage: gen_big.py FILE OPS LIVE [WEIGHT]   (a seeded trace of OPS ops holding about LIVE blocks)"

if __name__ == "__main__":
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(USAGE)
        sys.exit(0)
    try:
        numbers = [int(a) for a in sys.argv[2:]]
        if not 2 <= len(numbers) <= 3 or min(numbers) < 0:
            raise ValueError
    except ValueError:      # a missing or odd argument had been an IndexError or ValueError traceback
        print(f"gen_big.py: {' '.join(sys.argv[1:]) or 'no arguments'}: {USAGE}", file=sys.stderr)
        sys.exit(2)
    big_trace(sys.argv[1], numbers[0], numbers[1], weight=numbers[2] if len(numbers) > 2 else 0)
