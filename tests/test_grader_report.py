"""The HTML report, rendered and then checked in a real headless browser (Debian's chromium)."""
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from grader import exports
from grader.model import Batch, RunFigure
from grader.report import render
from grader_fixtures.helpers import make_fake_kit, run_batch, run_grader
from grader_fixtures.submissions import source

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
UTILS = {"ann": 0.31, "ben": 0.77, "cat": 0.52, "dan": 0.64}

# Appended to a copy of the page: click the points header (ascending), then again (descending),
# and write what the browser shows into the DOM for --dump-dom to carry out.
PROBE = """<script>
window.addEventListener('load', () => {
const th = document.querySelector('#grades th[data-key="points"]');
const names = () => Array.from(document.querySelectorAll('#grades tbody tr td:first-child a')).map(a => a.textContent).join(',');
const before = names(); th.click(); const asc = names(); th.click(); const desc = names();
const out = document.createElement('pre'); out.id = 'probe';
out.textContent = JSON.stringify({rows: document.querySelectorAll('#grades tbody tr').length, before, asc, desc,
                                  images: Array.from(document.images).map(i => i.naturalWidth)});
document.body.appendChild(out);
});
</script>"""


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    kit = make_fake_kit(root / "kit")
    subs = root / "subs"
    for name, util in UTILS.items():
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(source("good") + f"/* FAKE:util={util} */\n")
    (subs / "eve").mkdir()
    (subs / "eve" / "mm.c").write_text(source("compile_error"))
    (subs / "fay").mkdir()          # fails tiny; utilization over grow alone, above ann's
    (subs / "fay" / "mm.c").write_text(source("good") + "/* FAKE:util=0.9 FAKE:fail=tiny */\n")
    run_batch(kit, subs, root / "out")
    return root / "out"


