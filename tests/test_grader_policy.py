"""grader.policy: config.h, then grader.toml, then the course's file."""
import os
import shutil
from pathlib import Path

import pytest

from grader.kitconfig import read_kit_config
from grader.policy import PolicyError, load_policy, with_runs


@pytest.fixture
def kit_copy(kit, tmp_path):
    for name in ("config.h", "grader.toml"):
        shutil.copy2(kit / name, tmp_path / name)
    return tmp_path


def test_defaults_come_from_config_h(kit):
    policy = load_policy(kit)
    config = read_kit_config(kit)
    assert policy.scoring.util_weight == config["MM_UTIL_WEIGHT"]
    assert policy.scoring.throughput_cap == config["MM_THROUGHPUT_CAP"]
    assert policy.limits.trace_seconds == config["MDRIVER_DEFAULT_TIME_LIMIT"]
    assert policy.limits.max_heap == config["MDRIVER_DEFAULT_MAX_HEAP"]
    assert policy.rules.writable_data_max == 128
    assert policy.rules.code_size_max == 49152
    assert policy.sandbox.driver_seccomp                      # off only to test the grader's own layers
    assert policy.source.endswith("grader.toml")


def test_changing_config_h_changes_the_policy(kit_copy):
    text = (kit_copy / "config.h").read_text()
    (kit_copy / "config.h").write_text(text.replace("MM_UTIL_WEIGHT = 0.6", "MM_UTIL_WEIGHT = 0.7"))
    assert load_policy(kit_copy).scoring.util_weight == 0.7


def test_course_file_overrides_and_changes_the_digest(kit_copy, tmp_path):
    base = load_policy(kit_copy)
    course = tmp_path / "course.toml"
    course.write_text('[scoring]\nutil_weight = 0.5\nformula = "scaled"\n[rules.action]\nother_globals = "off"\n')
    policy = load_policy(kit_copy, course)
    assert policy.scoring.util_weight == 0.5 and policy.scoring.formula == "scaled"
    assert policy.rules.action["other_globals"] == "off"
    assert policy.rules.action["shadowing"] == "reject"      # untouched keys keep their defaults
    assert policy.digest() != base.digest()
    assert policy.source == str(course)


def test_round_trips_through_json(kit, tmp_path):
    policy = load_policy(kit)
    assert type(policy).from_json(policy.to_json()) == policy
    course = tmp_path / "course.toml"
    course.write_text("[timing]\nruns = 3\n")
    several = load_policy(kit, course)
    assert type(several).from_json(several.to_json()) == several and several.to_json()["timing"]["runs"] == 3


def test_runs_change_the_digest_and_one_run_reads_as_before_the_key(kit_copy, tmp_path):
    base = load_policy(kit_copy)
    assert base.timing.runs == 1 and "runs" not in base.to_json()["timing"]
    text = (kit_copy / "grader.toml").read_text()
    (kit_copy / "grader.toml").write_text("\n".join(line for line in text.splitlines() if not line.startswith("runs")))
    older = load_policy(kit_copy)                              # a kit's grader.toml from before timing.runs
    assert older.timing.runs == 1 and older.digest() == base.digest()
    assert with_runs(base, 2).digest() != base.digest() and with_runs(base, 2).timing.runs == 2
    with pytest.raises(PolicyError, match="^--runs: timing.runs = 16"):
        with_runs(base, 16)


