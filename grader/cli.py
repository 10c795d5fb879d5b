"""mmgrade: the grader's command line.  The only module that prints."""
from __future__ import annotations

import os
import re
import shlex
import signal
import stat
import sys
from contextlib import ExitStack, contextmanager, suppress
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mmtrace.oneline import IntRange, NonEmptyPath, OneLineGroup, one_line

from . import exports, package, store, workdir
from .grade import BatchError, Context, grade_batch, prepare, references
from .kitconfig import KitConfigError
from .model import Batch, Submission
from .paths import link_problem
from .policy import PolicyError, load_policy, with_runs
from .precheck import PrecheckError, precheck
from .report import remove as remove_report, render
from .sandbox import SandboxError, probe
from .submissions import (FORMS, Candidate, SubmissionError, discover, find_one, one_handin, readable,
                          unrecognised, whole_class)

ERRORS = (PolicyError, SandboxError, BatchError, SubmissionError, KitConfigError, package.PackageError,
          store.OutputError)
err_console = Console(stderr=True)


def default_kit() -> Path:
    """The kit this grader belongs to (its parent folder), else the current folder."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "config.h").exists() else Path.cwd()


def _notice(line: str) -> None:
    """A line the grading says once (a worker thread's; Rich keeps it above the progress bar)."""
    click.echo(f"mmgrade: {line}", err=True)


def _warn_exposed(paths: list[Path]) -> None:
    """Say which of the course's files a build can read: the grader's copies are private, but
    without bwrap the originals are only as private as their modes."""
    if paths:
        more = f" (and {len(paths) - 3} more)" if len(paths) > 3 else ""
        click.echo(f"mmgrade: warning: without bubblewrap a build reads what every user may: "
                   f"{', '.join(map(str, paths[:3]))}{more}; `chmod o-rwx` them to keep them from submissions",
                   err=True)


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"mmgrade: {message}", err=True)
    sys.exit(code)


class _BrokenLink(click.ClickException):
    """`mmgrade: PATH: ...` (no command's usage prefix) and exit status 2, as _fail says it."""
    exit_code = 2


class _PathThroughLinks(NonEmptyPath):
    """NonEmptyPath that first refuses a path through a symbolic link loop or a link to nothing, in one
    line naming WHAT it is: Path.resolve() would raise RuntimeError on a loop, and click's own
    check would call either one 'does not exist'."""

    def __init__(self, what: str, **kwargs):
        super().__init__(path_type=Path, **kwargs)
        self.what = what

    def convert(self, value, param, ctx):
        if problem := link_problem(Path(value)):
            raise _BrokenLink(f"{value}: {self.what} is {problem}")
        if not self.dir_okay and str(value).endswith("/"):     # Path() drops the slash: a file `new`
            raise _BrokenLink(f"{value}: {self.what} is a file, and this names a folder (ends in /)")
        return super().convert(value, param, ctx)


kit_option = click.option("--kit", type=_PathThroughLinks("the kit folder", file_okay=False), default=None,
                          help="the kit folder (default: the one this grader came with)")
config_option = click.option("--config", "config", type=NonEmptyPath(dir_okay=False, path_type=Path),
                             default=None, help="course policy TOML, laid over the kit's grader.toml")


def one_submission(command):
    """SUBMISSION (default ./mm.c), --kit, --config and --unsafe: a command about one student's file."""
    for option in (click.option("--unsafe", is_flag=True, help="go on even where no sandbox can isolate the code"),
                   config_option, kit_option,
                   click.argument("submission", type=NonEmptyPath(path_type=Path), default=Path("mm.c"))):
        command = option(command)
    return command


