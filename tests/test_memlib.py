"""The simulated heap (memlib.c) against the contract at the top of memlib.h,
through a small C harness (tests/c/memlib/harness.c) built against memlib.c."""
from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from driver_common import KIT, heap_base

MIB = 2**20


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("memlib") / "harness"
    done = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", f"-I{KIT}",
                           str(KIT / "tests" / "c" / "memlib" / "harness.c"), str(KIT / "memlib.c"), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def facts(harness: Path, *args: str) -> dict[str, str]:
    done = subprocess.run([str(harness), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    out: dict[str, str] = {}
    for line in done.stdout.splitlines():
        for pair in line.split():
            key, _, value = pair.partition("=")
            out.setdefault(key, value)  # sbrk lines' errno= and size= are read whole via sbrk_line
    return {**out, "_lines": done.stdout}


def sbrk_line(f: dict[str, str], key: str) -> str:
    return next(line for line in f["_lines"].splitlines() if line.startswith(f"{key}="))


def test_contract_at_the_default_maximum(harness):
    f = facts(harness, "contract")
    lo = heap_base()
    assert int(f["lo"], 16) == lo
    assert int(f["hi_empty_plus_1"], 16) == lo and f["size_empty"] == "0"  # hi = lo - 1 while empty
    assert sbrk_line(f, "sbrk_100") == "sbrk_100=old-break errno=0 size=100"
    assert int(f["hi_after_100"], 16) == lo + 99
    assert sbrk_line(f, "sbrk_negative") == "sbrk_negative=fail errno=ENOMEM size=100"
    assert sbrk_line(f, "sbrk_zero") == "sbrk_zero=old-break errno=0 size=100"
    assert sbrk_line(f, "sbrk_past_max") == "sbrk_past_max=fail errno=ENOMEM size=100"
    assert sbrk_line(f, "sbrk_to_max") == f"sbrk_to_max=old-break errno=0 size={20 * MIB}"
    assert sbrk_line(f, "sbrk_one_more") == f"sbrk_one_more=fail errno=ENOMEM size={20 * MIB}"
    # mem_reset_brk empties the heap but cannot lower the high-water mark the driver reads.
    assert f["size_after_reset"] == "0" and f["high_water_after_reset"] == str(20 * MIB)
    assert int(f["hi_after_reset_plus_1"], 16) == lo
    assert f["high_water_after_restart"] == "0"
    assert f["kept_after_restart"] == str(20 * MIB)  # the mark kept for utilization outlives the restart
    assert f["max"] == str(20 * MIB) and f["pagesize"] == f["sysconf"]


def test_contract_with_a_smaller_maximum(harness):
    """What `mdriver -M 1M` configures."""
    f = facts(harness, "contract", str(MIB))
    assert f["max"] == str(MIB)
    assert sbrk_line(f, "sbrk_past_max") == "sbrk_past_max=fail errno=ENOMEM size=100"
    assert sbrk_line(f, "sbrk_to_max") == f"sbrk_to_max=old-break errno=0 size={MIB}"
    assert sbrk_line(f, "sbrk_one_more") == f"sbrk_one_more=fail errno=ENOMEM size={MIB}"


def test_heap_at_the_same_address_every_run(harness):
    assert {facts(harness, "contract")["lo"] for _ in range(3)} == {f"{heap_base():#x}"}


@pytest.mark.parametrize("what,offset", [("write-below", -1), ("write-past-page", 4096 + 10)])
def test_bytes_outside_the_heap_fault_at_once(harness, what, offset):
    done = subprocess.run([str(harness), what], capture_output=True, text=True, timeout=30)
    assert done.returncode == -signal.SIGSEGV
    assert done.stdout == f"writing={heap_base() + offset:#x}\n"


def test_slack_past_the_break_is_guarded_by_a_canary(harness):
    f = facts(harness, "write-slack")
    lo = heap_base()
    assert f["clean"] == "0"
    assert int(f["violation"], 16) == lo + 103
    assert f["violation_within_2"] == "0"  # the per-op check looks at a few bytes only
    assert int(f["violation_after_sbrk"], 16) == lo + 103  # remembered once the break passes it
    assert f["survived"] == "1"


def test_fast_mode_opens_the_whole_range(harness):
    f = facts(harness, "fast")
    assert int(f["wrote_last_byte"], 16) == heap_base() + 20 * MIB - 1
    assert f["slack_unchecked"] == "0" and f["survived"] == "1"
