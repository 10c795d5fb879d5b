"""mmgrade: grade a class's malloc-lab submissions safely, fairly and reproducibly.

The public surface is small: `load_policy`, `grade_batch` and the data model.
Everything else is private to the package; only `grader.cli` prints.
"""
from .model import Batch, Submission
from .policy import Policy, load_policy

__all__ = ["Batch", "Submission", "Policy", "load_policy"]