def test_report_command_writes_pages_and_figures(outdir):
    done = run_grader("report", outdir, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = outdir / "report"
    assert (report / "index.html").exists() and (report / "img" / "scatter.png").exists()
    assert (report / "img" / "histograms.png").read_bytes()[:4] == b"\x89PNG"
    for name in list(UTILS) + ["eve", "fay"]:
        page = (report / "sub" / f"{name}.html").read_text()
        assert name in page and "sandbox:" in page
    assert "error" in (report / "sub" / "eve.html").read_text()


def test_a_page_shows_only_the_figures_a_submission_has(outdir):
    """A submission that never ran (eve does not compile) read 'utilization , throughput  x libc'."""
    render(Batch.from_json(json.loads((outdir / "results.json").read_text())), outdir)

    def said(name):
        page = (outdir / "report" / "sub" / f"{name}.html").read_text()
        return re.sub(r"\s+", " ", page.split("points:", 1)[1].split("</p>", 1)[0]).strip()
    assert said("eve").endswith("(P = 0.0).") and "utilization" not in said("eve"), said("eve")
    sub = json.loads((outdir / "submissions" / "ann.json").read_text())["summary"]
    assert said("ann").endswith(f"; utilization {100 * sub['utilization']:.1f}%; "
                                f"throughput {sub['throughput_ratio']:.2f} &times; libc)."), said("ann")


def test_a_utilization_short_of_one_never_reads_100_percent(outdir, tmp_path):
    """U = 0.9996 (a trace of large blocks: one 16-byte header on 40000 bytes) read 100.0%, which
    a student takes for a perfect figure, on the page, in the class's table and on Gradescope."""
    import dataclasses
    from grader.policy import load_policy
    from grader_fixtures.helpers import KIT
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    ann = next(s for s in batch.submissions if s.name == "ann")
    traces = (dataclasses.replace(ann.traces[0], utilization=0.9996), dataclasses.replace(ann.traces[1], utilization=1.0))
    ann = dataclasses.replace(ann, traces=traces, summary=dataclasses.replace(ann.summary, utilization=0.9998))
    render(dataclasses.replace(batch, submissions=(ann,)), tmp_path)
    page = (tmp_path / "report" / "sub" / "ann.html").read_text()
    assert "; utilization 99.9%;" in page and ">99.9</td>" in page and ">100.0</td>" in page
    assert "100.0%" not in page
    assert ">99.9</td>" in (tmp_path / "report" / "index.html").read_text()
    tests = {t["name"]: t["output"] for t in exports.gradescope_results(ann, load_policy(KIT, None))["tests"]}
    assert "utilization 99.9%" in tests[f"Trace: {traces[0].name}"] and "utilization 100.0%" in tests[f"Trace: {traces[1].name}"]
    assert tests["Performance"].startswith("utilization 99.9%, ")


def test_a_students_page_names_the_hand_in_not_the_graders_folders(outdir):
    """A student's page said 'Source /home/ta/s26/handins/ann': the grader's folders, on a page
    the student is given."""
    render(Batch.from_json(json.loads((outdir / "results.json").read_text())), outdir)
    for page in (outdir / "report" / "sub").glob("*.html"):
        text = page.read_text()
        assert str(outdir.parent) not in text, page.name
        assert f"Hand-in {page.stem}," in text
    assert str(outdir.parent / "subs") in json.loads((outdir / "results.json").read_text())["submissions"][0]["origin"]


def test_report_of_nothing_is_a_clear_error(tmp_path):
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "results.json" in done.stderr and "Traceback" not in done.stderr


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.probe = None
        self._inside = False

    def handle_starttag(self, tag, attrs):
        self._inside = ("id", "probe") in attrs

    def handle_data(self, data):
        if self._inside:
            self.probe = (self.probe or "") + data


def _browser(page, tmp_path):
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
            f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_table_renders_and_sorts_in_a_real_browser(outdir, tmp_path):
    assert CHROMIUM, "chromium is missing: `make test-deps` installs it (mk/grader.mk)"
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    index = render(batch, outdir)
    probe = index.with_name("probe.html")
    probe.write_text(index.read_text().replace("</body>", PROBE + "</body>"))
    done = _browser(probe, tmp_path)
    parser = _Text()
    parser.feed(done.stdout)
    assert parser.probe, done.stderr[-2000:]
    seen = json.loads(parser.probe)
    points = {s.name: s.summary.points for s in batch.submissions}
    assert len(set(points.values())) >= 4                       # the sort has something to do
    assert seen["rows"] == len(points)
    assert seen["before"] == ",".join(sorted(points))
    # Sorting is stable, so ties keep their earlier (alphabetical) order both ways.
    assert seen["asc"] == ",".join(sorted(points, key=lambda n: (points[n], n)))
    assert seen["desc"] == ",".join(sorted(points, key=lambda n: (-points[n], n)))
    assert seen["images"] and all(width > 0 for width in seen["images"])


def test_student_text_is_escaped(outdir, tmp_path):
    import dataclasses
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    evil = "<script>document.title='pwned'</script>"
    subs = [dataclasses.replace(s, stdout=evil, reason=evil) if s.name == "ann" else s for s in batch.submissions]
    render(dataclasses.replace(batch, submissions=tuple(subs)), tmp_path)
    for page in (tmp_path / "report" / "index.html", tmp_path / "report" / "sub" / "ann.html"):
        text = page.read_text()
        assert evil not in text and "&lt;script&gt;" in text


def test_a_results_file_with_nan_points_still_renders(outdir, tmp_path):
    """results.json written before the policy refused nan (QA: correctness = nan) must not
    stop `mmgrade report` with a numpy traceback."""
    data = json.loads((outdir / "results.json").read_text())
    for sub in data["submissions"]:
        sub["summary"]["points"] = float("nan")
        sub["summary"]["correctness_points"] = float("nan")
    (tmp_path / "results.json").write_text(json.dumps(data))
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "report" / "img" / "histograms.png").read_bytes()[:4] == b"\x89PNG"


