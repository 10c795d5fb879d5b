"""grader.kitconfig: constants read from config.h, never retyped."""
import re

import pytest

from grader.kitconfig import KitConfigError, parse_config_text, read_kit_config


def test_reads_static_consts_and_enum_items():
    text = """
    /* a comment with static const double FAKE = 1.0; inside */
    enum {
        /* limit */
        A_LIMIT = 20 << 20,
        B_COUNT = 5,   // trailing comment
        C_LAST = 3
    };
    static const double W = 0.6;  /* weight */
    static const double TOL = 2e-2;
    #define MM_ALIGNMENT 16
    """
    values = parse_config_text(text)
    assert values == {"A_LIMIT": 20 << 20, "B_COUNT": 5, "C_LAST": 3, "W": 0.6, "TOL": 0.02, "MM_ALIGNMENT": 16}


def test_skips_what_it_cannot_evaluate():
    values = parse_config_text("static const double X = some_function(3);\nenum { Y = OTHER + 1, Z = 4 };")
    assert values == {"Z": 4}


def test_real_config_h_matches_its_text(kit):
    values = read_kit_config(kit)
    text = (kit / "config.h").read_text()
    for name in ("MM_UTIL_WEIGHT", "MM_THROUGHPUT_CAP", "MDRIVER_DEFAULT_TIME_LIMIT", "MDRIVER_DEFAULT_MAX_HEAP"):
        assert name in values
        assert re.search(rf"\b{name}\b", text)
    weight = re.search(r"MM_UTIL_WEIGHT\s*=\s*([0-9.]+)", text).group(1)
    assert values["MM_UTIL_WEIGHT"] == float(weight)


def test_missing_config_is_a_clear_error(tmp_path):
    with pytest.raises(KitConfigError, match="config.h"):
        read_kit_config(tmp_path)