@click.group(name="mmgrade", cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Grade malloc-lab submissions safely, fairly and reproducibly.

    \b
    Example:
      mmgrade grade submissions/ -o out -j 2 --config course.toml
      mmgrade report out
    """


def _summary_table(batch: Batch) -> Table:
    table = Table(title="verdicts")
    table.add_column("verdict")
    table.add_column("submissions", justify="right")
    table.add_column("mean points", justify="right")
    subs = [s for s in batch.submissions if not s.reference]
    for verdict, count in sorted(Counter(s.verdict for s in subs).items()):
        points = [s.summary.points for s in subs if s.verdict == verdict]
        mean = f"{sum(points) / len(points):.2f}" if verdict != "grader_error" else "not graded"   # its 0 is no grade
        table.add_row(verdict, str(count), mean)
    return table


def _write_outputs(batch: Batch, outdir: Path, report: bool, written: list[str] | None = None) -> Path | None:
    """grades.csv, then the report (or, without one, no earlier run's left beside it); each file
    written is added to WRITTEN, for a message if a stop comes before the rest."""
    if not report:
        _drop_report(outdir)
    store.write_atomic(outdir / "grades.csv", exports.grades_csv(batch))
    if written is not None:
        written.append("grades.csv")
    return render(batch, outdir) if report else None


def _drop_report(outdir: Path) -> None:
    """Remove an earlier run's report, which results.json no longer matches (--no-report), saying so."""
    removed = remove_report(outdir)
    if removed:
        click.echo(f"mmgrade: note: removed the earlier report in {outdir / 'report'} ({removed} file{'s' if removed > 1 else ''}), which "
                   f"showed an earlier run's grades; `mmgrade report {outdir}` draws this run's", err=True)


@main.command()
@click.argument("submissions", type=NonEmptyPath(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(file_okay=False), required=True,
              help="output folder (results.json, grades.csv, report/)")
@click.option("-j", "--jobs", type=IntRange(1, 64), default=1, show_default=True,
              help="submissions built and checked in parallel (timed runs stay one at a time)")
@config_option
@click.option("--traces", type=NonEmptyPath(file_okay=False, path_type=Path), default=None,
              help="trace folder (default: the policy's, in the kit)")
@click.option("--runs", type=int, default=None,
              help="driver runs per submission, the median one counting (default: the policy's timing.runs)")
@kit_option
@click.option("--force", is_flag=True, help="regrade submissions whose stored result is still valid")
@click.option("--regrade", multiple=True, metavar="NAME",
              help="regrade this submission (its name in grades.csv, or its hand-in's) even when its stored "
                   "result is still valid, the others' reused; repeatable")
@click.option("--unsafe", is_flag=True, help="run even where no sandbox can isolate the code")
@click.option("--no-report", is_flag=True, help="skip the HTML report")
def grade(submissions: Path, out: str, jobs: int, config: Path | None, traces: Path | None,
          runs: int | None, kit: Path | None, force: bool, regrade: tuple[str, ...], unsafe: bool,
          no_report: bool) -> None:
    """Grade every submission in SUBMISSIONS into OUTDIR.

    SUBMISSIONS is a folder of per-student folders (one mm.c at any depth, or one
    archive), of NAME.c or NAME-mm.c files, or of NAME.zip / NAME.tar[.gz|.bz2|.xz] /
    NAME.tgz archives.  Rerunning skips submissions whose source, policy and kit are
    unchanged.

    \b
    Example:
      mmgrade grade handins/ -o graded -j 2 --config course.toml
      mmgrade grade handins/ -o graded --runs 3      # the median of 3 timed runs
      mmgrade grade handins/ -o graded --regrade alice   # alice again, the class's other records reused
    """
    kit = kit or default_kit()
    if not out.strip():      # Path("") would be the current folder
        _fail("-o: an empty output folder name; name one, e.g. -o graded")
    if force and regrade:
        _fail("--force regrades every submission already; give --regrade NAME without it")
    outdir = Path(out)
    with ExitStack() as held:
        try:
            # prepare() removes its work folder on any exception, SIGTERM's included once it is one
            with _terminate_as_interrupt():
                store.check_place(outdir, submissions)
                store.check_layout(outdir)          # the lock's folders first: nothing made yet
                # first of all: a second run into OUTDIR is refused before it spends any setup
                claim = held.enter_context(store.exclusive(outdir))
                policy = load_policy(kit, config)
                policy = policy if runs is None else with_runs(policy, runs)
                sandbox = probe(unsafe=unsafe)
                candidates = _class(submissions, outdir)
                candidates += references(kit, policy)
                store.check_layout(outdir, [c.name for c in candidates])
                again = _regrade_names(regrade, candidates, submissions)
                ctx = prepare(kit, policy, sandbox, traces)
                held.callback(workdir.release, ctx.workdir)
                claim.begin()
            click.echo(f"sandbox: {', '.join(ctx.protections)}", err=True)
            _warn_exposed([*ctx.exposed, *ctx.sandbox.exposed([Path(submissions), outdir])])
        except ERRORS as err:
            _fail(str(err))
        except KeyboardInterrupt as stop:
            how, code = _stopped(stop)
            _fail(f"{how} while setting up, before anything was graded", code)
        if claim.earlier:
            click.echo(f"mmgrade: note: {outdir}: an earlier run ({claim.earlier}) was killed before it finished; "
                       "its finished records are reused", err=True)
        batch, index = _grade_locked(ctx, candidates, outdir, jobs, force, again, no_report)
    console = Console()
    console.print(_summary_table(batch))
    click.echo(f"results: {outdir / 'results.json'}\ngrades:  {outdir / 'grades.csv'}"
               + (f"\nreport:  {index}" if index else ""))


def _regrade_names(names: tuple[str, ...], candidates: list[Candidate], submissions: Path) -> frozenset[str]:
    """The candidates --regrade names, by the name grades.csv shows or the hand-in's own; a name
    that is neither is refused before anything is graded (a typo would regrade nobody)."""
    students = [c for c in candidates if not c.reference]
    chosen = set()
    for name in names:
        # the hand-in's name as given, or as grades.csv shows it (a Latin-1 byte escaped: jos\xe9.c)
        found = [c.name for c in students if name in (c.name, c.handin, c.origin.name, readable(c.origin.name))]
        if not found:
            raise SubmissionError(f"--regrade {name}: no submission of that name in {submissions} "
                              "(give its name in grades.csv or its hand-in's)")
        chosen.update(found)
    return frozenset(chosen)


def _grade_locked(ctx: Context, candidates: list[Candidate], outdir: Path, jobs: int, force: bool,
                  regrade: frozenset[str], no_report: bool) -> tuple[Batch, Path | None]:
    try:
        with _terminate_as_interrupt():
            batch = _run_with_progress(ctx, candidates, outdir, jobs, force, regrade)
    except KeyboardInterrupt as stop:
        how, code = _stopped(stop)
        _fail(f"{how}: {_kept(outdir, candidates, not no_report)}; rerun to resume", code)
    except store.OutputError as err:
        _fail(f"{err}; the records graded before it are kept in {outdir / store.SUBMISSIONS}")
    done = ["results.json"]
    try:
        with _terminate_as_interrupt():
            return batch, _write_outputs(batch, outdir, not no_report, done)
    except store.OutputError as err:
        _fail(str(err))
    except KeyboardInterrupt as stop:     # click would say 'aborted', exit 1, SIGTERM nothing at all
        how, code = _stopped(stop)
        _fail(f"{how} while writing the outputs: all {len(batch.submissions)} submissions are graded and "
              f"{' and '.join(done)} {'are' if len(done) > 1 else 'is'} written in {outdir}; `mmgrade report "
              f"{outdir}` rebuilds the report", code)


def _class(submissions: Path, outdir: Path) -> list[Candidate]:
    """The hand-ins in SUBMISSIONS (OUTDIR and earlier outputs, if in there, are none), each
    unrecognised entry warned about."""
    if not submissions.is_dir() and (found := whole_class(submissions)) is not None:
        raise SubmissionError(_a_class_in_one_archive(submissions, outdir, *found))
    for path in unrecognised(submissions):
        click.echo(f"mmgrade: warning: {one_line(str(path))}: not a hand-in the grader reads ({FORMS}); skipped",
                   err=True)
    found = []
    notes: list[str] = []
    candidates = discover(submissions, notes)
    for line in notes:          # a Gradescope or Autolab download: whose hand-in is whose, what is left out
        click.echo(f"mmgrade: {line}", err=True)
    for cand in candidates:
        if not _is_output(cand, outdir):
            found.append(cand)
        elif cand.origin.resolve() != outdir.resolve():
            click.echo(f"mmgrade: note: {one_line(str(cand.origin))}: an earlier output of the grader, "
                       "not a hand-in; skipped", err=True)
    if not found:
        raise SubmissionError(f"{submissions}: no hand-ins in the folder ({FORMS})")
    return found


def _a_class_in_one_archive(archive: Path, outdir: Path, students: list[str], inner: Path, what: str) -> str:
    """Refusal of a class handed over as one archive, which would grade as one student with
    several mm.c: how to grade it instead."""
    folder = Path(discover(archive)[0].name)        # the archive's name less its suffix, safe in a shell
    shell = shlex.quote(one_line(str(archive)))
    unpack = f"unzip {shell} -d {folder}" if archive.name.lower().endswith(".zip") else f"tar -xf {shell} -C {folder}"
    shown = ", ".join(one_line(s) for s in students[:3]) + (
        f" and {len(students) - 3} more" if len(students) > 3 else "")
    target = folder / inner
    return (f"{one_line(str(archive))}: holds {len(students)} {what} ({shown}): it looks like "
            f"a whole class, not one hand-in; unpack it and grade the folder: mkdir {folder} && {unpack} && "
            f"mmgrade grade {shlex.quote(one_line(str(target)))} -o {shlex.quote(one_line(str(outdir)))}")


def _is_output(cand: Candidate, outdir: Path) -> bool:
    # only a folder is resolved: a file may be a symlink loop, which read_source refuses in one line
    return cand.kind == "folder" and (cand.origin.resolve() == outdir.resolve() or store.holds_output(cand.origin))


def _kept(outdir: Path, candidates: list[Candidate], report: bool) -> str:
    """What a stopped batch keeps: grade_batch wrote results.json with this run's records only
    (none graded under another policy or for an older file); grades.csv and the report follow it,
    so that no page shows an earlier run's grades as this one's."""
    students = [c for c in candidates if not c.reference]
    try:
        batch = store.read_results(outdir)
        _write_outputs(batch, outdir, report)
    except store.OutputError:
        return f"the finished records are kept in {outdir / store.SUBMISSIONS}"
    except KeyboardInterrupt:       # stopped again while drawing: results.json and grades.csv are written
        report = False
    verdicts = {s.name: s.verdict for s in batch.submissions if not s.reference}
    missing = [c.name for c in students if c.name not in verdicts]
    # a grader_error's record is kept but is no grade: counted apart, as grades.csv leaves its points empty
    failed = [c.name for c in students if verdicts.get(c.name) == "grader_error"]
    return (f"{len(students) - len(missing) - len(failed)} of {len(students)} submissions graded"
            + (f", {len(failed)} not graded as the grader failed on them ({_listed(failed)})" if failed else "")
            + f", kept in {outdir}"
            + (f" (results.json, grades.csv{' and the report' if report else ''} leave out the "
               f"{len(missing)} not yet graded: {_listed(missing)})" if missing else ""))


def _listed(names: list[str]) -> str:
    """The first five of NAMES, and how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's cancel, `kill`) while grading."""
    how, code = "terminated", 143


class HungUp(Terminated):
    """SIGHUP (the terminal or the ssh session the grader ran in closed) while grading."""
    how, code = "hung up", 129


STOPS = {signal.SIGTERM: Terminated, signal.SIGHUP: HungUp}


def _off_a_dead_terminal() -> None:
    """Point stdout and stderr at /dev/null where they are a terminal that hung up: every write to it
    now fails (EIO), and the progress bar's last redraw would be a traceback in place of the outputs.
    A live terminal (`kill -HUP`), a log file or a pipe keeps what the grader says last."""
    for fd in (1, 2):
        with suppress(OSError):
            if stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd):    # a hung-up tty is no tty
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, fd)
                os.close(null)


def _stopped(stop: KeyboardInterrupt) -> tuple[str, int]:
    """What stopped the grader, and the exit status a shell gives that signal (128 + its number)."""
    return (stop.how, stop.code) if isinstance(stop, Terminated) else ("interrupted", 130)


@contextmanager
def _terminate_as_interrupt():
    """Let SIGTERM and SIGHUP stop a batch the way Ctrl-C does: the sandboxed runs are killed (they
    live in their own sessions, so they would outlive the grader) and the finished results are kept.
    A signal already ignored stays ignored (`nohup mmgrade grade ...` goes on when the session ends)."""
    def stop(signum, frame):
        if signum == signal.SIGHUP:
            _off_a_dead_terminal()
        raise STOPS[signum]()
    previous = {signum: signal.getsignal(signum) for signum in STOPS}
    caught = [signum for signum, was in previous.items() if was != signal.SIG_IGN]
    for signum in caught:
        signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum in caught:
            signal.signal(signum, previous[signum])


def _run_with_progress(ctx: Context, candidates: list[Candidate], outdir: Path, jobs: int, force: bool,
                       regrade: frozenset[str] = frozenset()) -> Batch:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=False) as bar:
        task = bar.add_task("grading", total=len(candidates))

        running: set[str] = set()

        def tick(event: str, name: str, sub: Submission | None) -> None:
            if event == "start":
                running.add(name)
            else:
                running.discard(name)
                line = f"{name}: {sub.verdict if sub else event}" + (" (unchanged)" if event == "reused" else "")
                bar.update(task, advance=1)
                if not err_console.is_terminal:
                    click.echo(line, err=True)      # a log keeps one line per submission
            bar.update(task, description="grading " + (", ".join(sorted(running)[:3]) or "..."))

        return grade_batch(ctx, candidates, outdir, jobs=jobs, force=force, progress=tick, notice=_notice,
                           regrade=regrade)


