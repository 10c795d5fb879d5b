"""A student's check before submitting: the grader's build and static rules on one mm.c, nothing run.

The same kit template, flags, sandbox and rules as `mmgrade grade`, so a file that passes here
builds and is judged the same way there; only the traces are not run (mdriver does that).
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .build import BuildResult, KitError, build_submission, build_template, first_error, prepare_folder
from .grade import BatchError, check_reachable
from .model import RuleResult
from .policy import Policy
from .rules import ToolError, check_object
from .sandbox import Sandbox
from .submissions import Candidate, read_source


class PrecheckError(RuntimeError):
    """The check could not be made (the kit, the sandbox or binutils failed): not the student's fault."""


@dataclass(frozen=True)
class Precheck:
    built: BuildResult
    rules: tuple[RuleResult, ...]      # empty when the build made no object to read

    @property
    def rejected(self) -> tuple[RuleResult, ...]:
        return tuple(r for r in self.rules if r.verdict == "reject")

    @property
    def would_run(self) -> bool:
        """The grader would go on to run the traces."""
        return self.built.status == "ok" and not self.rejected

    def build_problem(self) -> str:
        return first_error(self.built.log)


def precheck(kit: Path, policy: Policy, sandbox: Sandbox, cand: Candidate) -> Precheck:
    """Build CAND as the grader builds a submission and apply the static rules to its object.

    A link error still has an object, and the rules usually say why it did not link."""
    source = read_source(cand, policy.build.source_max_bytes)
    work = Path(tempfile.mkdtemp(prefix="mmgrade-check-"))
    try:
        work.chmod(0o711)
        if sandbox.setpriv:
            try:
                check_reachable(work)
            except BatchError as err:
                raise PrecheckError(str(err)) from None
        try:
            build_template(Path(kit).resolve(), work / "template", policy)
        except (KitError, OSError) as err:
            raise PrecheckError(str(err)) from None
        folder = work / "sub"
        prepare_folder(work / "template", folder, source)
        try:
            built = build_submission(folder, policy, sandbox, 0, work / "template")
        except KitError as err:
            raise PrecheckError(str(err)) from None
        if built.alloc_obj is None:
            return Precheck(built, ())
        try:
            return Precheck(built, check_object(built.alloc_obj, list(built.driver_objs), policy))
        except ToolError as err:
            raise PrecheckError(str(err)) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