def test_a_results_file_and_a_record_from_before_output_tail_still_load_and_render(outdir, tmp_path):
    """The grader reuses stored records across runs: one written before the driver kept the last
    lines (no output_tail; output_cut all past output) shows its output and what was left out."""
    from grader import exports, store
    from grader.policy import load_policy
    data = json.loads((outdir / "results.json").read_text())
    fay = next(s for s in data["submissions"] if s["name"] == "fay")
    tiny = next(t for t in fay["traces"] if t["name"] == "tiny")
    tiny.update(output="mm_malloc #1\n", output_cut=500)
    for sub in data["submissions"]:
        for trace in sub["traces"]:
            trace.pop("output_tail", None)
    (tmp_path / "results.json").write_text(json.dumps(data))
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    shown = "<pre>mm_malloc #1\n[... 500 bytes not shown ...]</pre>"
    assert shown in (tmp_path / "report" / "sub" / "fay.html").read_text()
    store.write_json(store.record_path(tmp_path, "fay"), fay)
    record = store.load(tmp_path, "fay")
    assert record is not None and {t.output_tail for t in record.traces} == {""}
    tests = exports.gradescope_results(record, load_policy(outdir.parent / "kit", None))["tests"]
    assert {t["name"]: t["output"] for t in tests}["Trace: tiny"].endswith(
        "your allocator printed:\nmm_malloc #1\n[... 500 bytes not shown ...]")


def _cells(index, name):
    """The text of each cell of NAME's row in the class's table."""
    row = re.search(rf'<tr[^>]*>\s*<td><a href="sub/{name}.html">.*?</tr>', index, re.S).group(0)
    return [re.sub(r"<[^>]+>|\s+", " ", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_a_record_with_nan_figures_reads_as_grades_csv_does(outdir, tmp_path):
    """grades.csv and the exports show such a record's correctness points only (scoring.shown); the
    report showed 'nan' for its P and points."""
    import csv
    data = json.loads((outdir / "results.json").read_text())
    ann = next(s for s in data["submissions"] if s["name"] == "ann")
    ann["summary"].update(perf_index=float("nan"), points=float("nan"))
    (tmp_path / "results.json").write_text(json.dumps(data))
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    row = next(r for r in csv.DictReader((tmp_path / "grades.csv").open()) if r["name"] == "ann")
    cells = _cells((tmp_path / "report" / "index.html").read_text(), "ann")
    assert (float(cells[5]), float(cells[6])) == (float(row["perf_index"]), float(row["points"])) == (0, 20), cells
    page = (tmp_path / "report" / "sub" / "ann.html").read_text()
    assert not re.search(r"\bnan\b", page, re.I) and "(P = 0.0" in page


def test_a_trace_figure_no_run_produces_is_shown_nowhere(outdir, tmp_path):
    """A record from an older grader with a per-trace NaN, inf or utilization past 100%: the
    student's page showed 'nan' and 'inf' (and 170000...0.0%) in its trace table, sortable values
    and runs table, and the class's table its timing spread; grades.csv and the summary already
    showed no such figure (scoring.shown).  Every output now shows it as no figure at all."""
    from grader import store
    from grader.policy import Policy
    data = json.loads((outdir / "results.json").read_text())
    ann = next(s for s in data["submissions"] if s["name"] == "ann")
    for trace, util in zip(ann["traces"], (float("nan"), 1.7e306)):
        trace.update(utilization=util, ops_per_sec=float("inf"), libc_ops_per_sec=float("nan"), spread=float("inf"),
                     points=float("nan"))
    ann["runs"] = [{"verdict": "ok", "perf_index": p, "utilization": u, "throughput_ratio": r}
                   for p, u, r in ((float("nan"), 0.5, 0.8), (60.0, float("inf"), float("nan")), (61.0, 0.5, 0.8))]
    (tmp_path / "results.json").write_text(json.dumps(data))
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    raw = re.compile(r"\b(nan|inf|infinity)\b|1700000000", re.I)
    for page in (tmp_path / "report" / "index.html", tmp_path / "report" / "sub" / "ann.html"):
        text = page.read_text().split("<script>")[0]
        assert not raw.search(text), (page.name, raw.search(text).group(0))
    table = (tmp_path / "report" / "sub" / "ann.html").read_text().split("Traces</h2>")[1].split("</table>")[0]
    rows = re.findall(r"<tr>\s*<td>(\w+)</td>", table)
    assert rows == [t["name"] for t in ann["traces"]]              # the table is there, its cells empty
    assert "(P 0.0 to 61.0)" in (tmp_path / "report" / "sub" / "ann.html").read_text()
    batch = store.read_results(tmp_path)
    sub = next(s for s in batch.submissions if s.name == "ann")
    results = json.dumps(exports.gradescope_results(sub, Policy.from_json(batch.policy)), allow_nan=False)
    assert not raw.search(results), raw.search(results).group(0)


def test_points_read_as_grades_csv_and_gradescope_have_them(outdir):
    """The report showed points to 2 places: '37.72 of 55.0 points: correctness 20.0, performance
    17.721', whose parts do not add up to it, beside 37.721 in grades.csv and on Gradescope."""
    import csv
    index = render(Batch.from_json(json.loads((outdir / "results.json").read_text())), outdir).read_text()
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(exports.grades_csv(Batch.from_json(
        json.loads((outdir / "results.json").read_text())))))}
    assert any(len(r["points"].split(".")[1]) == 3 for r in rows.values())     # 2 places would differ
    for name, row in rows.items():
        assert _cells(index, name)[6] == row["points"], name
        page = (outdir / "report" / "sub" / f"{name}.html").read_text()
        assert (f"<b>{row['points']}</b> of {row['max_points']} points:\n correctness {row['correctness_points']} "
                in page), name
        assert f"performance {row['performance_points']} (P" in page, name