@main.command()
@click.argument("outdir", type=_PathThroughLinks("the output folder", exists=True, file_okay=False))
def report(outdir: Path) -> None:
    """(Re)build OUTDIR/report/ and grades.csv from OUTDIR/results.json.

    \b
    Example:
      mmgrade report graded
    """
    changed, grading = 0, False
    try:
        with _terminate_as_interrupt():
            store.read_results(outdir)          # a results.json that is none is refused before the layout
            store.check_layout(outdir)
            if (last_run := store.unfinished(outdir)):
                click.echo(f"mmgrade: warning: {outdir}: {last_run}", err=True)
            grading = store.grading_now(outdir)     # it writes results.json itself when it finishes
            batch, changed = store.rescore_results(outdir, rewrite=not grading)
            if changed:
                _say_rescored(outdir, changed, grading)
            index = _write_outputs(batch, outdir, report=True)
    except store.OutputError as err:
        _fail(str(err))
    except KeyboardInterrupt as stop:     # click would say 'aborted', exit 1, SIGTERM nothing at all
        how, code = _stopped(stop)
        state = "holds the rescored points" if changed and not grading else "is as it was"
        _fail(f"{how} while writing the report: results.json {state}; run `mmgrade report {outdir}` "
              "again for the rest", code)
    click.echo(f"report: {index}")


