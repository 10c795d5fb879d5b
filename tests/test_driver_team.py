"""mm.c's `team` struct is the student's data: the parent reads it for the header line and the
JSON, so a bad pointer there must cost the team's name, not the driver's life."""
from __future__ import annotations

from driver_common import broken, run, write_trace

OPS = ["a 0 16", "a 1 40", "f 0", "f 1"]


def test_bad_team_pointers_are_shown_as_unreadable(tmp_path):
    """A pointer near NULL and one into the heap crashed the parent (SIGSEGV, no table, no JSON)."""
    r = run(broken("team-pointers"), "-f", write_trace(tmp_path, "t", OPS, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    assert r.doc["allocator"]["team"] == {"teamname": "(unreadable)", "name1": "(unreadable)",
                                          "id1": "ada@example.edu", "name2": None, "id2": ""}
    assert "(team (unreadable): (unreadable))" in r.out.splitlines()[0]
    assert r.trace("t")["outcome"] == "ok"


def test_team_strings_are_escaped_on_the_header_line(tmp_path):
    """A newline split the header in two and an escape sequence reached the terminal; the JSON keeps the text."""
    r = run(broken("team-text"), "-f", write_trace(tmp_path, "t", OPS, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    first = r.out.splitlines()[0]
    assert '(team evil\\n\\x1b[2J"team\\: Name\\twith\\ttabs), ' in first, first
    assert "\x1b" not in r.out and "\t" not in r.out
    assert r.doc["allocator"]["team"]["teamname"] == 'evil\n\x1b[2J"team\\'
    assert r.doc["allocator"]["team"]["name1"] == "Name\twith\ttabs"


def test_a_long_team_name_is_cut_on_the_header_line(tmp_path):
    """A 292-character name was printed whole; it loses its middle, as a long trace name does."""
    r = run(broken("team-long"), "-f", write_trace(tmp_path, "t", OPS, weight=1), tmp=tmp_path)
    name = r.doc["allocator"]["team"]["teamname"]
    assert len(name) == 292 and name.endswith("azz")
    first = r.out.splitlines()[0]
    shown = first.split("(team ", 1)[1].split(": Ada)", 1)[0]
    assert shown.startswith("aaa") and shown.endswith("azz") and "…" in shown
    assert len(shown) < 60, shown
