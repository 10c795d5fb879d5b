"""mmgrade: grade a class's malloc-lab submissions safely, fairly and reproducibly.

The public surface is small: `load_policy`, `prepare` and `grade_batch`, and the data model.
Everything else is private to the package; only `grader.cli` prints.
"""
from .grade import grade_batch, prepare
from .model import Batch, Submission
from .policy import Policy, load_policy

__all__ = ["Batch", "Submission", "Policy", "load_policy", "prepare", "grade_batch"]