def _say_rescored(outdir: Path, changed: int, grading: bool) -> None:
    """One line: results.json held an older grader's points, and whether it now holds this one's."""
    said = f"mmgrade: note: {outdir / 'results.json'}: {changed} record{'s' if changed > 1 else ''} held an older grader's points; "
    click.echo(said + ("grades.csv and the report show this grader's, and results.json is left to the run grading "
                       "there now, which rewrites it" if grading else
                       "rewritten with this grader's, which grades.csv and the report show"), err=True)


def _grade_one(kit: Path, config: Path | None, source: Path, unsafe: bool,
               outdir: Path) -> tuple[Submission, object, tuple[bool, bool]]:
    """SOURCE graded alone, its policy, and which parts the traces measure (exports.batch_parts): a
    compile error's record has no trace to tell that Gradescope's and Autolab's exports need."""
    policy = load_policy(kit, config)
    sandbox = probe(unsafe=unsafe)
    found = one_handin(source)
    ctx = prepare(kit, policy, sandbox)
    _warn_exposed(list(ctx.exposed))
    try:
        batch = grade_batch(ctx, [found], outdir, force=True, notice=_notice)
    finally:
        workdir.release(ctx.workdir)
    return batch.submissions[0], policy, exports.batch_parts(ctx.facts)