@pytest.mark.parametrize("names", [(), ("eve",), ("eve", "fay"), tuple(UTILS) + ("eve", "fay")])
def test_histograms_count_only_the_submissions_that_have_each_figure(outdir, tmp_path, monkeypatch, names):
    """A figure no student had (a class of none, or of compile errors only) was drawn as one
    submission at 0, on a count axis ticked 0.2, 0.4, ..."""
    from grader import plots
    from grader.scoring import shown
    subs = [s for s in Batch.from_json(json.loads((outdir / "results.json").read_text())).submissions if s.name in names]
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig) or path.name)
    plots.histograms(subs, tmp_path / "h.png")
    # utilization and throughput: only a submission that passed has them as earned (fay's are over grow only)
    has = [[shown(s.summary).points, shown(s.summary).perf_index] +
           [figure if s.verdict == "ok" else None for figure in (shown(s.summary).utilization, shown(s.summary).throughput_ratio)]
           for s in subs]
    for i, ax in enumerate(drawn[0].axes):
        assert sum(bar.get_height() for bar in ax.patches) == sum(row[i] is not None for row in has), ax.get_title()
        assert all(tick == int(tick) for tick in ax.get_yticks()), ax.get_title()
    plots.plt.close(drawn[0])


def test_the_histograms_of_utilization_and_throughput_leave_out_figures_not_earned(outdir, tmp_path, monkeypatch):
    """fay failed a trace (no performance points), yet her utilization and throughput over the trace
    she passed were counted in the class's histograms as though earned, with nothing to say so.
    They are left out now, and the caption says how many were and why."""
    from grader import plots
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    subs = {s.name: s for s in batch.submissions}
    assert subs["fay"].verdict == "failed" and subs["fay"].summary.utilization is not None
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig) or path.name)
    render(batch, tmp_path)
    util = next(ax for ax in drawn[0].axes if ax.get_title() == "utilization %")
    assert sum(bar.get_height() for bar in util.patches) == len(UTILS)           # ann, ben, cat, dan
    low = min(bar.get_x() for bar in util.patches)
    high = max(bar.get_x() + bar.get_width() for bar in util.patches)
    passed = [100 * subs[name].summary.utilization for name in UTILS]
    assert (low, high) == pytest.approx((min(passed), max(passed)))
    for fig in drawn:
        plots.plt.close(fig)
    text = re.sub(r"\s+", " ", (tmp_path / "report" / "index.html").read_text())
    assert ("The utilization and throughput histograms count the 4 submissions that passed every trace; "
            "1 that did not is left out, since in its figures a failed trace counts 0 in utilization and "
            "scales throughput by the share passed (marked * in the table).") in text


