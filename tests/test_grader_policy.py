"""grader.policy: config.h, then grader.toml, then the course's file."""
import shutil

import pytest

from grader.kitconfig import read_kit_config
from grader.policy import PolicyError, load_policy


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


def test_round_trips_through_json(kit):
    policy = load_policy(kit)
    assert type(policy).from_json(policy.to_json()) == policy


@pytest.mark.parametrize("text, message", [
    ("[scoring]\nutil_wieght = 0.5\n", "unknown key scoring.util_wieght"),
    ("[score]\nx = 1\n", "unknown section"),
    ('[rules.action]\nshadowing = "maybe"\n', "rules.action.shadowing"),
    ('[rules.action]\nno_such_rule = "warn"\n', "unknown rule"),
    ("[scoring]\nutil_weight = 2\n", "util_weight"),
    ("[limits]\nwall_clock = -1\n", "limits.wall_clock"),
    ('[limits]\nwall_clock = "soon"\n', "expected a number"),
    ("[build]\nalignment = 12\n", "alignment"),
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
    ("[points]\ncorrectness = nan\n", "points.correctness: expected a finite number"),
    ("[points]\ncorrectness = -20.0\n", "points.correctness must not be negative"),
    ("[scoring]\nthroughput_cap = -1.0\n", "scoring.throughput_cap must not be negative"),
    ("[scoring]\nutil_range = [\"low\", 1]\n", "scoring.util_range: expected a number"),
    ("[rules]\nwritable_data_max = -5\n", "rules.writable_data_max must not be negative"),
    ("[rules]\nextra_allowed_symbols = [1]\n", "rules.extra_allowed_symbols: expected a list of strings"),
    ("[build]\nfile_size_bytes = 0\n", "build.file_size_bytes must be positive"),
    ('[sandbox]\ndriver_seccomp = "off"\n', "sandbox.driver_seccomp: expected true or false"),
])
def test_bad_policies_are_one_line_errors_naming_the_file(kit_copy, tmp_path, text, message):
    course = tmp_path / "course.toml"
    course.write_text(text)
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert message in str(err.value) and str(course) in str(err.value)
    assert "\n" not in str(err.value)


def test_a_policy_that_is_not_utf8_is_a_one_line_error(kit_copy, tmp_path):
    course = tmp_path / "course.toml"
    course.write_bytes(b"\xff\xfe[limits]\n")
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert str(course) in str(err.value) and "not UTF-8" in str(err.value)