def _gradescope_input(root: Path) -> Path:
    """ROOT/submission, the input; a ROOT without it is refused before anything is written there:
    a missing or mistyped --root had been made, results/ and all."""
    submission = root / "submission"
    if not root.exists():
        _fail(f"{root}: Gradescope's folder (--root) does not exist; nothing written")
    if not submission.is_dir():
        problem = link_problem(submission)      # a link to nothing is there: "does not exist" misnamed it
        what = f"is {problem}" if problem else "is not a folder" if submission.exists() else "does not exist"
        _fail(f"{submission}: {what}, so {root} is not Gradescope's folder (--root), whose submission/ holds "
              "the hand-in; nothing written")
    return submission


@main.command()
@click.option("--root", type=_PathThroughLinks("Gradescope's folder", file_okay=False), default=Path("/autograder"),
              show_default=True, help="Gradescope's folder (submission/ in, results/results.json out)")
@kit_option
@config_option
@click.option("--unsafe", is_flag=True, help="run even where no sandbox can isolate the code")
def gradescope(root: Path, kit: Path | None, config: Path | None, unsafe: bool) -> None:
    """Grade ROOT/submission the way Gradescope runs an autograder.

    Writes ROOT/results/results.json: one test per build step, static rule and
    trace, the total score, and a leaderboard entry.

    \b
    Example (what run_autograder does):
      mmgrade gradescope --root /autograder --kit /autograder/source/kit
    """
    kit = kit or default_kit()
    submission = _gradescope_input(root)
    results = root / "results"
    try:
        store.check_layout(results)
        source = find_one(submission)
        sub, policy, parts = _grade_one(kit, config, source, unsafe, results / "mmgrade")
        written = exports.gradescope_results(sub, policy, parts)
        store.write_json(results / "results.json", written)
    except store.OutputError as err:      # no results.json can say so: only the log can
        _fail(str(err))
    except ERRORS as err:
        try:
            store.write_json(results / "results.json", exports.gradescope_failure(str(err)))
        except store.OutputError as unwritten:      # as above: only the log can say either
            _fail(f"{err}; {unwritten}")
        _fail(str(err), 1)
    # the score results.json gives (shown, rounded), never a grader_error's 0 as a grade
    score = f"{written['score']} points" if exports.counted(sub) else "not graded (the grader failed, not the submission)"
    click.echo(f"{sub.name}: {sub.verdict}, {score}: {results / 'results.json'}")


