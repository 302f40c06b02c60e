"""Choices shared by several layers, importable without numpy (bottom layer).

The command-line interface builds its parser (``sigtest --help``) from these
without importing the modules that compute, which load numpy and pandas.
"""

__all__ = ["RUNS_MODES"]

#: How several runs (seeds) per system are used by ``compare``,
#: ``cross_val_compare`` and ``Experiment.run``: see ``sigtest._workflows.runs``.
RUNS_MODES = ("average", "each", "mean", "pool", "nested")
