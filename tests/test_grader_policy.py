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
])
def test_bad_policies_are_one_line_errors_naming_the_file(kit_copy, tmp_path, text, message):
    course = tmp_path / "course.toml"
    course.write_text(text)
    with pytest.raises(PolicyError) as err:
        load_policy(kit_copy, course)
    assert message in str(err.value) and str(course) in str(err.value)
    assert "\n" not in str(err.value)