@main.command()
@one_submission
def autolab(submission: Path, kit: Path | None, config: Path | None, unsafe: bool) -> None:
    """Grade SUBMISSION (default ./mm.c) and end with the line Autolab reads.

    When the grader fails (grader_error, a broken policy) there is no such line, so that
    Autolab records no grade: a last line saying so, and exit status 1.  A hand-in that is no
    file to grade (a folder named mm.c) scores 0, as a bad_submission does in a class.

    \b
    Example (what the autograde Makefile does):
      mmgrade autolab mm.c --kit kit
    """
    kit = kit or default_kit()
    try:
        sub, _, parts = _grade_one(kit, config, submission, unsafe, Path("mmgrade-out"))
    except SubmissionError as err:      # the hand-in's own fault (a folder, not a file): bad_submission, 0 points
        click.echo(f"bad_submission: {err}")
        click.echo(exports.autolab_bad_submission())
        return
    except ERRORS as err:       # no grade at all (a broken policy, no sandbox): the grader's, never 0 points
        click.echo(exports.autolab_not_graded(str(err)))
        sys.exit(1)
    click.echo(f"{sub.verdict}: {sub.reason}")
    for trace in sub.traces:
        click.echo(f"  {trace.name:24} {trace.outcome:18} {trace.message}")
    line = exports.autolab_line(sub, parts)
    if line is None:
        click.echo(exports.autolab_not_graded(sub.reason))
        sys.exit(1)
    click.echo(line)