def test_the_histograms_leave_out_a_grader_error_and_say_so(outdir, tmp_path, monkeypatch):
    """A grader_error's 0 points and P 0 went into the class's points and P histograms as though they
    were a student's result; the grader failed, not the student.  It is left out of every histogram,
    and the caption says how many were and why."""
    import dataclasses
    from grader import plots
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    ann = next(s for s in batch.submissions if s.name == "ann")
    gil = dataclasses.replace(ann, name="gil", verdict="grader_error", reason="the grader failed, not the submission",
                              summary=dataclasses.replace(ann.summary, utilization=None, throughput_ratio=None,
                                                          perf_index=0.0, performance_points=0.0, points=0.0))
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig) or path.name)
    render(dataclasses.replace(batch, submissions=batch.submissions + (gil,)), tmp_path)
    axes = {ax.get_title(): ax for ax in drawn[0].axes}
    students = [s for s in batch.submissions if not s.reference]
    for title in ("points", "performance index"):
        assert sum(bar.get_height() for bar in axes[title].patches) == len(students), title
    for fig in drawn:
        plots.plt.close(fig)
    text = re.sub(r"\s+", " ", (tmp_path / "report" / "index.html").read_text())
    assert ("1 grader_error submission is left out of every histogram: the grader failed on it, not the "
            "student, and its 0 points are no result; a rerun regrades it.") in text


def test_scatter_draws_only_submissions_with_both_figures(outdir, tmp_path, monkeypatch):
    """A submission with a utilization but no throughput figure (every trace failed: the driver's
    U is 0.0, its T none) was drawn at throughput 0, as if measured there."""
    import dataclasses
    from grader import plots
    subs = {s.name: s for s in Batch.from_json(json.loads((outdir / "results.json").read_text())).submissions}
    fay = subs["fay"]
    none = dataclasses.replace(fay, name="gus", summary=dataclasses.replace(fay.summary, utilization=0.0, throughput_ratio=None))
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig) or path.name)
    plots.scatter([subs["ann"], fay, none, subs["eve"]], tmp_path / "s.png")
    points = sorted(tuple(xy) for c in drawn[0].axes[0].collections for xy in c.get_offsets())
    assert points == sorted([(subs["ann"].summary.throughput_ratio, 100 * subs["ann"].summary.utilization),
                             (fay.summary.throughput_ratio, 100 * fay.summary.utilization)])
    plots.plt.close(drawn[0])


def test_several_runs_show_the_median_and_the_range(outdir, tmp_path):
    import dataclasses
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    runs = tuple(RunFigure("ok", p, 0.31, 0.8) for p in (58.25, 61.5, 60.0))
    subs = [dataclasses.replace(s, runs=runs) if s.name == "ann" else s for s in batch.submissions]
    render(dataclasses.replace(batch, submissions=tuple(subs)), tmp_path)
    report = tmp_path / "report"
    assert "(58.2&ndash;61.5)" in (report / "index.html").read_text()
    page = (report / "sub" / "ann.html").read_text()
    assert "median of 3 runs by performance index (P 58.2 to 61.5)" in page
    table = page.split("Runs</h2>")[1].split("</table>")[0]
    assert table.count("<tr>") == 4 and all(f">{p}<" in table for p in ("58.2", "61.5", "60.0"))
    assert "Runs</h2>" not in (report / "sub" / "ben.html").read_text()      # one run: the page as before


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_outputs_get_the_mode_the_umask_allows(outdir, tmp_path, umask):
    """Written through mkstemp they were 0600: a web server answered 403, TAs could not read grades.csv."""
    import os
    import stat
    shutil.copy2(outdir / "results.json", tmp_path / "results.json")
    done = run_grader("report", tmp_path, capture_output=True, text=True,
                          preexec_fn=lambda: os.umask(umask))
    assert done.returncode == 0, done.stderr
    written = [tmp_path / "grades.csv", tmp_path / "report" / "index.html", tmp_path / "report" / "sub" / "ann.html"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o666 & ~umask}


