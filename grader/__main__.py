"""`python -m grader` is `mmgrade` (used by the hosted bundles, which carry no console script)."""
from .cli import main

main(prog_name="mmgrade")