@pytest.mark.parametrize("text, message", [
    ("[scoring]\nutil_wieght = 0.5\n", "unknown key scoring.util_wieght"),
    ("[score]\nx = 1\n", "unknown section"),
    ('[rules.action]\nshadowing = "maybe"\n', "rules.action.shadowing"),
    ('[rules.action]\nno_such_rule = "warn"\n', "unknown rule"),
    ("[scoring]\nutil_weight = 2\n", "util_weight"),
    ("[limits]\nwall_clock = -1\n", "limits.wall_clock"),
    ('[limits]\nwall_clock = "soon"\n', "expected a number"),
    ("[build]\nalignment = 12\n", "alignment"),
    ("[build]\nalignment = 32\n", "build.alignment = 32: the kit builds 8 or 16 only"),   # the Makefile's own
    ("[build]\nalignment = 64\n", "build.alignment = 64: the kit builds 8 or 16 only"),
    ("[scoring\n", "not valid TOML"),
    # values the driver, prlimit or the arithmetic would refuse later, for every student
    ("[limits]\ntrace_seconds = 0.5\n", "limits.trace_seconds = 0.5: the driver's -T takes whole seconds"),
    ("[limits]\ntrace_seconds = 100000\n", "limits.trace_seconds = 100000"),
    ("[limits]\ntrace_seconds = 1e400\n", "limits.trace_seconds: expected a finite number"),
    ("[limits]\ncpu_seconds = inf\n", "limits.cpu_seconds: expected a finite number"),
    ("[limits]\nmemory_bytes = nan\n", "limits.memory_bytes: expected a finite number"),
    ("[limits]\nmax_heap = 99999999999999999999\n", "limits.max_heap"),
    ("[limits]\nmax_heap = 5000000000\n", "limits.max_heap = 5000000000: the driver's -M takes at most"),
    ("[limits]\nmax_heap = 900000000\n", "at most half of limits.memory_bytes"),
    ("[limits]\nprocesses = 1.9\n", "limits.processes: expected a whole number"),
    ("[limits]\nmemory_bytes = 1e300\n", "limits.memory_bytes: 1e+300 is too large"),     # not its 301 digits
    ("[limits]\nwall_clock = -5\n", "limits.wall_clock must be 0 (the traces x trace_seconds + 60) or positive"),
    ("[points]\ncorrectness = nan\n", "points.correctness: expected a finite number"),
    ("[points]\ncorrectness = -20.0\n", "points.correctness must not be negative"),
    ("[scoring]\nthroughput_cap = -1.0\n", "scoring.throughput_cap must not be negative"),
    ("[scoring]\nutil_range = [\"low\", 1]\n", "scoring.util_range: expected a number"),
    ("[rules]\nwritable_data_max = -5\n", "rules.writable_data_max must not be negative"),
    ("[rules]\ncode_size_max = -1\n", "rules.code_size_max must not be negative"),
    ("[rules]\nextra_allowed_symbols = [1]\n", "rules.extra_allowed_symbols: expected a list of strings"),
    ("[build]\nfile_size_bytes = 0\n", "build.file_size_bytes must be positive"),
    ('[sandbox]\ndriver_seccomp = "off"\n', "sandbox.driver_seccomp: expected true or false"),
    ("[timing]\nruns = 0\n", "timing.runs = 0: driver runs per submission, from 1 to 15"),
    ("[timing]\nruns = 16\n", "timing.runs = 16: driver runs per submission, from 1 to 15"),
    ('[timing]\nruns = "3"\n', "timing.runs: expected a number"),
    ("[timing]\nruns = true\n", "timing.runs: expected a number"),
    ("[timing]\nruns = 2.5\n", "timing.runs: expected a whole number"),
    # QA: a MemoryError reading each source; an honest student failed as "impossible", max_points inf
    ("[build]\nsource_max_bytes = 9000000000000000000\n", "build.source_max_bytes = 9000000000000000000: at most"),
    ("[points]\ncorrectness = 1e308\nperformance = 1e308\n", "points.correctness = 1e+308: at most 1e+06"),
    ("[points]\nperformance = 1e7\n", "points.performance = 1e+07: at most 1e+06"),
    # make runs the flags in a recipe's shell: "-O2; rm -rf /" had run rm (stopped by its --preserve-root)
    ('[build]\ncflags = "-O2; rm -rf /"\n', "build.cflags: '-O2;' is not a compiler flag"),
    ('[build]\ncflags = "-O2 $(touch x)"\n', "build.cflags: '$(touch' is not a compiler flag"),
    ('[build]\ncflags = "-O2 `id`"\n', "build.cflags: '`id`' is not a compiler flag"),
    ("[build]\ncflags = '-DNAME=\"x\"'\n", "build.cflags: '-DNAME=\"x\"' is not a compiler flag"),
    ('[build]\ncflags = "-O2 mm.c"\n', "build.cflags: 'mm.c' is not a compiler flag"),
])
def test_bad_policies_are_one_line_errors_naming_the_file(kit_copy, tmp_path, text, message):
    course = tmp_path / "course.toml"
    course.write_text(text)
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert message in str(err.value) and str(course) in str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < len(str(course)) + 200


def test_compiler_flags_a_course_uses_are_accepted(kit_copy, tmp_path):
    flags = "-O2 -g -std=gnu11 -DNDEBUG -I/opt/x -fsanitize=address,undefined -Wl,-z,now -march=native"
    course = tmp_path / "course.toml"
    course.write_text(f'[build]\ncflags = "{flags}"\n')
    assert load_policy(kit_copy, course).build.cflags == flags


@pytest.mark.parametrize("listed, message", [
    ('["nonexistent"]', "timing.reference_variants: the kit has no variant nonexistent (variants/nonexistent.c); "
                        "it has best, segregated"),
    ('["segregated", "segregated"]', "timing.reference_variants lists segregated more than once"),
])
def test_reference_variants_are_checked_when_the_policy_loads(kit_copy, tmp_path, listed, message):
    (kit_copy / "variants").mkdir()
    for name in ("segregated.c", "best.c", "layout.h"):
        (kit_copy / "variants" / name).write_text("")
    course = tmp_path / "course.toml"
    course.write_text(f"[timing]\nreference_variants = {listed}\n")
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert str(err.value) == f"{course}: {message}"
    course.write_text('[timing]\nreference_variants = ["segregated", "best"]\n')
    assert load_policy(kit_copy, course).timing.reference_variants == ("segregated", "best")


def test_a_policy_that_is_not_utf8_is_a_one_line_error(kit_copy, tmp_path):
    course = tmp_path / "course.toml"
    course.write_bytes(b"\xff\xfe[limits]\n")
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert str(course) in str(err.value) and "not UTF-8" in str(err.value)


def test_a_policy_that_is_no_regular_file_is_refused_unread(kit_copy, tmp_path):
    """--config /dev/zero ate memory for ever; a FIFO would block the open."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 200_000)
    for path, words in ((Path("/dev/zero"), "not a regular file"), (fifo, "not a regular file"),
                        (big, "larger than 1048576 bytes")):
        with pytest.raises(PolicyError) as err:
            load_policy(kit_copy, path)
        assert str(err.value) == f"{path}: {words}, so not a TOML policy"


def test_a_policy_with_a_byte_order_mark_reads_as_without(kit_copy, tmp_path):
    course = tmp_path / "course.toml"
    course.write_bytes(b"\xef\xbb\xbf[points]\ncorrectness = 30.0\n")
    assert load_policy(kit_copy, course).points.correctness == 30.0
