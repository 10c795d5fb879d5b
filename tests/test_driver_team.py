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