@main.command()
@one_submission
def check(submission: Path, kit: Path | None, config: Path | None, unsafe: bool) -> None:
    """Build SUBMISSION (default ./mm.c) as the grader does and apply its static rules.

    Runs no trace (./mdriver does that): it tells you before you submit whether the
    grader would refuse the file, e.g. for more writable globals than the course allows.
    Exit status 0 when the grader would run it, 1 when it would not (the file itself
    refused included), 2 when the check could not be made.

    \b
    Example:
      mmgrade check mm.c --config course.toml
    """
    kit = kit or default_kit()
    try:
        policy = load_policy(kit, config)
        sandbox = probe(unsafe=unsafe)
        found = one_handin(submission)
    except ERRORS as err:
        _fail(str(err))
    try:
        result = precheck(kit, policy, sandbox, found)
    except SubmissionError as err:      # the file itself is refused: the student's to fix, as a rule is
        _fail(f"{err}; the grader would refuse it (bad_submission)", 1)
    except (*ERRORS, PrecheckError) as err:
        _fail(str(err))
    name = one_line(submission.name)        # a folder 'new\nline' stays on its line
    if result.built.status != "ok":
        what = "does not compile" if result.built.status == "compile_error" else "does not link with the driver"
        problem = result.build_problem()
        if submission.is_file() and submission.suffix == ".c":   # the grader builds a copy named mm.c
            problem = re.sub(r"^mm\.c:(?=[\d(])", lambda _: f"{name}:", problem)
        click.echo(f"{name}: {what}: {problem}")
    for rule in result.rules:
        click.echo(f"  {rule.verdict:7} {rule.rule:18} {rule.detail}")
    if result.would_run:
        click.echo(f"{name}: passes the grader's build and static rules (alignment {policy.build.alignment}); "
                   "./mdriver -V scores it")
        return
    if result.rejected:
        click.echo(f"{name}: the grader would reject it: " + ", ".join(r.rule for r in result.rejected))
    sys.exit(1)


@main.group(name="package")
def package_group() -> None:
    """Build what an instructor uploads to Gradescope or Autolab.

    \b
    Example:
      mmgrade package gradescope -o autograder.zip
      mmgrade package autolab -o autolab/
    """


@package_group.command(name="gradescope")
@click.option("-o", "--out", "out", type=_PathThroughLinks("the bundle", dir_okay=False), required=True)
@kit_option
@config_option
def package_gradescope(out: Path, kit: Path | None, config: Path | None) -> None:
    """Write Gradescope's autograder.zip (setup.sh, run_autograder, the kit and this grader).

    \b
    Example:
      mmgrade package gradescope -o autograder.zip --config course.toml
    """
    try:
        path = package.gradescope_zip(kit or default_kit(), config, out)
    except ERRORS as err:
        _fail(str(err))
    except KeyboardInterrupt:            # click would say 'aborted', exit 1
        _fail(f"interrupted: {out} is as it was", 130)
    click.echo(f"wrote {path}")


@package_group.command(name="autolab")
@click.option("-o", "--out", "out", type=_PathThroughLinks("the bundle folder", file_okay=False), required=True)
@kit_option
@config_option
def package_autolab(out: Path, kit: Path | None, config: Path | None) -> None:
    """Write Autolab's autograde-Makefile and autograde.tar into a folder.

    \b
    Example:
      mmgrade package autolab -o autolab/ --config course.toml
    """
    try:
        paths = package.autolab_bundle(kit or default_kit(), config, out)
    except ERRORS as err:
        _fail(str(err))
    except KeyboardInterrupt:            # click would say 'aborted', exit 1
        _fail(f"interrupted: {out}/autograde.tar and autograde-Makefile are as they were", 130)
    for path in paths:
        click.echo(f"wrote {path}")