@pytest.mark.parametrize("change, words", [
    (lambda d: d["submissions"][1]["summary"].update(points="abc"),
     "submissions[1].summary.points: 'abc' is not of type 'number'"),
    (lambda d: d["submissions"][0]["traces"][0].update(utilization="abc"),
     "submissions[0].traces[0].utilization: 'abc' is not of type 'number', 'null'"),
    (lambda d: d.update(submissions={}), "submissions: {} is not of type 'array'"),
])
def test_a_wrongly_typed_field_is_one_line_naming_it(outdir, tmp_path, change, words):
    """It was a TypeError traceback while rendering."""
    data = json.loads((outdir / "results.json").read_text())
    data["submissions"].sort(key=lambda s: s["name"])         # ann (with traces) first
    change(data)
    (tmp_path / "results.json").write_text(json.dumps(data))
    done = run_grader("report", tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == f"mmgrade: {tmp_path / 'results.json'}: {words}\n"


def test_report_rebuilds_a_class_with_names_in_any_script(tmp_path):
    """`mmgrade report` refused the results.json that `mmgrade grade` had just written when a
    student's name kept a letter outside ASCII (Zoë): the schema allowed only [A-Za-z0-9._~-]."""
    kit = make_fake_kit(tmp_path / "kit")
    subs = tmp_path / "subs"
    for name in ("Zoë", "José Núñez", "李雷"):
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(source("good") + f"/* {name} */\n")
    out = tmp_path / "out"
    batch = run_batch(kit, subs, out)
    names = sorted(s.name for s in batch.submissions)
    assert any(not n.isascii() for n in names)
    done = run_grader("report", out, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.stem for p in (out / "report" / "sub").glob("*.html")) == names


def test_a_failed_submission_is_not_ranked_by_figures_it_did_not_earn(outdir, tmp_path):
    """fay failed a trace, and her utilization over the trace she passed ranked her among (above ann)
    the passing submissions when the table was sorted by it, with nothing to say it was not earned."""
    batch = Batch.from_json(json.loads((outdir / "results.json").read_text()))
    subs = {s.name: s for s in batch.submissions}
    assert subs["fay"].verdict == "failed" and subs["fay"].summary.utilization > min(UTILS.values())
    index = render(batch, outdir)
    row = re.search(r'<tr[^>]*>\s*<td><a href="sub/fay.html">.*?</tr>', index.read_text(), re.S).group(0)
    failed = "a failed trace counts 0 in utilization and scales throughput by the share passed"
    assert f"{100 * subs['fay'].summary.utilization:.1f}*" in row and f"not every trace passed: {failed}" in row
    assert f"* not every trace passed: {failed}" in index.read_text()
    page = re.sub(r"\s+", " ", (outdir / "report" / "sub" / "fay.html").read_text())
    assert f"; it passed 1 of 2 traces, and {failed})." in page
    probe = index.with_name("probe.html")
    probe.write_text(index.read_text().replace("</body>", PROBE.replace('"points"', '"utilization"') + "</body>"))
    parser = _Text()
    parser.feed(_browser(probe, tmp_path).stdout)
    seen = json.loads(parser.probe)
    passing = [n for n, s in subs.items() if s.verdict == "ok"]
    by_util = sorted(passing, key=lambda n: (subs[n].summary.utilization, n))
    assert seen["asc"].split(",")[:len(passing)] == by_util
    assert seen["desc"].split(",")[:len(passing)] == by_util[::-1]
    assert set(seen["desc"].split(",")[len(passing):]) == {"eve", "fay"}     # after them, both ways


def test_report_rebuilds_a_class_graded_with_a_throughput_cap_above_one(tmp_path):
    """A course may set scoring.throughput_cap = 2, and then P goes past 100 (0.6 * 50 + 0.4 * 200 =
    110 here); the schema's maximum of 100 made `mmgrade report` refuse the results.json that
    `mmgrade grade` had just written."""
    kit = make_fake_kit(tmp_path / "kit")
    (tmp_path / "subs" / "fast").mkdir(parents=True)
    (tmp_path / "subs" / "fast" / "mm.c").write_text(source("good") + "/* FAKE:mmsec=4e-7 */\n")
    out = tmp_path / "out"
    batch = run_batch(kit, tmp_path / "subs", out, "[scoring]\nthroughput_cap = 2.0\n")
    assert batch.submissions[0].verdict == "ok" and batch.submissions[0].summary.perf_index > 100
    done = run_grader("report", out, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"P = {batch.submissions[0].summary.perf_index:.1f}" in (out / "report" / "sub" / "fast.html").read_text()


def _older_grader(outdir, dest):
    """DEST holding OUTDIR's results.json as an older grader could have scored it: ann's points
    and her traces' other than this grader's.  Returns the document as this grader writes it."""
    dest.mkdir()
    data = json.loads((outdir / "results.json").read_text())
    ann = next(s for s in data["submissions"] if s["name"] == "ann")
    older = json.loads(json.dumps(data))
    old_ann = next(s for s in older["submissions"] if s["name"] == "ann")
    old_ann["summary"].update(points=1.5, correctness_points=1.0, performance_points=0.5)
    for trace in old_ann["traces"]:
        trace["points"] = 0.25
    assert old_ann != ann
    (dest / "results.json").write_text(json.dumps(older, indent=1) + "\n")
    return data


def test_report_rewrites_results_json_with_the_points_it_shows(outdir, tmp_path):
    """`mmgrade report` scores every record as this grader does (store.rescored) for grades.csv and the
    report, but left results.json with an older grader's points, so that results.json said 1.5 points
    where grades.csv said ann's real ones.  It now rewrites results.json with them, saying so in one
    line, every other field as it was; a second run finds nothing to rewrite and says nothing."""
    import csv
    out = tmp_path / "out"
    data = _older_grader(outdir, out)
    done = run_grader("report", out, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"mmgrade: note: {out / 'results.json'}: 1 record held an older grader's points; rewritten with this "
        "grader's, which grades.csv and the report show"]
    assert json.loads((out / "results.json").read_text()) == data      # created, policy, ... kept
    row = {r["name"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}["ann"]
    ann = next(s for s in data["submissions"] if s["name"] == "ann")
    assert row["points"] == exports.points_text(ann["summary"]["points"])
    before = (out / "results.json").stat().st_mtime_ns
    again = run_grader("report", out, capture_output=True, text=True)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert (out / "results.json").stat().st_mtime_ns == before


def test_a_failed_rewrite_of_results_json_loses_nothing(outdir, tmp_path, monkeypatch):
    """results.json is rewritten atomically: a write that fails (a full disk) leaves the older
    file whole and no temporary file beside it, in one line naming it, exit status 2."""
    import os

    from click.testing import CliRunner

    from grader import cli, store

    out = tmp_path / "out"
    _older_grader(outdir, out)
    older = (out / "results.json").read_bytes()

    def full(src, dst):
        raise OSError(28, "No space left on device", str(dst))
    monkeypatch.setattr(store.os, "replace", full)
    done = CliRunner().invoke(cli.main, ["report", str(out)])
    assert done.exit_code == 2, done.output
    assert done.output.strip().splitlines()[-1] == (
        f"mmgrade: {out / 'results.json'}: cannot write the grader's output there (No space left on device)")
    assert (out / "results.json").read_bytes() == older
    assert sorted(os.listdir(out)) == ["results.json"]


def test_report_leaves_results_json_to_a_run_grading_there(outdir, tmp_path):
    """While a run grades into OUTDIR (it holds the lock), `mmgrade report` does not rewrite results.json,
    which that run writes when it ends (a rewrite of the older file after it would undo the new one);
    it says so, and grades.csv and the report still show this grader's points."""
    import fcntl
    import os
    out = tmp_path / "out"
    _older_grader(outdir, out)
    older = (out / "results.json").read_bytes()
    (out / "submissions").mkdir()
    fd = os.open(out / "submissions" / ".mmgrade.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        done = run_grader("report", out, capture_output=True, text=True)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    assert (out / "results.json").read_bytes() == older
    assert done.stderr.splitlines()[-1] == (
        f"mmgrade: note: {out / 'results.json'}: 1 record held an older grader's points; grades.csv and the report "
        "show this grader's, and results.json is left to the run grading there now, which rewrites it")
