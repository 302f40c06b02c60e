"""Choices shared by several layers, importable without numpy (bottom layer).

The command-line interface builds its parser (``sigtest --help``) from these
without importing the modules that compute, which load numpy and pandas.
"""

__all__ = ["BOOTSTRAP_OPTIONS", "CORRECTION_ALIASES", "CORRECTIONS", "MAXT_ALIASES",
           "MAXT_CORRECTIONS", "RUNS_MODES"]

#: How several runs (seeds) per system are used by ``compare``,
#: ``cross_val_compare`` and ``Experiment.run``: see ``sigtest._workflows.runs``.
RUNS_MODES = ("average", "each", "mean", "pool", "nested")

#: Short names accepted for a multiple-comparison correction (R's spellings).
CORRECTION_ALIASES = {"bh": "fdr_bh", "by": "fdr_by"}

#: Every accepted ``adjust_pvalues(method=)`` / ``compare(correction=)`` name:
#: the methods of ``sigtest.tests_._corrections``, then their aliases.
CORRECTIONS = ("holm", "bonferroni", "sidak", "holm-sidak", "hochberg", "hommel", "fdr_bh",
               "fdr_by") + tuple(CORRECTION_ALIASES)

#: ``compare``'s max-T corrections (Romano-Wolf step-down, Westfall-Young
#: single-step on the shared bootstrap) and the alias of the step-down.
MAXT_CORRECTIONS = ("max-t", "max-t-single-step")
MAXT_ALIASES = {"romano-wolf": "max-t"}

#: ``compare(bootstrap=)`` / ``ranks(bootstrap=)``: the source of the shared draws.
BOOTSTRAP_OPTIONS = ("auto", "resample", "multiplier")
